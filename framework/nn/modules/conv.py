"""Convolutions (torch.nn.modules.conv): the same objects as framework.nn."""
from ..layers import Conv2d, ConvTranspose2d  # noqa: F401

__all__ = ["Conv2d", "ConvTranspose2d"]
