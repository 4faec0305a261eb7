"""dropout3d, alpha_dropout and feature_alpha_dropout as torch's (ATen's _dropout_impl).

Alpha dropout keeps SELU's self-normalisation: with keep mask m (kept with probability 1 - p), alpha = SELU's
-scale * alpha, a = 1 / sqrt((alpha^2 p + 1)(1 - p)) and b = (m - 1) alpha a + alpha a p, out = x * (m a) + b (a
dropped element becomes -alpha a (1 - p)).  The feature forms draw one m per (sample, channel).  Masks come from the
framework's generator on the host, as dropout's (torch's bernoulli stream cannot be matched).
"""
from __future__ import annotations

import math
import warnings

from .. import backend
from ..random import _gen
from ..tensor import Tensor
from .dropout import _channel_dropout

ALPHA = 1.7580993408473766  # SELU's scale * alpha, torch's constant


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(x: Tensor, p: float, feature: bool):
    """1 where an element (or, for the feature form, a whole (sample, channel)) is kept, drawn with P = 1 - p."""
    if feature and x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2) if feature else tuple(x.shape)
    keep = (_gen(None).random(shape) >= p).astype(x._array.dtype)
    return Tensor._make(backend.to_device(keep, x.device))


def alpha_dropout_with_mask(x: Tensor, keep: Tensor, p: float, inplace: bool = False) -> Tensor:
    """torch's alpha dropout formula for a given keep mask (0/1, broadcastable to x)."""
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    b = (keep - 1) * (ALPHA * a) + ALPHA * a * p
    noise = keep * a
    return x.mul_(noise).add_(b) if inplace else (x * noise).add_(b)


def _alpha(x: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    _check_p(p)
    if p == 0 or not training or x.numel() == 0:
        return x
    if p == 1:  # torch multiplies by a zero scalar
        zero = x.new_zeros(())
        return x.mul_(zero) if inplace else x * zero
    return alpha_dropout_with_mask(x, _keep_mask(x, p, feature), p, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout (for SELU networks): dropped elements set to SELU's saturation value, then an affine map that
    keeps the mean and variance."""
    return _alpha(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (one draw per (sample, channel))."""
    return _alpha(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) / (C, D, H, W) inputs with probability p, scale the rest."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    batched = input.ndim == 5
    x = input if batched else (input.unsqueeze_(0) if inplace else input.unsqueeze(0))
    if x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    # torch's feature_dropout: one draw per (sample, channel) over whatever trailing dims there are
    out = _channel_dropout(x, p, training, inplace, x.ndim - 2, "dropout3d")
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out
