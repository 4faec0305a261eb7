"""framework.nn: modules, parameters, layers, losses, init (as torch.nn)."""
from . import functional, init, utils  # noqa: F401
from .activation import (GELU, AvgPool2d, Dropout, Flatten, LeakyReLU, LogSoftmax, MaxPool2d, ReLU, Sigmoid,
                         Softmax, Tanh)
from .container import ModuleDict, ModuleList, Sequential
from .layers import (BatchNorm1d, BatchNorm2d, Conv2d, ConvTranspose2d, Embedding, Identity, LayerNorm, Linear)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Buffer, Parameter
