"""Binary cross-entropy, on probabilities and on logits."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import elementwise_layout
from .._util import scalar_type_name
from ..scalar_ops import AddScalar, DivScalar


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
        if reduction in (1, 2):
            return _reduced(xp, loss, reduction)
        # torch's (1 - target).mul_(input)...: laid out by the target alone
        return elementwise_layout(loss.astype(x.dtype, copy=False), (t,))

    @staticmethod
    def backward(ctx, grad):
        x, t, weight, pos_weight = ctx.saved_tensors
        gx = None
        if ctx.needs_input_grad[0]:  # torch's binary_cross_entropy_with_logits_backward, op for op
            if pos_weight is not None:
                pt = pos_weight * t
                gx = (AddScalar.apply(pt, 1) - t) * x.sigmoid() - pt
            else:
                gx = x.sigmoid() - t
            gx = gx * grad
            if weight is not None:
                gx = gx * weight
            if ctx.reduction == 1:
                gx = DivScalar.apply(gx, ctx.n)
        gt = None
        if ctx.needs_input_grad[1]:  # torch's target backward: -x (+0.0 where x = -0.0), times grad, weight, / n
            if pos_weight is not None:
                sp = (-x).clamp(min=0) + ((-x.abs()).exp() + 1).log()
                dt = -x + (pos_weight - 1) * sp
            else:
                dt = -x
            gt = dt * grad
            if weight is not None:
                gt = gt * weight
            if ctx.reduction == 1:
                gt = DivScalar.apply(gt, ctx.n)
        return gx, gt, None, None, None

    @staticmethod
    def backward_arrays(ctx, g):
        if ctx.needs_input_grad[1]:  # rare: the target needs a gradient; use the Tensor formulas
            return tuple(None if t is None else t._array for t in BCEWithLogits.backward(ctx, Tensor._make(g)))
        x, t, weight, pos_weight = ctx.saved_arrays
        xp = get_array_module(x)
        e = xp.exp(-xp.abs(x))
        s = xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
        if pos_weight is not None:  # backward's formulas in the same order (torch's), on arrays
            pt = pos_weight * t
            dx = (pt + 1 - t) * s - pt
        else:
            dx = s - t
        gx = dx * g
        if weight is not None:
            gx = gx * weight
        if ctx.reduction == 1:
            gx = gx / ctx.n
        return gx.astype(x.dtype, copy=False) if ctx.needs_input_grad[0] else None, None, None, None, None


def binary_cross_entropy_with_logits(x: Tensor, t: Tensor, weight=None, pos_weight=None, reduction: str = "mean"):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return BCEWithLogits.apply(x, t, weight, pos_weight, _REDUCTIONS[reduction])


def _reduced(xp, loss, reduction: int):
    """loss reduced as torch's Reduction enum: 0 none, 1 mean, 2 sum (0-d arrays, never numpy scalars)."""
    if reduction == 1:
        if not loss.size:  # torch's mean of nothing is NaN, without NumPy's "Mean of empty slice" warning
            return xp.full((), xp.nan, dtype=loss.dtype)
        return xp.asarray(loss.mean(dtype=loss.dtype))
    if reduction == 2:
        return xp.asarray(loss.sum(dtype=loss.dtype))
    return loss


_BCE_EPS = float(np.float32(1e-12))  # torch's EPSILON in binary_cross_entropy_backward: a float constant


class BinaryCrossEntropy(Function):
    """loss = -w (t log p + (1 - t) log(1 - p)), each log clamped at -100, reduced. Saves p, t and w.

    The weight is an input without an edge: torch's node has edges to p and t only.
    """

    node_name, array_forward, index_args = "BinaryCrossEntropyBackward0", True, (2,)

    @staticmethod
    def forward(ctx, p, t, weight, reduction):
        xp = get_array_module(p)
        with errstate(xp, divide="ignore"):
            log_p = xp.maximum(xp.log(p), -100)
            log_1mp = xp.maximum(xp.log1p(-p), -100)
        # torch's kernel, op for op: (t - 1) log1p(-p) - t log p (-(t log p + ...) gave -0.0 for a zero loss)
        loss = (t - 1) * log_1mp - t * log_p
        if weight is not None:
            loss = loss * weight.astype(p.dtype, copy=False)
        ctx.save_for_backward(p, t, weight)  # the weight for its version, as torch's
        ctx.reduction = reduction
        # an unreduced loss is written into torch's empty_like(input): laid out by the input alone
        return _reduced(xp, elementwise_layout(loss.astype(p.dtype, copy=False), (p,)), reduction)

    @staticmethod
    def backward(ctx, grad):
        p, t, w = ctx.saved_tensors
        w = None if w is None else Tensor._make(w._array.astype(p._array.dtype, copy=False))
        gp = gt = None
        # torch's order: the kernel's value times the weight, then divided by n for the mean; both gradients are
        # laid out like p (torch writes them into empty_like(input) and logit(input)), so p's terms come first
        if ctx.needs_input_grad[0]:  # grad (p - t) / max(p (1 - p), eps), as torch
            gp = (p - t) * grad / ((1 - p) * p).clamp(min=_BCE_EPS)
            gp = gp * w if w is not None else gp
            gp = gp / p.numel() if ctx.reduction == 1 else gp
        if ctx.needs_input_grad[1]:  # -logit(p), unclamped, as torch's target backward
            gt = ((1 - p).log() - p.log()) * grad
            gt = gt * w if w is not None else gt
            gt = gt / p.numel() if ctx.reduction == 1 else gt
        return gp, gt, None, None

    @staticmethod
    def backward_arrays(ctx, g):
        if ctx.needs_input_grad[1]:  # rare: the target needs a gradient; use the Tensor formulas
            return tuple(None if r is None else r._array for r in BinaryCrossEntropy.backward(ctx, Tensor._make(g)))
        p, t, w = ctx.saved_arrays
        xp = get_array_module(p)
        gp = g * (p - t) / xp.maximum((1 - p) * p, _BCE_EPS)
        if w is not None:
            gp = gp * w.astype(p.dtype, copy=False)
        if ctx.reduction == 1:
            gp = gp / p.size
        return elementwise_layout(gp.astype(p.dtype, copy=False), (p,)), None, None, None


def binary_cross_entropy(p: Tensor, t: Tensor, weight: Tensor | None = None, reduction: str = "mean") -> Tensor:
    """torch.nn.functional.binary_cross_entropy on same-shape p and t (weight broadcasts to them)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if t.dtype != p.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name(t._array.dtype)} but expected "
                           f"{scalar_type_name(p._array.dtype)}")
    if weight is not None:
        if weight.requires_grad and is_grad_enabled():
            raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.\n\nThe weights are constants "
                               "of the loss: pass weight.detach().")
        if tuple(weight.shape) != tuple(p.shape):  # torch's weight.expand(size): a view, saved with that shape
            weight = weight.expand(*p.shape)
    return BinaryCrossEntropy.apply(p, t, weight, _REDUCTIONS[reduction])
