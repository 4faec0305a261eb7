"""Functional pieces added for real PyTorch scripts: scaled dot-product attention, normalize, instance_norm."""
from __future__ import annotations

import math

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend, ops
from ..autograd.grad_mode import no_grad
from ..ops import batch_norm as _bn
from ..tensor import Tensor
from ..ops.dropout import dropout


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q @ k^T * scale + mask) @ v; a bool mask is True where attention is allowed (torch's rule)."""
    if _amp.on and autocast_applies("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p, is_causal,
                                    scale, enable_gqa):
        return autocast_run("scaled_dot_product_attention", scaled_dot_product_attention, query, key, value, attn_mask,
                            dropout_p, is_causal, scale, enable_gqa)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    logits = ops.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:  # the cached "not allowed" mask: no new mask array per call
        return _attend(logits.masked_fill(_causal_disallowed(L, S, query.device), float("-inf")), value, dropout_p)
    if attn_mask is not None:
        if attn_mask._array.dtype.kind == "b":
            logits = logits.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            logits = logits + attn_mask
    return _attend(logits, value, dropout_p)


def _attend(logits: Tensor, value: Tensor, dropout_p: float) -> Tensor:
    """softmax(logits) @ value, with dropout on the weights."""
    weights = ops.softmax(logits, dim=-1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, training=True)
    return ops.matmul(weights, value)


_CAUSAL_MASKS: dict = {}


def _causal_disallowed(L: int, S: int, device) -> Tensor:
    """The (L, S) bool mask, True above the diagonal (the keys a causal query may not see), made once per shape
    and device and kept (a few at most: a model uses one or two sequence lengths)."""
    key = (L, S, str(device))
    mask = _CAUSAL_MASKS.get(key)
    if mask is None:
        if len(_CAUSAL_MASKS) >= 16:
            _CAUSAL_MASKS.clear()
        mask = _CAUSAL_MASKS[key] = Tensor._make(backend.to_device(np.triu(np.ones((L, S), dtype=bool), 1),
                                                                    device))
    return mask


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """input / max(|input|_p along dim, eps), as torch's F.normalize."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported "
                                  "(framework has no out= arguments; use the returned tensor)")
    denom = ops.norm(input, p=p, dim=dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims.

    As torch's aten::instance_norm: batch norm over the input viewed as (1, N*C, *spatial), with the
    per-channel weight, bias and running stats repeated N times; the running stats then take the mean of
    their N updated copies.  So the graph is ViewBackward0 <- NativeBatchNormBackward0 <- RepeatBackward0.
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    weight_, bias_, mean_, var_ = (t.repeat(b) if t is not None else None
                                   for t in (weight, bias, running_mean, running_var))
    out = _bn.batch_norm(input.contiguous().view(1, b * c, *input.shape[2:]), mean_, var_, weight_, bias_,
                         use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)
