"""Regression losses: mse_loss, and the op classes of smooth_l1, huber and the threshold losses."""
from __future__ import annotations

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.engine import output_needed
from ...autograd.function import Function
from ...backend import get_array_module, row_major
from ...tensor import Tensor
from ...memory_layout import contiguous_result, elementwise_layout
from ..backward_ops import MseLossBackward
from ..scalar_ops import DivScalar, DivScalarInplace
from .bce import _reduced, _REDUCTIONS


def _target_as(t, x):
    """An integer target in a floating input's dtype (torch's kernels compute in the promoted type; float32 with
    int64 is float32): the node keeps the target as given, as torch's, so its in-place changes are caught."""
    if isinstance(t, Tensor):
        return t.to(x.dtype) if t._array.dtype.kind in "iu" and x._array.dtype.kind == "f" else t
    return t.astype(x.dtype) if t.dtype.kind in "iu" and x.dtype.kind == "f" else t


class _ThresholdLoss(Function):
    """Elementwise quadratic-then-linear loss of d = input - target, reduced. Saves input and target."""

    array_forward = True
    keeps_input_dtype = False  # huber_loss: torch's result has the input's dtype (not the promoted one)
    # huber_loss: torch writes an unreduced loss into empty_like(input), laid out by the input alone (the others
    # by input and target, as TensorIterator)
    laid_out_like_input = False

    @classmethod
    def forward(cls, ctx, x, t, reduction, beta):
        xp = get_array_module(x)
        ctx.reduction, ctx.beta = reduction, beta
        ctx.save_for_backward(x, t)
        ctx.shapes = (x.shape, t.shape)
        d = x - (t if cls.keeps_input_dtype else _target_as(t, x))  # (huber's refuses mixed dtypes in backward)
        loss = cls._loss(xp, d, beta)
        if cls.keeps_input_dtype:
            loss = loss.astype(x.dtype, copy=False)
        if reduction == "mean":
            return xp.asarray(loss.mean())
        if reduction == "sum":
            return xp.asarray(loss.sum())
        return elementwise_layout(loss, (x,) if cls.laid_out_like_input else (x, t))

    @classmethod
    def backward(cls, ctx, grad):
        x, t = ctx.saved_tensors
        # torch's backward kernel wants one dtype; it runs only for a gradient the running backward needs
        if cls.keeps_input_dtype and x.dtype != t.dtype and \
                any(output_needed(nxt) for nxt, _ in ctx.next_functions if nxt is not None):
            this, other = (x, t) if ctx.needs_input_grad[0] else (t, x)
            raise RuntimeError(f"Found dtype {other.dtype.legacy[:-len('Tensor')]} but expected "
                               f"{this.dtype.legacy[:-len('Tensor')]}")
        if not cls.keeps_input_dtype:
            t = _target_as(t, x)
        # torch's formulas: input gets loss_backward(grad, input, target), target loss_backward(grad, target,
        # input): one node each under create_graph (SmoothL1LossBackwardBackward0...), differentiable again
        gx = sum_to(cls.backward_op.apply(grad, x, t, ctx.reduction, ctx.beta), ctx.shapes[0]) \
            if ctx.needs_input_grad[0] else None
        gt = sum_to(cls.backward_op.apply(grad, t, x, ctx.reduction, ctx.beta), ctx.shapes[1]) \
            if ctx.needs_input_grad[1] else None
        return gx, gt, None, None


class _ThresholdLossBackward(Function):
    """out = the loss's slope at d = x - t times g (over numel for a mean): torch's smooth_l1_loss_backward /
    huber_loss_backward. Saves g, x and t."""

    array_forward = True

    @classmethod
    def forward(cls, ctx, g, x, t, reduction, beta):
        ctx.save_for_backward(g, x, t)
        ctx.reduction, ctx.beta = reduction, beta
        xp = get_array_module(x)
        d = x - t
        slope = cls._slope(xp, d, beta)
        out = slope * (g / d.size) if reduction == "mean" else slope * g
        # torch's kernel writes into a row-major empty_like(x): a target's gradient comes out in the target's dtype
        # from this node itself (no ToCopyBackward0 after it under create_graph), whatever dtype g and t promote to
        return contiguous_result(out.astype(x.dtype, copy=False))

    @staticmethod
    def _per_beta(second, beta):
        """The curvature's scale: 1 (huber), 1 / beta (smooth_l1)."""
        return second

    @classmethod
    def backward(cls, ctx, grad):
        g, x, t = ctx.saved_tensors
        needs = ctx.needs_input_grad
        gg = gx = gt = None
        if needs[0]:  # linear in g: the same op on grad, summed to g's shape for a reduced loss
            gg = sum_to(cls.apply(grad, x, t, ctx.reduction, ctx.beta), tuple(g.shape))
        # torch's *_loss_double_backward (the curvature inside the quadratic part) for x, and for t that computed
        # again and negated (its own nodes, a fresh version)
        gx = sum_to(cls._double_backward(ctx, grad, g, x, t), tuple(x.shape)) if needs[1] else None
        gt = sum_to(-cls._double_backward(ctx, grad, g, x, t), tuple(t.shape)) if needs[2] else None
        return gg, gx, gt, None, None

    @classmethod
    def _double_backward(cls, ctx, grad, g, x, t) -> Tensor:
        curve = cls._curvature(x, t, ctx.beta)
        if curve is None:  # torch's zeros(grad.sizes()) (smooth_l1 with beta 0)
            return Tensor._make(get_array_module(grad._array).zeros(
                np.broadcast_shapes(tuple(x.shape), tuple(t.shape)), dtype=grad._array.dtype))
        second = cls._per_beta(grad * g * curve, ctx.beta)
        if ctx.reduction == "mean":  # torch's grad_input /= numel: in place, a Scalar division (version 1)
            second = DivScalarInplace.apply(second, second.numel())  # (the broadcast numel: torch expands first)
        return second


class _SmoothL1Backward(_ThresholdLossBackward):
    """smooth_l1_loss's gradient in x: d / beta inside |d| < beta, sign(d) outside (sign(d) for beta 0)."""

    node_name = "SmoothL1LossBackwardBackward0"

    @staticmethod
    def _slope(xp, d, beta):
        if beta == 0:
            return xp.sign(d)
        return xp.where(xp.abs(d) < beta, d / beta, xp.sign(d))

    @staticmethod
    def _curvature(x, t, beta):
        if beta == 0:
            return None
        return Tensor._make(((x - t).abs()._array < beta).astype(x._array.dtype))

    @staticmethod
    def _per_beta(second, beta):
        return DivScalar.apply(second, beta)  # torch: grad * (d < beta) / beta, the Scalar division last


class _HuberBackward(_ThresholdLossBackward):
    """huber_loss's gradient in x: d inside |d| < delta, delta sign(d) outside."""

    node_name = "HuberLossBackwardBackward0"

    @staticmethod
    def _slope(xp, d, delta):
        return xp.where(xp.abs(d) < delta, d, xp.sign(d) * delta)

    @staticmethod
    def _curvature(x, t, delta):
        return Tensor._make(((x - t).abs()._array < delta).astype(x._array.dtype))


class _SmoothL1(_ThresholdLoss):
    """loss = 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere. Saves input and target."""

    node_name, backward_op = "SmoothL1LossBackward0", _SmoothL1Backward

    @staticmethod
    def _loss(xp, d, beta):
        ad = xp.abs(d)
        if beta == 0:
            return ad
        return xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)


class _Huber(_ThresholdLoss):
    """loss = 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere. Saves input and target."""

    node_name, keeps_input_dtype, backward_op = "HuberLossBackward0", True, _HuberBackward
    laid_out_like_input = True

    @staticmethod
    def _loss(xp, d, delta):
        ad = xp.abs(d)
        return xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))


class MseLoss(Function):
    """loss = (x - t)^2, reduced. Saves x and t (as torch's MseLossBackward0)."""

    node_name, array_forward = "MseLossBackward0", True

    @staticmethod
    def forward(ctx, x, t, reduction):
        xp = get_array_module(x)
        ctx.save_for_backward(x, t)  # an integer target as given (see _target_as)
        ctx.reduction = reduction
        d = x - _target_as(t, x)
        return _reduced(xp, elementwise_layout(d * d, (x, t)), reduction)

    @staticmethod
    def backward(ctx, grad):  # under create_graph: torch's MseLossBackwardBackward0 nodes, one per input
        x, t = ctx.saved_tensors
        t = _target_as(t, x)
        gx = MseLossBackward.apply(grad, x, t, ctx.reduction) if ctx.needs_input_grad[0] else None
        gt = MseLossBackward.apply(grad, t, x, ctx.reduction) if ctx.needs_input_grad[1] else None
        return gx, gt, None

    @staticmethod
    def backward_arrays(ctx, g):
        x, t = ctx.saved_arrays
        t = _target_as(t, x)
        scale = 2.0 / max(x.size, 1) if ctx.reduction == 1 else 2.0  # (an empty x: any scale, the gradient is empty)
        # torch's mse_loss_backward writes into zeros_like(input, contiguous): C order whatever x's layout
        gx = row_major(((x - t) * (g * scale)).astype(x.dtype, copy=False))
        gt = row_major(((t - x) * (g * scale)).astype(x.dtype, copy=False)) if ctx.needs_input_grad[1] else None
        return (gx if ctx.needs_input_grad[0] else None), gt, None


def mse_loss(x: Tensor, t: Tensor, reduction: str = "mean") -> Tensor:
    """torch.nn.functional.mse_loss on same-shape tensors (the caller broadcasts)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return MseLoss.apply(x, t, _REDUCTIONS[reduction])
