"""Loss functions of torch.nn.functional: regression (mse, l1, smooth_l1, huber), cross-entropy and NLL, binary cross-entropy, KL divergence, Gaussian/Poisson NLL, cosine-embedding, margin-ranking and triplet losses, with torch's reduction= and legacy size_average/reduce arguments."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...ops.loss.regression import _Huber, _SmoothL1
from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...ops._util import broadcast_shapes_checked, scalar_type_name
from ...ops.loss import (binary_cross_entropy as _loss_binary_cross_entropy,
                         binary_cross_entropy_with_logits as _fused_bce_with_logits, mse_loss as _loss_mse_loss,
                         nll as _nll)
from ... import backend, creation, dtypes, ops
from ...backend import get_array_module
from ...ops import scalar_ops as _scalar
from ...tensor import Tensor
from .activation import log_softmax
from .distance import pairwise_distance


def _check_same_size(input, target, name):
    """torch.nn.functional's shape check of binary_cross_entropy ("bce") and its with-logits form ("bce_logits")."""
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})"
                         if name == "bce_logits" else
                         f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")


def _weighted(errors: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """mse_loss / l1_loss with ``weight``: errors * weight, a mean divided by the sum of the weights (as torch)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """One MseLossBackward0 node, on the two tensors broadcast to a common shape (as torch)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).pow(2), input, weight, reduction)
    if _amp.on and autocast_applies("mse_loss", input, target, reduction):
        return autocast_run("mse_loss", mse_loss, input, target, reduction=reduction)
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=2)
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
        input = input if tuple(input.shape) == shape else input.expand(*shape)
        target = target if tuple(target.shape) == shape else target.expand(*shape)
    _refuse_integer(input, target, "mse_cpu")
    input = promote_integer_target(target, input)  # (an integer input with a float target: the same promotion)
    return _loss_mse_loss(input, target, reduction)  # an integer target kept as given: the node saves it


def _refuse_integer(input: Tensor, target: Tensor, kernel: str) -> None:
    """torch's regression-loss kernels have no integer or bool version: both operands integral is refused."""
    dt = dtypes.promote_types(input._array.dtype, target._array.dtype)
    if dt.kind not in "fVc":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), input, weight, reduction)
    if _amp.on and autocast_applies("l1_loss", input, target, reduction):
        return autocast_run("l1_loss", l1_loss, input, target, reduction=reduction)
    return _reduce((input - target).abs(), reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean"):
    """-w (t log p + (1-t) log(1-p)), each log clamped at -100, as one BinaryCrossEntropyBackward0 node."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("binary_cross_entropy", input, target, weight, reduction):
        return autocast_run("binary_cross_entropy", binary_cross_entropy, input, target, weight, reduction=reduction)
    _check_same_size(input, target, "bce")
    if input.dtype == target.dtype:
        if input._array.dtype.kind not in "fV":  # torch's kernel dispatches on the dtype before its range checks
            raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for "
                                      f"'{scalar_type_name(input._array.dtype)}'")  # else _loss.binary_cross_entropy raises torch's dtype error, which comes first
        with backend.input_check():
            x, t = input._array, target._array
            bad_input = ~((x >= 0) & (x <= 1))  # NaN fails too, as torch's check
            bad_target = ~((t >= 0) & (t <= 1))
            if bool(bad_input.any()) or bool(bad_target.any()):
                # torch's kernel checks each element's input, then its target: the first bad element names which
                first = int(get_array_module(x).argmax((bad_input | bad_target).reshape(-1)))
                if bool(bad_input.reshape(-1)[first]):
                    raise RuntimeError("all elements of input should be between 0 and 1")
                raise RuntimeError("all elements of target should be between 0 and 1")
    return _loss_binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """Stable BCE on logits as one fused op: (1-t) x + (1 + (pw-1) t) * softplus(-x)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("binary_cross_entropy_with_logits", input, target, weight, reduction, pos_weight):
        return autocast_run("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, input, target, weight,
                            reduction=reduction, pos_weight=pos_weight)
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):  # torch's autograd kernel: no derivative
        if t is not None and t.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable with respect "
                               f"to argument '{name}'. This input cannot have requires_grad True.")
    _check_same_size(input, target, "bce_logits")
    if target._array.dtype.kind == "b":  # torch's kernel computes 1 - target first
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if target._array.dtype.kind in "iu" and input._array.dtype.kind == "f":  # it writes into the target's dtype
        raise RuntimeError(f"result type {scalar_type_name(input._array.dtype)} can't be cast to the desired output "
                           f"type {scalar_type_name(target._array.dtype)}")
    return _fused_bce_with_logits(input, target, weight, pos_weight, reduction)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the class dim, then nll_loss (class indices) or -sum(target * logp) (probabilities).

    The compositions are ATen's (cross_entropy_loss and its label-smoothing and probability-target forms),
    so the graph's nodes and their order are torch's.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("cross_entropy", input, target, weight, ignore_index, reduction, label_smoothing):
        return autocast_run("cross_entropy", cross_entropy, input, target, weight, ignore_index=ignore_index,
                            reduction=reduction, label_smoothing=label_smoothing)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    class_dim = 0 if input.ndim == 1 else 1  # torch's: 1 also for a 0-d input (which then fails on it)
    probabilities = tuple(target.shape) == tuple(input.shape)  # torch tells them from indices by the shape
    if probabilities:  # checked before anything is computed, as torch's cross_entropy_loss
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               + target.dtype.legacy[:-len("Tensor")])
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    logp = log_softmax(input, dim=class_dim)
    n_classes = input.shape[class_dim]
    w = None
    if weight is not None:  # weight viewed to broadcast along the class dim
        w = weight.view((1, -1) + (1,) * (input.ndim - 2)) if input.ndim > 1 else weight
    if probabilities:
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target if w is None else logp * target * w
        if reduction == "none":
            return -prod.sum(dim=class_dim)
        if reduction == "sum":
            return -prod.sum()
        return _scalar.DivScalar.apply(-prod.sum(), input.numel() // n_classes)
    nll = _nll.nll_loss(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0:
        return nll
    ignore_mask = target == ignore_index
    smooth = -(logp if w is None else logp * w).sum(dim=class_dim)
    smooth.masked_fill_(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / (~ignore_mask).sum()
        else:
            smooth = smooth.sum() / weight.gather(0, target[~ignore_mask].flatten()).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (_scalar.MulScalar.apply(nll, 1 - label_smoothing)
            + _scalar.MulScalar.apply(smooth, label_smoothing / n_classes))


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """torch's F.nll_loss signature (the legacy size_average/reduce pair included) over the nll_loss op."""
    return _nll.nll_loss(input, target, weight, ignore_index, _legacy_reduction(size_average, reduce, reduction))


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
    # torch's C++ computes an operator's right operand first (its node is the older one, so in backward the left
    # operand's gradient arrives first); C++'s Scalar products are the Scalar overloads (MulBackward1)
    if log_input:
        product = target * input
        loss = ops.exp(input) - product
    else:
        shifted = _scalar.AddScalar.apply(input, eps) if input.is_floating_point() else input + eps  # (promotes)
        loss = input - target * ops.log(shifted)
    if full:
        right = _scalar.MulScalar.apply(ops.log(_scalar.MulScalar.apply(target, 2 * math.pi)), 0.5)
        stirling = target * ops.log(target) - target + right
        loss += stirling.masked_fill(target <= 1, 0)  # in place, as torch's
    return _reduce(loss, reduction)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction the deprecated size_average/reduce pair asks for (with torch's warning), else ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


def promote_integer_target(input: Tensor, target: Tensor) -> Tensor:
    """An integer target cast to a floating input's dtype (or the other way round, arguments swapped): torch's
    loss kernels compute in the promoted type, and float32 with int64 promotes to float32 (NumPy's float64 would
    change the loss's dtype)."""
    if target._array.dtype.kind in "iu" and input._array.dtype.kind == "f":
        return target.to(input.dtype)
    return target


def _broadcast_pair(input: Tensor, target: Tensor, name: str):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", stacklevel=3)
    return input, target


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    if _amp.on and autocast_applies("smooth_l1_loss", input, target, size_average, reduce, reduction, beta):
        return autocast_run("smooth_l1_loss", smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _refuse_integer(input, target, "smooth_l1_cpu")
    input = promote_integer_target(target, input)
    input, target = _broadcast_pair(input, target, "smooth_l1_loss")  # an integer target: the node saves it
    return _SmoothL1.apply(input, target, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight=None) -> Tensor:
    if _amp.on and autocast_applies("huber_loss", input, target, reduction, delta, weight):
        return autocast_run("huber_loss", huber_loss, input, target, reduction, delta, weight)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        raise NotImplementedError("huber_loss(weight=...) is not supported")
    _refuse_integer(input, target, "huber_cpu")
    input, target = _broadcast_pair(input, target, "huber_loss")
    return _Huber.apply(input, target, reduction, float(delta))


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """KL(target || exp(input)) pointwise: target * (log target - input) (0 where target is 0)."""
    if _amp.on and autocast_applies("kl_div", input, target, size_average, reduce, reduction, log_target):
        return autocast_run("kl_div", kl_div, input, target, size_average, reduce, reduction, log_target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if input._array.dtype.kind in "iub" or target._array.dtype.kind in "iub":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # torch's xlogy(target, target) - target * input (0 * log 0 is 0), its product made first (so its backward
        # runs after xlogy's, and an in-place error names the tensor torch's does)
        product = target * input
        loss = ops.xlogy(target, target) - product
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1; max(0, cos(x1, x2) - margin) where target is -1."""
    if _amp.on and autocast_applies("cosine_embedding_loss", input1, input2, target, margin, size_average, reduce,
                                    reduction):
        return autocast_run("cosine_embedding_loss", cosine_embedding_loss, input1, input2, target, margin,
                            size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.ndim > 1:  # torch's checks: a 1-d target goes with matrices, a 0-d one with vectors
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != target.ndim + 1 or input2.ndim != target.ndim + 1:
        raise RuntimeError(f"{target.ndim}D target tensor expects {target.ndim + 1}D input tensors, but found inputs "
                           f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12  # torch's EPSILON in cosine_embedding_loss
    prod = (input1 * input2).sum(dim=-1)
    mag1 = (input1 * input1).sum(dim=-1) + eps
    mag2 = (input2 * input2).sum(dim=-1) + eps
    cos = prod / (mag1 * mag2).sqrt()
    pos = 1 - cos
    neg = (cos - margin).clamp(min=0)
    loss = ops.where(target == 1, pos, 0.0) + ops.where(target == -1, neg, 0.0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (x1 - x2) + margin)."""
    if _amp.on and autocast_applies("margin_ranking_loss", input1, input2, target, margin, size_average, reduce,
                                    reduction):
        return autocast_run("margin_ranking_loss", margin_ranking_loss, input1, input2, target, margin, size_average,
                            reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min_(0), reduction)  # torch's ClampMinBackward0


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm pairwise distance."""
    if _amp.on and autocast_applies("triplet_margin_loss", anchor, positive, negative, margin, p, eps, swap,
                                    size_average, reduce, reduction):
        return autocast_run("triplet_margin_loss", triplet_margin_loss, anchor, positive, negative, margin, p, eps,
                            swap, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ops.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    # torch's C++: at::clamp_min(margin + dist_pos - dist_neg, 0), its Scalar add (AddBackward1)
    return _reduce(ops.clamp_min(_scalar.AddScalar.apply(d_pos, margin) - d_neg, 0), reduction)
