"""Loss functions: binary cross-entropy, regression, NLL, CTC, margins."""
from .bce import BCEWithLogits, binary_cross_entropy, binary_cross_entropy_with_logits, BinaryCrossEntropy
from .regression import mse_loss, MseLoss
from .nll import nll_loss, NllLoss, NllLoss2d
from .ctc import ctc_gradient, CtcLoss, extended_labels, NEG_INF
from .margin import GradOnly, MultilabelMarginLoss, MultiMarginLoss, SoftMarginLoss

__all__ = ['BCEWithLogits', 'binary_cross_entropy', 'binary_cross_entropy_with_logits', 'BinaryCrossEntropy',
           'mse_loss', 'MseLoss', 'nll_loss', 'NllLoss', 'NllLoss2d', 'ctc_gradient', 'CtcLoss', 'extended_labels',
           'NEG_INF', 'GradOnly', 'MultilabelMarginLoss', 'MultiMarginLoss', 'SoftMarginLoss']
