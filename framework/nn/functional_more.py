"""Functional pieces added for real PyTorch scripts: channel dropout and scaled dot-product attention."""
from __future__ import annotations

import math

import numpy as np

from .. import backend, ops
from ..tensor import Tensor
from ..ops.dropout import dropout


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q @ k^T * scale + mask) @ v; a bool mask is True where attention is allowed (torch's rule)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    logits = ops.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        allowed = np.tril(np.ones((L, S), dtype=bool))
        attn_mask = Tensor._make(backend.to_device(allowed, query.device))
    if attn_mask is not None:
        if attn_mask._array.dtype.kind == "b":
            logits = logits.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            logits = logits + attn_mask
    weights = ops.softmax(logits, dim=-1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, training=True)
    return ops.matmul(weights, value)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input / max(|input|_p along dim, eps), as torch's F.normalize."""
    denom = ops.norm(input, p=p, dim=dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom
