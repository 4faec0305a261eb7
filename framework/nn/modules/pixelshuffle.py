"""PixelShuffle and PixelUnshuffle (torch.nn.modules.pixelshuffle)."""
from __future__ import annotations

from ...ops.vision import pixel_shuffle, pixel_unshuffle
from ...tensor import Tensor
from .module import Module


__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearrange (*, C*r*r, H, W) into (*, C, H*r, W*r), r = upscale_factor (sub-pixel convolution's last step)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange (*, C, H*r, W*r) into (*, C*r*r, H, W), r = downscale_factor: PixelShuffle's inverse."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
