"""torch's deprecated resize functions, F.upsample / upsample_nearest / upsample_bilinear: F.interpolate after
torch's warning (the same text and class)."""
from __future__ import annotations

import warnings

from ...ops.vision import interpolate
from ...tensor import Tensor


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """F.interpolate(input, size, scale_factor, mode, align_corners), after torch's deprecation warning."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """F.interpolate in 'nearest' mode, after torch's deprecation warning."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """F.interpolate in 'bilinear' mode with align_corners=True, after torch's deprecation warning."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
