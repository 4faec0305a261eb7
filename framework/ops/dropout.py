"""Dropout: zero elements (or whole channels) with probability p and scale the rest by 1 / (1 - p).

The mask is drawn on the host from the framework's generator (so CPU and GPU runs draw the same numbers) and
multiplied in: the gradient is the same mask, recorded by MulBackward0 as torch's MulBackward0/NativeDropout."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import backend
from ..random import _gen
from ..tensor import Tensor


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    keep = (_gen(None).random(tuple(input.shape)) >= p).astype(input._array.dtype) / (1 - p) if p < 1 else \
        np.zeros(tuple(input.shape), input._array.dtype)
    mask = Tensor._make(backend.to_device(keep, input.device))
    return input.mul_(mask) if inplace else input * mask


def _channel_dropout(x: Tensor, p: float, training: bool, inplace: bool, spatial: int, name: str) -> Tensor:
    """Zero whole channels (all ``spatial`` trailing dims at once) with probability p, scale the rest."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if spatial == 2 and x.ndim not in (3, 4):  # torch only warns here, then drops features of whatever it got
        warnings.warn(f"dropout2d: Received a {x.ndim}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=3)
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        spatial = x.ndim - 2  # (N, C, ...): one draw per (sample, feature); a 2-D input drops single elements
    elif x.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a {x.ndim}D "
                           f"input. Note that {name} exists to provide channel-wise dropout on inputs with "
                           f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension "
                           f"(i.e. {spatial + 1}D or {spatial + 2}D inputs).")
    if spatial == 2 and x.ndim == 3:  # torch's current (transitional) rule, warning included
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=3)
        spatial = 1
    if not training or p == 0:
        return x
    shape = tuple(x.shape[:x.ndim - spatial]) + (1,) * spatial
    keep = (_gen(None).random(shape) >= p).astype(x._array.dtype) / (1 - p) if p < 1 else \
        np.zeros(shape, x._array.dtype)
    mask = Tensor._make(backend.to_device(keep, x.device))
    return x.mul_(mask) if inplace else x * mask


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _channel_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")


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
