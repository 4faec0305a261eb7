"""Attention in torch.nn.functional: multi_head_attention_forward and scaled_dot_product_attention (torch's CPU flash
kernel, ops/attention.py, where torch takes it; else composed from matmul, softmax and dropout ops)."""
from __future__ import annotations

import math

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.grad_mode import is_grad_enabled
from ...backends.cuda import flash_sdp_enabled
from ...ops._util import c_type_name
from ...ops.attention import flash_attention, flash_usable
from ...ops.dropout import dropout
from ...ops.linalg import linear
from ... import backend, creation, dtypes, ops
from ...tensor import Tensor


def _as_bias(mask: Tensor | None, dtype, name: str) -> Tensor | None:
    """A bool 'disallowed' mask becomes -inf/0; a float mask is used as is."""
    if mask is None:
        return None
    if mask._array.dtype.kind == "b":
        return creation.zeros(*mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if mask._array.dtype.kind not in "fV":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _in_projection_packed(q, k, v, w, b):
    """q, k and v projected by the packed (3E, E) in_proj weight, as torch's _in_projection_packed: self-attention
    (q is k is v) is one product (one GEMM, one saved copy of the input), then split into three contiguous
    blocks; k is v (encoder-decoder) projects q alone and k, v together; otherwise three products."""
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _attention_forward(query, key, value, num_heads: int, in_proj_weight, in_proj_bias, out_proj_weight,
                       out_proj_bias, training: bool = True, key_padding_mask=None, need_weights: bool = True,
                       attn_mask=None, dropout_p: float = 0.0, q_proj_weight=None, k_proj_weight=None,
                       v_proj_weight=None, average_attn_weights: bool = True, is_causal: bool = False):
    """Inputs (L, N, E) / (S, N, E); returns (L, N, E) and the weights (N, L, S) (averaged) or None."""
    L, N, E = query.shape
    S = key.shape[0]
    head_dim = E // num_heads
    if head_dim * num_heads != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if q_proj_weight is None:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q = linear(query, q_proj_weight, bq)
        k = linear(key, k_proj_weight, bk)
        v = linear(value, v_proj_weight, bv)
    # (L, N, E) -> (N * heads, L, head_dim), as torch
    q = q.reshape(L, N * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(S, N * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(S, N * num_heads, head_dim).transpose(0, 1)

    bias = _as_bias(attn_mask, q.dtype, "attn_mask")
    if bias is not None:
        if bias.ndim == 2:
            if tuple(bias.shape) != (L, S):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(bias.shape)}, but should be {(L, S)}.")
            bias = bias.unsqueeze(0)
        elif tuple(bias.shape) != (N * num_heads, L, S):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(bias.shape)}, but should be "
                               f"{(N * num_heads, L, S)}.")
    kpm = _as_bias(key_padding_mask, q.dtype, "key_padding_mask")
    if kpm is not None:
        if tuple(kpm.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got {tuple(kpm.shape)}")
        kpm = kpm.reshape(N, 1, 1, S).expand(N, num_heads, 1, S).reshape(N * num_heads, 1, S)
        bias = kpm if bias is None else bias + kpm

    if not training:
        dropout_p = 0.0
    if not need_weights:  # torch's path: scaled_dot_product_attention on (N, heads, L, head_dim) views
        if is_causal and key_padding_mask is None:
            bias = None  # the causal hint stands for the mask (the flash kernel masks as it goes)
        elif bias is not None:
            bias = bias.unsqueeze(0) if bias.shape[0] == 1 else bias.view(N, num_heads, -1, S)
            is_causal = False
        else:
            is_causal = False
        out = scaled_dot_product_attention(q.view(N, num_heads, L, head_dim), k.view(N, num_heads, S, head_dim),
                                           v.view(N, num_heads, S, head_dim), bias, dropout_p, is_causal)
        out = out.permute(2, 0, 1, 3).reshape(N * L, E)
        return linear(out, out_proj_weight, out_proj_bias).view(L, N, E), None
    q = q * math.sqrt(1.0 / head_dim)
    logits = ops.bmm(q, k.transpose(-2, -1)) if bias is None else ops.baddbmm(bias, q, k.transpose(-2, -1))
    weights = ops.softmax(logits, dim=-1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p)
    out = ops.bmm(weights, v)  # (N * heads, L, head_dim)
    out = out.transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).view(L, N, E)
    weights = weights.reshape(N, num_heads, L, S)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    return out, weights


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """torch.nn.functional.multi_head_attention_forward, with torch's signature (sequence-first inputs)."""
    if bias_k is not None or bias_v is not None or add_zero_attn or static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: bias_k/bias_v, add_zero_attn and static_k/v are "
                                  "not supported")
    if query.shape[-1] != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{query.shape[-1]}")
    if not use_separate_proj_weight:
        q_proj_weight = k_proj_weight = v_proj_weight = None
    return _attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias, out_proj_weight,
                              out_proj_bias, training, key_padding_mask, need_weights, attn_mask, dropout_p,
                              q_proj_weight, k_proj_weight, v_proj_weight, average_attn_weights, is_causal)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q @ k^T * scale + mask) @ v; a bool mask is True where attention is allowed (torch's rule)."""
    if _amp.on and autocast_applies("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p, is_causal,
                                    scale, enable_gqa):
        return autocast_run("scaled_dot_product_attention", scaled_dot_product_attention, query, key, value, attn_mask,
                            dropout_p, is_causal, scale, enable_gqa)
    _check_sdpa_inputs(query, key, value, attn_mask)
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported")
    L, S = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if flash_sdp_enabled() and flash_usable(query, key, value, attn_mask, dropout_p, is_grad_enabled()):  # torch's
        # CPU choice of kernel (enable_flash_sdp(False) or sdpa_kernel(MATH) turn it off, as torch's)
        return flash_attention(query, key, value, attn_mask, is_causal, scale)  # (a mask and is_causal: both)
    if is_causal and attn_mask is not None:  # torch's math composition refuses the pair
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    logits = ops.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:  # the cached "not allowed" mask: no new mask array per call
        return _attend(logits.masked_fill(_causal_disallowed(L, S, query.device), float("-inf")), value, dropout_p)
    if attn_mask is not None:
        if attn_mask._array.dtype.kind == "b":
            logits = logits.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            logits = logits + attn_mask
    return _attend(logits, value, dropout_p)


def _check_sdpa_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    """torch's validate_sdpa_input: q, k, v of one dtype and at least 2-D, a mask of bool, float32 or their
    dtype."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{c_type_name(query._array.dtype)} key.dtype: {c_type_name(key._array.dtype)} and "
                           f"value.dtype: {c_type_name(value._array.dtype)} instead.")
    if attn_mask is not None and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {c_type_name(attn_mask._array.dtype)} and  query.dtype: "
                           f"{c_type_name(query._array.dtype)} instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")


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
