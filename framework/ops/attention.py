"""Fused attention: torch's CPU flash-attention kernel (_scaled_dot_product_flash_attention_for_cpu), the one node
scaled_dot_product_attention and MultiheadAttention(need_weights=False) record on 4-D inputs."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from .. import backend
from ..backend import get_array_module
from .loss.margin import GradOnly


def _scores(q, k, mask, is_causal: bool, scale: float, wide):
    """scale * q @ k^T (B, H, L, S) in the compute dtype, with the mask added (a bool mask: -inf where False) and,
    when causal, -inf above the diagonal (top-left aligned, as torch's): one fresh buffer, masked in place."""
    xp = get_array_module(q)
    s = backend.matmul(q.astype(wide, copy=False), xp.swapaxes(k.astype(wide, copy=False), -1, -2))
    s *= wide.type(scale)
    if is_causal:
        L, S = s.shape[-2:]
        s += xp.asarray(np.triu(np.full((L, S), -np.inf, dtype=wide), 1))  # -inf above the diagonal, 0 elsewhere
    if mask is not None:
        if mask.dtype == np.bool_:
            s += xp.where(mask, wide.type(0), wide.type(-np.inf))  # the mask's own (L, S) or (B, H, L, S) size
        else:
            s += mask.astype(wide, copy=False)
    return s


def _probabilities(s, lse):
    """exp(s - logsumexp) in place of s; a row that masks every key (logsumexp -inf) gets zeros, as torch's."""
    xp = get_array_module(s)
    s -= xp.where(lse == -np.inf, 0, lse)[..., None]
    return xp.exp(s, out=s)


class ScaledDotProductFlashAttentionForCpu(Function):
    """out = softmax(scale q k^T + mask) v over (B, H, L, D) inputs, one node as torch's CPU flash kernel. Saves
    query, key, value, the output and each row's logsumexp (B, H, L), not the (L, S) probabilities: backward
    recomputes them from q, k and the logsumexp (a product more, a (B, H, L, S) buffer less between passes).
    float16 and bfloat16 compute in float32 and round once."""

    node_name, array_forward = "ScaledDotProductFlashAttentionForCpuBackward0", True
    index_args = (3,)  # the mask: no edge (torch's attn_mask is not differentiable here)

    @staticmethod
    def forward(ctx, q, k, v, mask, conf):
        is_causal, scale = conf
        xp = get_array_module(q)
        wide = np.dtype(np.float64) if q.dtype == np.float64 else np.dtype(np.float32)
        s = _scores(q, k, mask, is_causal, scale, wide)
        top = s.max(axis=-1, keepdims=True)
        top[top == -np.inf] = 0  # a fully masked row: exp(-inf) = 0 everywhere, not nan
        s -= top
        p = xp.exp(s, out=s)
        total = p.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            ctx.logsumexp = (xp.log(total) + top)[..., 0]  # -inf for a fully masked row
        p *= 1 / xp.where(total == 0, 1, total)
        out = _laid_out(xp.empty_like(q), backend.matmul(p, v.astype(wide, copy=False)))  # laid out as q, as torch's
        ctx.conf, ctx.mask = conf, mask
        ctx.save_for_backward(q, k, v, out)
        return out

    @staticmethod
    def backward_arrays(ctx, g):
        """dv = p^T g, dp = g v^T, ds = p (dp - rowsum(g * out)) scale, dq = ds k, dk = ds^T q."""
        q, k, v, out = ctx.saved_arrays
        return _flash_grads(ctx, g, q, k, v, out) + (None, None)

    @staticmethod
    def backward(ctx, grad):
        """torch's backward kernel has no derivative: under create_graph its results hang off a NotImplemented
        node whose backward raises torch's error."""
        q, k, v, out = ctx.saved_tensors
        error = RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not "
                             "implemented")
        grads = GradOnly.apply(grad, lambda g: _flash_grads(ctx, g, q._array, k._array, v._array, out._array),
                               error, q, k, v)
        return (*grads, None, None)


def _flash_grads(ctx, g, q, k, v, out) -> tuple:
    """(dq, dk, dv) of the flash node, in the compute dtype and rounded to the inputs' dtype."""
    xp = get_array_module(q)
    is_causal, scale = ctx.conf
    wide = np.dtype(ctx.logsumexp.dtype)
    p = _probabilities(_scores(q, k, ctx.mask, is_causal, scale, wide), ctx.logsumexp)
    g = g.astype(wide, copy=False)
    swap = xp.swapaxes
    dv = backend.matmul(swap(p, -1, -2), g)
    ds = backend.matmul(g, swap(v.astype(wide, copy=False), -1, -2))  # dp, then ds in place
    ds -= (g * out.astype(wide, copy=False)).sum(axis=-1, keepdims=True)
    ds *= p
    ds *= wide.type(scale)
    dq = backend.matmul(ds, k.astype(wide, copy=False))
    dk = backend.matmul(swap(ds, -1, -2), q.astype(wide, copy=False))
    # torch's kernel writes each gradient into a (B, L, H, D) buffer, returned as its (B, H, L, D) transpose
    return tuple(_laid_out(swap(xp.empty((d.shape[0], d.shape[2], d.shape[1], d.shape[3]), q.dtype), 1, 2), d)
                 for d in (dq, dk, dv))


def _laid_out(target, result):
    """result (in the compute dtype) written into target (the input's dtype, a given layout): target."""
    if target.strides == result.strides and target.dtype == result.dtype:
        return result  # already the layout wanted: no copy
    target[...] = result
    return target


def flash_usable(q, k, v, mask, dropout_p: float, grad_enabled: bool) -> bool:
    """torch's CPU rule for the flash kernel (else its math composition): 4-D floating q, k, v with equal batch,
    heads and head dims, no dropout, non-empty sequences, unit last-dim strides, and a 2-D or 4-D mask that needs
    no gradient."""
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or dropout_p > 0:
        return False
    if q.shape[:2] != k.shape[:2] or q.shape[:2] != v.shape[:2] or not q.shape[-1] == k.shape[-1] == v.shape[-1]:
        return False
    if q.shape[-2] == 0 or k.shape[-2] == 0 or q.shape[-1] == 0:
        return False
    if any(t._array.strides[-1] != t._array.itemsize and t.shape[-1] > 1 for t in (q, k, v)):
        return False
    if mask is not None and (mask.ndim not in (2, 4) or (grad_enabled and mask.requires_grad)):
        return False
    return True


def flash_attention(q, k, v, mask, is_causal: bool, scale: float):
    """ScaledDotProductFlashAttentionForCpu.apply (see flash_usable for when torch takes this kernel)."""
    return ScaledDotProductFlashAttentionForCpu.apply(q, k, v, mask, (bool(is_causal), float(scale)))
