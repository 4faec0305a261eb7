"""framework.optim: optimizers that update parameters in place under no_grad, and LR schedulers."""
from . import lr_scheduler, swa_utils  # noqa: F401
from .adadelta import Adadelta, adadelta_step
from .adam import Adam, AdamW, adam_step
from .adam_variants import Adamax, NAdam, RAdam
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import Adagrad, RMSprop, adagrad_step, rmsprop_step
from .rprop_asgd import ASGD, Rprop
from .sgd import SGD, sgd_step
