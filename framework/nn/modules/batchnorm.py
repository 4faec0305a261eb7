"""Batch normalisation (torch.nn.modules.batchnorm): the same objects as framework.nn."""
from ..layers import BatchNorm1d, BatchNorm2d, BatchNorm3d  # noqa: F401

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]
