"""Margin losses that torch runs as one node each: soft_margin_loss (SoftMarginLossBackward0), multi_margin_loss
(MultiMarginLossBackward0) and multilabel_margin_loss (MultilabelMarginLossBackward0).

The per-sample losses and their slopes in the input are computed together on arrays; backward scales the saved
slopes by the incoming gradient."""
from __future__ import annotations

import numpy as np

from ...autograd.broadcast import sum_to, sum_to_array
from ...autograd.function import Function
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result
from ..backward_ops import SoftMarginLossBackward, soft_margin_grad


def _reduce_arrays(xp, loss, reduction):
    if reduction == "mean":
        return xp.asarray(loss.mean()).astype(loss.dtype)
    if reduction == "sum":
        return xp.asarray(loss.sum()).astype(loss.dtype)
    return loss


class GradOnly(Function):
    """out = compute(g): a gradient torch computes in one kernel that it does not differentiate again; under
    create_graph its node is NotImplemented, and a second backward raises torch's error. Saves nothing."""

    node_name, array_forward = "torch::autograd::NotImplemented", True

    @staticmethod
    def forward(ctx, g, compute, error, *inputs):
        # inputs: the kernel's other tensor arguments, unused here but recorded as torch records them (so the
        # node exists under create_graph whenever the loss's input requires grad)
        ctx.error = error
        return compute(g)

    @staticmethod
    def backward(ctx, *grads):  # one gradient per output (compute may return several: flash attention's three)
        raise ctx.error


def _scaled(grad: Tensor, x: Tensor, slope, reduction: str, shape: tuple, kernel: str) -> Tensor:
    """grad (a scalar for a reduced loss, else one per sample) times the saved (n, C) slopes (over n for a
    mean), in the input's shape."""
    s = slope / slope.shape[0] if reduction == "mean" else slope

    def compute(g):
        g = g.reshape(slope.shape[0], 1) if reduction == "none" else g
        # torch's kernels write into a row-major empty_like(input), whatever the input's layout
        return contiguous_result((g * s).astype(s.dtype, copy=False).reshape(shape))
    return GradOnly.apply(grad, compute, RuntimeError(f"derivative for aten::{kernel} is not implemented"), x)


class SoftMarginLoss(Function):
    """loss = log(1 + e**(-y x)), reduced. Saves x and y."""

    node_name, array_forward = "SoftMarginLossBackward0", True
    index_args = (1,)  # the target: not differentiable in torch, so no edge

    @staticmethod
    def forward(ctx, x, y, reduction):
        xp = get_array_module(x)
        ctx.save_for_backward(x, y)
        ctx.reduction = reduction
        with errstate(xp, over="ignore"):
            loss = xp.log1p(xp.exp(-y * x)).astype(x.dtype, copy=False)
        return _reduce_arrays(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):  # (the target never requires grad: soft_margin_loss refuses one, as torch)
        x, y = ctx.saved_tensors  # torch's soft_margin_loss_backward; under create_graph its own node
        return sum_to(SoftMarginLossBackward.apply(grad, x, y, ctx.reduction), tuple(x.shape)), None, None

    @staticmethod
    def backward_arrays(ctx, g):
        x, y = ctx.saved_arrays
        out = soft_margin_grad(g, x, y, ctx.reduction)
        if out.shape != x.shape:  # a target broadcast against x: the engine's sum_to, as torch's validate_outputs
            out = sum_to_array(out, tuple(x.shape))
        return out, None, None


class MultiMarginLoss(Function):
    """loss_i = sum over j != y_i of w[y_i] max(0, margin - x[y_i] + x[j])**p / C. Saves the slopes in x, and x,
    the target and the weight (torch's saved variables, for its in-place checks)."""

    half_kernel = "multi_margin_loss_cpu_kernel"
    node_name, array_forward = "MultiMarginLossBackward0", True

    @staticmethod
    def forward(ctx, x, y, p, margin, w, reduction, out_shape):
        xp = get_array_module(x)
        x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        n, c = x2.shape
        yy = y.reshape(-1).astype(np.int64)
        rows = xp.arange(n)
        z = margin - x2[rows, yy][:, None] + x2  # (n, c)
        hit = (z > 0)
        hit[rows, yy] = False
        h = xp.where(hit, z if p == 1 else z * z, xp.zeros((), x.dtype))
        dz = xp.where(hit, xp.ones((), x.dtype) if p == 1 else 2 * z, xp.zeros((), x.dtype))
        if w is not None:
            wy = w[yy][:, None].astype(x.dtype)
            h, dz = h * wy, dz * wy
        slope = dz / c
        slope[rows, yy] = -slope.sum(axis=1) + 0.0  # torch's sum starts at +0.0: no hits give +0.0, not -0.0
        ctx.slope, ctx.reduction, ctx.shape = slope, reduction, x.shape
        # as torch saves self, target and weight (an in-place change of any of them then raises), in its order
        ctx.save_for_backward(x, y, w)
        loss = (h.sum(axis=1) / c).astype(x.dtype, copy=False)
        return _reduce_arrays(xp, loss.reshape(out_shape), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, _, _ = ctx.saved_tensors
        return (_scaled(grad, x, ctx.slope, ctx.reduction, ctx.shape, "multi_margin_loss_backward"),) + (None,) * 6


class MultilabelMarginLoss(Function):
    """loss_i = sum over target labels j (up to the first -1) and non-target labels k of
    max(0, 1 - (x[j] - x[k])) / C. Saves the slopes in x, and x and the target (torch's, for its in-place
    checks)."""

    half_kernel = "multilabel_margin_loss_forward_out_frame"
    node_name, array_forward = "MultilabelMarginLossBackward0", True

    @staticmethod
    def forward(ctx, x, y, reduction, out_shape):
        xp = get_array_module(x)
        x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        n, c = x2.shape
        y2 = y.reshape(n, c).astype(np.int64)
        # the labels before each row's first -1
        active = xp.cumsum(y2 < 0, axis=1) == 0
        # onehot[i, a, k]: active label a of row i is class k (no boolean-mask indexing: the step stays replayable)
        onehot = xp.where(active, y2, -1)[:, :, None] == xp.arange(c)[None, None, :]
        is_target = onehot.any(axis=1)
        # z[i, a, k] = 1 - x[i, label a] + x[i, k] for each active label a, each non-target k
        xt = xp.take_along_axis(x2, xp.where(active, y2, 0), axis=1)  # (n, c)
        z = 1 - xt[:, :, None] + x2[:, None, :]
        mask = active[:, :, None] & ~is_target[:, None, :] & (z > 0)
        h = xp.where(mask, z, xp.zeros((), x.dtype))
        m = mask.astype(x.dtype)
        slope = m.sum(axis=1) / c  # + for each non-target k
        neg = m.sum(axis=2) / c  # - for each active label a, scattered to its class
        slope = slope - (neg[:, :, None] * onehot.astype(x.dtype)).sum(axis=1)
        ctx.slope, ctx.reduction, ctx.shape = slope, reduction, x.shape
        ctx.save_for_backward(x, y)  # as torch saves self and target (an in-place change of either then raises)
        loss = (h.sum(axis=(1, 2)) / c).astype(x.dtype, copy=False)
        return _reduce_arrays(xp, loss.reshape(out_shape), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return _scaled(grad, x, ctx.slope, ctx.reduction, ctx.shape, "multilabel_margin_loss_backward"), None, None, None
