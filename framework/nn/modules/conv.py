"""Convolutions (torch.nn.modules.conv): the same objects as framework.nn."""
from ..layers import Conv2d, ConvTranspose2d  # noqa: F401

from ..layers_more import Conv1d  # noqa: F401
from ..convolution import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: F401

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
