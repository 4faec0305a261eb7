"""More losses: gaussian_nll_loss, poisson_nll_loss, hinge_embedding_loss, multilabel_soft_margin_loss and
triplet_margin_with_distance_loss composed as torch composes them; soft_margin_loss, multi_margin_loss and
multilabel_margin_loss as single ops (ops/loss_margin.py); and their modules, with torch's checks and messages."""
from __future__ import annotations

import math
from typing import Callable

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import creation, ops
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import loss_margin as _lm
from ..ops._util import broadcast_shapes_checked, scalar_type_name
from ..ops.activation_more import logsigmoid
from ..tensor import Tensor
from .losses_more import PairwiseDistance, _legacy_reduction, _Loss, _reduce, pairwise_distance


def _constant(t: Tensor | None, fn: str, arg: str) -> None:
    """torch's refusal of a gradient for an argument its loss kernel treats as a constant."""
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
                           f"cannot have requires_grad True.\n\nPass {arg}.detach(): the loss treats it as a constant.")


def _check_reduction(reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 (log var + (input - target)**2 / var) (+ 0.5 log 2 pi), var clamped at eps without a gradient there."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * creation.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)  # homoscedastic: one variance per sample
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """exp(input) - target * input (log_input), else input - target * log(input + eps); full adds Stirling's term
    where target > 1."""
    if _amp.on and autocast_applies("poisson_nll_loss", input, target, log_input, full, size_average, eps, reduce,
                                    reduction):
        return autocast_run("poisson_nll_loss", poisson_nll_loss, input, target, log_input, full, size_average, eps,
                            reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    broadcast_shapes_checked(tuple(target.shape), tuple(input.shape))
    loss = ops.exp(input) - target * input if log_input else input - target * ops.log(input + eps)
    if full:
        stirling = target * ops.log(target) - target + 0.5 * ops.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where target is -1."""
    if _amp.on and autocast_applies("hinge_embedding_loss", input, target, margin, size_average, reduce, reduction):
        return autocast_run("hinge_embedding_loss", hinge_embedding_loss, input, target, margin, size_average, reduce,
                            reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    broadcast_shapes_checked(tuple(target.shape), tuple(input.shape))
    zeros = creation.zeros_like(input)
    margin_clamp = (margin - input).clamp_(min=0)
    output = ops.where(target != 1, margin_clamp, zeros) + ops.where(target != -1, input, zeros)
    return _reduce(output, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), one node."""
    if _amp.on and autocast_applies("soft_margin_loss", input, target, size_average, reduce, reduction):
        return autocast_run("soft_margin_loss", soft_margin_loss, input, target, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    broadcast_shapes_checked(tuple(input.shape), tuple(target.shape))
    _constant(target, "soft_margin_loss", "target")
    if target._array.dtype.kind == "b":
        -target  # torch's kernel negates the target first: a bool one raises torch's Negation error here
    return _lm.SoftMarginLoss.apply(input, target, reduction)


def _check_vector_or_matrix(input: Tensor) -> None:
    if not (input.ndim <= 1 and input.numel() > 0 or input.ndim == 2 and input.shape[1] > 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Per sample: sum over wrong classes j of w[y] max(0, margin - x[y] + x[j])**p / C."""
    if _amp.on and autocast_applies("multi_margin_loss", input, target, p, margin, weight, size_average, reduce,
                                    reduction):
        return autocast_run("multi_margin_loss", multi_margin_loss, input, target, p, margin, weight, size_average,
                            reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_vector_or_matrix(input)
    n = input.shape[0] if input.ndim == 2 else 1
    c = input.shape[-1]
    if not (target.ndim <= 1 and target.numel() == n):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    t = target._array
    if t.size and (bool((t < 0).any()) or bool((t >= c).any())):
        raise RuntimeError("target out of range")
    _constant(weight, "multi_margin_loss", "weight")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(weight._array.dtype)}")
    out_shape = tuple(target.shape) if input.ndim <= 1 else (n,)
    w = None if weight is None else weight._array
    return _lm.MultiMarginLoss.apply(input, t, p, margin, w, reduction, out_shape)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Per sample: sum over its labels j and the other classes k of max(0, 1 - (x[j] - x[k])) / C."""
    if _amp.on and autocast_applies("multilabel_margin_loss", input, target, size_average, reduce, reduction):
        return autocast_run("multilabel_margin_loss", multilabel_margin_loss, input, target, size_average, reduce,
                            reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_vector_or_matrix(input)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    t = target._array
    c = input.shape[-1]
    if t.size and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError("argument #2 'target' is out of range")
    out_shape = () if input.ndim <= 1 else (input.shape[0],)
    return _lm.MultilabelMarginLoss.apply(input, t, reduction, out_shape)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Per sample: the mean over classes of the binary cross entropy of sigmoid(input) against target."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable | None = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) for any distance function (pairwise_distance by default)."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = ops.minimum(d_neg, dist(positive, negative))
    loss = ops.clamp_min(margin + d_pos - d_neg, 0)
    return _reduce(loss, reduction)


# ---- the modules ---------------------------------------------------------------------------------------------

class GaussianNLLLoss(_Loss):
    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D instead")
        self.register_buffer("weight", weight)
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function: Callable | None = None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap, reduction=self.reduction)
