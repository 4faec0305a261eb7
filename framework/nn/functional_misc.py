"""More functional layers, composed as torch composes them (so the graphs end in torch's nodes): rms_norm,
bilinear, local_response_norm, gumbel_softmax; embedding_bag and the gated/shrink activations
are single ops (ops/embedding_bag.py, ops/activation_shrink.py)."""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend, creation, ops
from ..ops._util import c_type_name
from ..ops.resample import pad
from ..random import _gen
from ..tensor import Tensor


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """input / sqrt(mean(input**2 over the normalized dims) + eps) (* weight); eps None: the dtype's epsilon."""
    if _amp.on and autocast_applies("rms_norm", input, normalized_shape, weight, eps):
        return autocast_run("rms_norm", rms_norm, input, normalized_shape, weight, eps)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        expected = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*{expected}], but got "
                           f"input of size{list(input.shape)}")
    if eps is None:
        eps = float(ml_dtypes.finfo(input._array.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    # torch's rms_norm: rsqrt(pow(x, 2).mean(dims, keepdim).add_(eps)), then x * that (* weight)
    inv = ops.rsqrt(input.pow(2).mean(dim=dims, keepdim=True).add_(eps)) if dims else \
        ops.rsqrt(input.pow(2).add_(eps))
    out = input * inv
    if weight is None:
        return out
    if weight._array.dtype != input._array.dtype:  # torch's unfused path: the product in the promoted dtype, then
        # cast back to the input's (ToCopyBackward0), with its warning
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = {c_type_name(input._array.dtype)}, "
                      f"weight dtype = {c_type_name(weight._array.dtype)}, Cannot dispatch to fused implementation.",
                      UserWarning, stacklevel=2)
        return (out * weight).to(input.dtype)
    return out * weight


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] (+ bias[o])."""
    if _amp.on and autocast_applies("bilinear", input1, input2, weight, bias):
        return autocast_run("bilinear", bilinear, input1, input2, weight, bias)
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None
                                                                          else [])
    if len({t._array.dtype for _, t in named}) > 1:  # torch checks the dtypes first, naming them as C++ does
        got = ", ".join(f"{n}: {c_type_name(t._array.dtype)}" for n, t in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    o, i, j = weight.shape
    batch = tuple(input1.shape[:-1])
    x1, x2 = input1.reshape(-1, i), input2.reshape(-1, j)
    # one (N, i) @ (i, j) product per output feature: the batched product saves the weight itself, as torch's
    # _trilinear saves its three inputs (an in-place change of any of them then makes backward raise)
    tmp = x1.unsqueeze(0).expand(o, x1.shape[0], i) @ weight  # (o, N, j)
    out = (tmp * x2.unsqueeze(0)).sum(-1).t().contiguous().view(batch + (o,))  # ViewBackward0, as torch's
    return out + bias if bias is not None else out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of input**2 over `size` neighbouring channels) ** beta."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sq = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    padded = pad(sq, (0, 0) * (dim - 2) + (before, after))  # zero channels on both sides
    c = input.shape[1]
    window = padded.narrow(1, 0, c)
    for s in range(1, size):  # the channel window's sum, as torch's avg_pool over (size, 1, ...)
        window = window + padded.narrow(1, s, c)
    div = (window / size).mul(alpha).add(k).pow(beta)
    return input / div


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); hard=True: the one-hot of its argmax, with the soft gradient."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    draw = _gen(None).exponential(size=tuple(logits.shape)).astype(logits._array.dtype)
    gumbels = -Tensor._make(backend.to_device(draw, logits.device)).log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


