"""Dropout: zero elements (or whole channels) with probability p and scale the rest by 1 / (1 - p).

The mask is drawn on the host from the framework's generator (so CPU and GPU runs draw the same numbers) and
multiplied in: the gradient is the same mask, recorded by MulBackward0 as torch's MulBackward0/NativeDropout.
"""
from __future__ import annotations

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
