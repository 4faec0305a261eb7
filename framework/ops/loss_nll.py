"""The negative log-likelihood loss as one op (torch's NllLossBackward0 / NllLoss2DBackward0)."""
from __future__ import annotations

from .. import backend
from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _class_mask(xp, safe_t, valid, n_classes: int, ndim: int):
    """Boolean (N, C, *rest) array (or (C,) for a 1-D input): True at each non-ignored position's target class."""
    if ndim == 1:
        return (xp.arange(n_classes) == safe_t) & valid
    classes = xp.arange(n_classes).reshape((1, n_classes) + (1,) * (ndim - 2))
    return (classes == xp.expand_dims(safe_t, 1)) & xp.expand_dims(valid, 1)


class _NllLoss(Function):
    """loss[n] = -w[t[n]] x[n, t[n]] (0 where t[n] is ignore_index), summed, or divided by the sum of
    those weights for 'mean'. Target and weight are raw arrays: torch's node has one edge, to x.
    Saves x (for its version) and the per-position weights."""

    array_forward = True

    @staticmethod
    def forward(ctx, x, t, weight, ignore_index, reduction):
        xp = get_array_module(x)
        valid = t != ignore_index
        safe_t = xp.where(valid, t, 0)
        w_t = valid.astype(x.dtype) if weight is None else xp.where(valid, weight[safe_t], 0).astype(x.dtype)
        if x.ndim == 1:
            picked = x[safe_t]
        else:
            picked = xp.take_along_axis(x, xp.expand_dims(safe_t, 1), axis=1).squeeze(1)
        loss = -(picked * w_t)
        ctx.save_for_backward(x)
        ctx.safe_t, ctx.valid, ctx.w_t, ctx.reduction = safe_t, valid, w_t, reduction
        if reduction == 0:
            return loss
        total = loss.sum(dtype=x.dtype)
        if reduction == 1:
            ctx.total_weight = w_t.sum(dtype=x.dtype)
            with backend.errstate(xp, invalid="ignore", divide="ignore"):  # all targets ignored: nan, as torch
                return xp.asarray(total / ctx.total_weight)
        return xp.asarray(total)

    @classmethod
    def _coefficients(cls, ctx, xp, x):
        """d loss / d x for a unit output gradient: -w_t at each target class, 0 elsewhere."""
        coef = -ctx.w_t
        if ctx.reduction == 1:
            with backend.errstate(xp, invalid="ignore", divide="ignore"):  # all ignored: masked out below
                coef = coef / ctx.total_weight
        mask = _class_mask(xp, ctx.safe_t, ctx.valid, x.shape[0] if x.ndim == 1 else x.shape[1], x.ndim)
        return mask, (coef if x.ndim == 1 else xp.expand_dims(coef, 1))

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        xp = get_array_module(x._array)
        mask, coef = cls._coefficients(ctx, xp, x._array)
        if ctx.reduction == 0 and x.ndim > 1:
            grad = grad.unsqueeze(1)
        # linear in grad, so a create_graph backward can differentiate it again
        return grad * Tensor._make(xp.where(mask, coef, 0).astype(x._array.dtype)), None, None, None, None

    @classmethod
    def backward_arrays(cls, ctx, g):
        (x,) = ctx.saved_arrays
        xp = get_array_module(x)
        mask, coef = cls._coefficients(ctx, xp, x)
        if ctx.reduction == 0 and x.ndim > 1:
            g = xp.expand_dims(g, 1)
        return xp.where(mask, coef * g, 0).astype(x.dtype, copy=False), None, None, None, None


class NllLoss(_NllLoss):
    node_name = "NllLossBackward0"


class NllLoss2d(_NllLoss):
    node_name = "NllLoss2DBackward0"


def _check_target(input: Tensor, target: Tensor) -> None:
    """torch's checks on the target, in its order: batch sizes (nll_loss_nd), then the kernel's shape and dtype
    (int64 or uint8 targets; the spatial kernel, for inputs of 3 or more dims, takes int64 only)."""
    if input.ndim > 1 and input.shape[0] != (target.shape[0] if target.ndim else 1):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    name = target.dtype.legacy[:-len("Tensor")]  # torch's ScalarType name: Long, Byte, Float...
    if name not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if input.ndim > 2 and name == "Byte":
        raise RuntimeError("expected scalar type Long but found Byte")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """torch.nn.functional.nll_loss: (C,), (N, C) or (N, C, d1, ...) log-probabilities, integer targets."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_target(input, target)
    t = target._array
    n_classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    xp = get_array_module(t)
    valid = t != ignore_index
    with backend.input_check():
        bad = valid & ((t < 0) | (t >= n_classes))
        if bool(bad.any()):
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    w = None if weight is None else weight._array
    red = _REDUCTIONS[reduction]
    if input.ndim <= 2:
        return NllLoss.apply(input, t, w, ignore_index, red)
    if input.ndim == 4:
        return NllLoss2d.apply(input, t, w, ignore_index, red)
    # 3-D or > 4-D: torch views input as (N, C, 1, -1) and target as (N, 1, -1) and uses the 2-D loss
    n, c = input.shape[0], input.shape[1]
    x4 = input.contiguous().view(n, c, 1, -1)
    out = NllLoss2d.apply(x4, xp.ascontiguousarray(t).reshape(n, 1, -1), w, ignore_index, red)
    return out.view((n,) + tuple(input.shape[2:])) if red == 0 else out
