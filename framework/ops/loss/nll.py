"""The negative log-likelihood loss as one op (torch's NllLossBackward0 / NllLoss2DBackward0)."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _class_mask(xp, safe_t, valid, n_classes: int, ndim: int):
    """Boolean (N, C, *rest) array (or (C,) for a 1-D input): True at each non-ignored position's target class."""
    if ndim == 1:
        return (xp.arange(n_classes) == safe_t) & valid
    classes = xp.arange(n_classes).reshape((1, n_classes) + (1,) * (ndim - 2))
    return (classes == xp.expand_dims(safe_t, 1)) & xp.expand_dims(valid, 1)


class _NllLoss(Function):
    """loss[n] = -w[t[n]] x[n, t[n]] (0 where t[n] is ignore_index), summed, or divided by the sum of
    those weights for 'mean'. Target and weight get no edge: torch's node has one, to x.
    Saves x, the target and the weight (for their versions: torch saves all three) and the per-position weights."""

    array_forward, index_args = True, (1, 2)

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
        ctx.save_for_backward(x, t, weight)
        ctx.safe_t, ctx.valid, ctx.w_t, ctx.reduction = safe_t, valid, w_t, reduction
        ctx.args = (t, weight, ignore_index, reduction)
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
        x, _, _ = ctx.saved_tensors
        # one node under create_graph (torch's NllLossBackwardBackward0), differentiable again
        return cls.backward_op.apply(grad, x, ctx), None, None, None, None

    @classmethod
    def backward_arrays(cls, ctx, g, x=None):
        if x is None:
            x, _, _ = ctx.saved_arrays
        xp = get_array_module(x)
        if x.ndim == 2:  # (N, C): zeros with one value written per row, no (N, C) mask
            coef = -ctx.w_t
            if ctx.reduction == 1:
                with backend.errstate(xp, invalid="ignore", divide="ignore"):  # all ignored: masked out below
                    coef = coef / ctx.total_weight
            out = xp.zeros(x.shape, dtype=x.dtype)
            # (a function call, not a setitem: a compiled replay runs it in place too)
            xp.put_along_axis(out, ctx.safe_t[:, None], xp.where(ctx.valid, coef * g, 0)[:, None], axis=1)
            return out, None, None, None, None
        mask, coef = cls._coefficients(ctx, xp, x)
        if ctx.reduction == 0 and x.ndim > 1:
            g = xp.expand_dims(g, 1)
        return xp.where(mask, coef * g, 0).astype(x.dtype, copy=False), None, None, None, None


class _NllLossBackward(Function):
    """out = the loss's gradient in x for an incoming gradient g (torch's nll_loss_backward): -w[t] g (over the
    total weight for 'mean') at each target class, 0 elsewhere. Linear in g, whose gradient is the loss of the
    incoming gradient again; constant in x (a zero gradient). Saves the loss's target and weight, not x."""

    array_forward = True
    loss_op = None

    @staticmethod
    def forward(ctx, g, x, loss_ctx):
        ctx.loss_args, ctx.x_meta = loss_ctx.args, (x.shape, x.dtype)
        return _NllLoss.backward_arrays(loss_ctx, g, x)[0]

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        gg = ctx._forward_cls.loss_op.apply(grad, *ctx.loss_args) if needs[0] else None
        gx = Tensor._make(get_array_module(grad._array).zeros(*ctx.x_meta)) if needs[1] else None
        return gg, gx, None


class NllLoss(_NllLoss):
    node_name = "NllLossBackward0"


class NllLoss2d(_NllLoss):
    node_name = "NllLoss2DBackward0"


NllLoss.backward_op = type("NllLossBackward", (_NllLossBackward,), {
    "node_name": "NllLossBackwardBackward0", "loss_op": NllLoss, "__doc__": _NllLossBackward.__doc__})


NllLoss2d.backward_op = type("NllLoss2dBackward", (_NllLossBackward,), {
    "node_name": "NllLoss2DBackwardBackward0", "loss_op": NllLoss2d, "__doc__": _NllLossBackward.__doc__})


def _check_target(input: Tensor, target: Tensor) -> None:
    """torch's checks on the target, in its order: batch sizes (nll_loss_nd), then the kernel's shape and dtype
    (int64 or uint8 targets; the spatial kernel, for inputs of 3 or more dims, takes int64 only)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
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
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """torch.nn.functional.nll_loss: (C,), (N, C) or (N, C, d1, ...) log-probabilities, integer targets."""
    if _amp.on and autocast_applies("nll_loss", input, target, weight, ignore_index, reduction):
        return autocast_run("nll_loss", nll_loss, input, target, weight, ignore_index, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_target(input, target)
    t = target._array
    n_classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    valid = t != ignore_index
    with backend.input_check():
        bad = valid & ((t < 0) | (t >= n_classes))
        if bool(bad.any()):
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    if weight is not None and weight.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.\n\nThe class weights are constants of the "
                           "loss: pass weight.detach().")
    red = _REDUCTIONS[reduction]
    if input.ndim <= 2:
        return NllLoss.apply(input, target, weight, ignore_index, red)
    if input.ndim == 4:
        return NllLoss2d.apply(input, target, weight, ignore_index, red)
    # 3-D or > 4-D: torch views input as (N, C, 1, -1) and target as (N, 1, -1) and uses the 2-D loss
    n, c = input.shape[0], input.shape[1]
    x4 = input.contiguous().view(n, c, 1, -1)
    out = NllLoss2d.apply(x4, target.contiguous().view(n, 1, -1), weight, ignore_index, red)
    return out.view((n,) + tuple(input.shape[2:])) if red == 0 else out
