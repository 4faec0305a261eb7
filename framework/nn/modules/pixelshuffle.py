"""Pixel shuffle layers (torch.nn.modules.pixelshuffle): the same objects as framework.nn."""
from ..pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: F401

__all__ = ["PixelShuffle", "PixelUnshuffle"]
