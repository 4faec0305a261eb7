"""Pooling (torch.nn.modules.pooling): the same objects as framework.nn."""
from ..activation import AvgPool2d, MaxPool2d  # noqa: F401

from ..layers_more import AdaptiveAvgPool2d, AvgPool1d, MaxPool1d  # noqa: F401

__all__ = ["AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]
