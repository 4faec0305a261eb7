"""More loss functions: smooth L1, Huber, KL divergence, cosine similarity/embedding, margin ranking, triplet.

smooth_l1_loss and huber_loss are single ops (as torch's SmoothL1LossBackward0/HuberLossBackward0); the
others are compositions of ops, as in torch's own Python/ATen code, so their graphs look like torch's.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import ops
from ..autograd.engine import output_needed
from ..autograd.function import Function
from ..backend import get_array_module
from ..ops._util import sum_to
from ..ops.scalar_ops import DivScalar
from ..tensor import Tensor
from .module import Module


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
    """An integer target cast to a floating input's dtype: torch's loss kernels compute in the promoted type, and
    float32 with int64 promotes to float32 (NumPy's float64 would change the loss's dtype)."""
    if target._array.dtype.kind in "iu" and input._array.dtype.kind == "f":
        return target.to(input.dtype)
    return target


def _broadcast_pair(input: Tensor, target: Tensor, name: str):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", stacklevel=3)
    return input, target


class _ThresholdLoss(Function):
    """Elementwise quadratic-then-linear loss of d = input - target, reduced. Saves input and target."""

    array_forward = True
    keeps_input_dtype = False  # huber_loss: torch's result has the input's dtype (not the promoted one)

    @classmethod
    def forward(cls, ctx, x, t, reduction, beta):
        xp = get_array_module(x)
        ctx.reduction, ctx.beta = reduction, beta
        ctx.save_for_backward(x, t)
        ctx.shapes = (x.shape, t.shape)
        d = x - t
        loss = cls._loss(xp, d, beta)
        if cls.keeps_input_dtype:
            loss = loss.astype(x.dtype, copy=False)
        if reduction == "mean":
            return xp.asarray(loss.mean())
        if reduction == "sum":
            return xp.asarray(loss.sum())
        return loss

    @classmethod
    def backward(cls, ctx, grad):
        x, t = ctx.saved_tensors
        # torch's backward kernel wants one dtype; it runs only for a gradient the running backward needs
        if cls.keeps_input_dtype and x.dtype != t.dtype and \
                any(output_needed(nxt) for nxt, _ in ctx.next_functions if nxt is not None):
            this, other = (x, t) if ctx.needs_input_grad[0] else (t, x)
            raise RuntimeError(f"Found dtype {other.dtype.legacy[:-len('Tensor')]} but expected "
                               f"{this.dtype.legacy[:-len('Tensor')]}")
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
        return slope * (g / d.size) if reduction == "mean" else slope * g

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
        if needs[1] or needs[2]:  # torch's *_loss_double_backward: the curvature inside the quadratic part
            curve = cls._curvature(x, t, ctx.beta)
            second = None if curve is None else cls._per_beta(grad * g * curve, ctx.beta)
            if second is not None and ctx.reduction == "mean":  # torch's grad_input /= numel: a Scalar division
                second = DivScalar.apply(second, second.numel())
            if second is None:
                second = Tensor._make(get_array_module(grad._array).zeros(
                    np.broadcast_shapes(tuple(x.shape), tuple(t.shape)), dtype=grad._array.dtype))
            gx = sum_to(second, tuple(x.shape)) if needs[1] else None
            gt = sum_to(-second, tuple(t.shape)) if needs[2] else None
        return gg, gx, gt, None, None


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

    @staticmethod
    def _loss(xp, d, delta):
        ad = xp.abs(d)
        return xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))


def _check_reduction(reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    if _amp.on and autocast_applies("smooth_l1_loss", input, target, size_average, reduce, reduction, beta):
        return autocast_run("smooth_l1_loss", smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _broadcast_pair(input, promote_integer_target(input, target), "smooth_l1_loss")
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
        # xlogy: 0 * log 0 is 0 (torch's kl_div uses xlogy(target, target))
        with_log = ops.where(target > 0, target, 1.0).log()
        loss = target * with_log - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim, as torch's ATen formula."""
    if _amp.on and autocast_applies("cosine_similarity", x1, x2, dim, eps):
        return autocast_run("cosine_similarity", cosine_similarity, x1, x2, dim, eps)
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))  # torch broadcasts before taking norms
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(dim=dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim=dim)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1; max(0, cos(x1, x2) - margin) where target is -1."""
    if _amp.on and autocast_applies("cosine_embedding_loss", input1, input2, target, margin, size_average, reduce,
                                    reduction):
        return autocast_run("cosine_embedding_loss", cosine_embedding_loss, input1, input2, target, margin,
                            size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
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
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """|x1 - x2 + eps|_p over the last dim."""
    return ops.norm(x1 - x2 + eps, p=p, dim=-1, keepdim=keepdim)


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
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


# ---- the loss modules ------------------------------------------------------------------------------

class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, self.margin, reduction=self.reduction)


class MarginRankingLoss(CosineEmbeddingLoss):
    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps, self.swap,
                                   reduction=self.reduction)
