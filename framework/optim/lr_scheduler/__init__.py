"""Learning-rate schedulers (torch.optim.lr_scheduler), with torch's recursive formulas so the
sequences match torch's to the last bit."""
from .base import EPOCH_DEPRECATION_WARNING, LRScheduler
from .decay import (ConstantLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, ExponentialLR, LambdaLR, LinearLR,
                    MultiplicativeLR, MultiStepLR, PolynomialLR, StepLR)
from .composite import ChainedScheduler, SequentialLR
from .cyclic import CyclicLR, OneCycleLR
from .plateau import ReduceLROnPlateau

__all__ = ['EPOCH_DEPRECATION_WARNING', 'LRScheduler', 'ConstantLR', 'CosineAnnealingLR',
           'CosineAnnealingWarmRestarts', 'ExponentialLR', 'LambdaLR', 'LinearLR', 'MultiplicativeLR', 'MultiStepLR',
           'PolynomialLR', 'StepLR', 'ChainedScheduler', 'SequentialLR', 'CyclicLR', 'OneCycleLR', 'ReduceLROnPlateau']
