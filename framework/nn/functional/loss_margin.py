"""Margin losses of torch.nn.functional: hinge-embedding, soft-margin, multi-margin, multilabel margin and soft-margin, triplet with a distance function."""
from __future__ import annotations

from typing import Callable

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...ops._util import broadcast_shapes_checked, read_history, scalar_type_name
from ...ops.activation import logsigmoid
from ...ops.loss import margin as _lm
from ... import creation, ops
from ...tensor import Tensor
from .distance import pairwise_distance
from .loss import _check_reduction, _constant, _legacy_reduction, _reduce


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
    # torch's autograd kernel refuses a weight that requires grad, then reads the input's history (a stale view's
    # error), before the kernel's shape checks
    _constant(weight, "multi_margin_loss", "weight")
    read_history(input)
    _check_vector_or_matrix(input)
    n = input.shape[0] if input.ndim == 2 else 1
    c = input.shape[-1] if input.ndim else 1  # a 0-d input is one sample of one class, as torch's
    if not (target.ndim <= 1 and target.numel() == n):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    t = target._array
    if t.size and (bool((t < 0).any()) or bool((t >= c).any())):
        raise RuntimeError("target out of range")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(weight._array.dtype)}")
    out_shape = tuple(target.shape) if input.ndim <= 1 else (n,)
    # the target and weight as tensors: the node saves them, and their in-place changes raise, as torch's
    return _lm.MultiMarginLoss.apply(input, target, p, margin, weight, reduction, out_shape)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Per sample: sum over its labels j and the other classes k of max(0, 1 - (x[j] - x[k])) / C."""
    if _amp.on and autocast_applies("multilabel_margin_loss", input, target, size_average, reduce, reduction):
        return autocast_run("multilabel_margin_loss", multilabel_margin_loss, input, target, size_average, reduce,
                            reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    read_history(input)  # torch's autograd kernel reads it before the kernel's shape checks
    _check_vector_or_matrix(input)
    c = input.shape[-1] if input.ndim else 1  # a 0-d input is one sample of one class, as torch's
    # torch's: a 0-d or 1-d input takes any target of c elements with at most one dim, a matrix its own shape
    if not (target.ndim <= 1 and target.numel() == c if input.ndim <= 1 else target.shape == input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    t = target._array
    if t.size and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError("argument #2 'target' is out of range")
    out_shape = () if input.ndim <= 1 else (input.shape[0],)
    return _lm.MultilabelMarginLoss.apply(input, target, reduction, out_shape)  # target saved, as torch's


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
