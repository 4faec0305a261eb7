"""Pooling (torch.nn.modules.pooling): the same objects as framework.nn."""
from ..activation import AvgPool2d, MaxPool2d  # noqa: F401

__all__ = ["AvgPool2d", "MaxPool2d"]
