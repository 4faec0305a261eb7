"""Fused losses: binary cross-entropy with logits in one op (stable forward, closed-form gradient)."""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


class BCEWithLogits(Function):
    """loss = w * ((1 - t) x + (1 + (pw - 1) t) softplus(-x)), reduced. Saves x, t (and w, pw)."""

    node_name, array_forward = "BinaryCrossEntropyWithLogitsBackward0", True

    @staticmethod
    def forward(ctx, x, t, weight, pos_weight, reduction):
        xp = get_array_module(x)
        # softplus(-x) = max(-x, 0) + log1p(exp(-|x|)): no overflow for any x
        sp = xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x)))
        if pos_weight is not None:
            loss = (1 - t) * x + (1 + (pos_weight - 1) * t) * sp
        else:
            loss = (1 - t) * x + sp
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(x, t, weight, pos_weight)
        ctx.reduction, ctx.n = reduction, x.size
        if reduction == 1:
            return xp.asarray(loss.mean(dtype=loss.dtype))
        if reduction == 2:
            return xp.asarray(loss.sum(dtype=loss.dtype))
        return loss.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, t, weight, pos_weight = ctx.saved_tensors
        s = x.sigmoid()
        if pos_weight is not None:
            dx = (1 - t) - (1 + (pos_weight - 1) * t) * (1 - s)
        else:
            dx = s - t
        if weight is not None:
            dx = dx * weight
        if ctx.reduction == 1:
            grad = grad / ctx.n
        gx = grad * dx if ctx.needs_input_grad[0] else None
        gt = None
        if ctx.needs_input_grad[1]:
            sp = (-x).clamp(min=0) + ((-x.abs()).exp() + 1).log()
            dt = -x + ((pos_weight - 1) * sp if pos_weight is not None else 0)
            gt = grad * (dt * weight if weight is not None else dt)
        return gx, gt, None, None, None

    @staticmethod
    def backward_arrays(ctx, g):
        if ctx.needs_input_grad[1]:  # rare: the target needs a gradient; use the Tensor formulas
            return tuple(None if t is None else t._array for t in BCEWithLogits.backward(ctx, Tensor._make(g)))
        x, t, weight, pos_weight = ctx.saved_arrays
        xp = get_array_module(x)
        e = xp.exp(-xp.abs(x))
        s = xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
        dx = (1 - t) - (1 + (pos_weight - 1) * t) * (1 - s) if pos_weight is not None else s - t
        if weight is not None:
            dx = dx * weight
        if ctx.reduction == 1:
            g = g / ctx.n
        return g * dx if ctx.needs_input_grad[0] else None, None, None, None, None


def binary_cross_entropy_with_logits(x: Tensor, t: Tensor, weight=None, pos_weight=None, reduction: str = "mean"):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return BCEWithLogits.apply(x, t, weight, pos_weight, _REDUCTIONS[reduction])
