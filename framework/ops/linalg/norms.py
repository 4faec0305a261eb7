"""Norms and distances: vector norm (torch.norm), dist, cdist, renorm."""
from __future__ import annotations

import math

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ... import backend
from ...backend import errstate, get_array_module
from ...settings import warn_once
from ...tensor import Tensor
from ..pointwise.unary_inplace import _inplace
from ...memory_layout import contiguous_result
from .._util import normalize_dims, refuse_half_kernel, scalar_type_name, wrap_dim
from ..pointwise import where_op
from .checks import check_floating, check_same_dtype


class VectorNorm(Function):
    """out = (sum |a|^p)^(1/p) over dims (p = inf: max |a|). Saves a and out."""

    node_name, array_forward = "LinalgVectorNormBackward0", True

    @staticmethod
    def forward(ctx, a, p, dims, keepdim):
        xp = get_array_module(a)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        if p == 2:  # no |a| pass: a * a is the same (clip_grad_norm_'s norm of every gradient)
            out = xp.sqrt((a * a).sum(axis=dims, keepdims=keepdim))
        elif p == 0:
            out = (a != 0).sum(axis=dims, keepdims=keepdim).astype(a.dtype)
        else:
            absa = xp.abs(a)
            if p == math.inf:
                out = absa.max(axis=dims, keepdims=keepdim)
            elif p == -math.inf:
                out = absa.min(axis=dims, keepdims=keepdim)
            elif p == 1:
                out = absa.sum(axis=dims, keepdims=keepdim)
            else:
                out = (absa ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
        out = contiguous_result(xp.asarray(out))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        p = ctx.p
        if not ctx.keepdim:
            for d in ctx.dims:
                grad, out = grad.unsqueeze(d), out.unsqueeze(d)
        if p == 0:
            return a * 0, None, None, None
        if p == 1:
            return grad * a.sign(), None, None, None
        if p in (math.inf, -math.inf):
            # torch's norm_backward: sgn(a) * ((grad / count) * hit), NaNs counted as hits (a MulBackward0)
            absa = a.abs()
            hit = (absa == out).logical_or(absa.isnan())
            count = hit.sum(dim=ctx.dims, keepdim=True)
            return a.sign() * ((grad / count) * hit), None, None, None
        zero = out == 0
        # torch's norm_backward op for op: self * (grad / norm) with the zero norms' entries filled with 0 (the
        # division by a zero norm is inf before the fill; under create_graph its derivative there is NaN, as torch's)
        with errstate(get_array_module(out._array), divide="ignore", invalid="ignore"):
            return _pnorm_backward(a, out, grad, p, zero), None, None, None


def _pnorm_backward(a: Tensor, norm: Tensor, grad: Tensor, p: float, zero: Tensor) -> Tensor:
    """torch's norm_backward for a finite p other than 0 and 1, op for op (norm broadcast against a; zero: norm == 0).
    Divisions by a zero norm are inf before the fill, so under create_graph the second derivative there is NaN, as
    torch's."""
    # (torch's fills are in place, masked_fill_ on the fresh quotient: its layout kept, where an out-of-place
    # masked_fill would write a row-major copy of a transposed one)
    if p == 2:
        return grad * (a / norm).masked_fill_(zero, 0.0)
    if p < 1:
        scaled = a.sign() * (a.abs() ** (p - 1)).masked_fill_(a == 0, 0.0)
        return scaled * grad * norm ** (1 - p)
    scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
    return scaled * (grad / norm ** (p - 1)).masked_fill_(zero, 0.0)


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm for vector norms: p in {'fro', number, inf, -inf} over ``dim`` (all dims when None)."""
    if dtype is not None:
        input = input.to(dtype)
    if input._array.dtype.kind not in "fV":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(input._array.dtype)}")
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm: p={p!r} (matrix norms) is not supported; use p='fro' or a number")
    if isinstance(dim, int):
        dim = (dim,)
    return VectorNorm.apply(input, float(p), normalize_dims(dim, input.ndim), keepdim)


class AtenNorm(VectorNorm):
    """The vector norm under at::norm's node name (torch.frobenius_norm records it). Saves a and out."""

    node_name = "NormBackward1"


def frobenius_norm(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """torch's deprecated 2-norm over ``dim`` (kept for its JIT), with its warning (once, as torch's)."""
    warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return AtenNorm.apply(input, 2.0, normalize_dims(dim, input.ndim), keepdim)


def _norm_grad(diff: Tensor, dist: Tensor, grad: Tensor, p: float) -> Tensor:
    """d|diff|_p / d diff times grad, with dist = |diff|_p broadcast against diff (torch's norm_backward)."""
    if p == 0:
        return diff * 0
    if p == 1:
        return grad * diff.sign()
    if p == math.inf:
        hit = diff.abs() == dist
        return diff.sign() * (grad / hit.sum(dim=-1, keepdim=True)) * hit
    zero = dist == 0
    # op for op as torch's norm_backward: (grad / dist) is inf at a zero distance before the fill, so under
    # create_graph the second derivative there is NaN, as torch's
    with errstate(get_array_module(dist._array), divide="ignore", invalid="ignore"):
        return _pnorm_backward(diff, dist, grad, p, zero)


def _pnorm(xp, diff, p: float, axis):
    absd = xp.abs(diff)
    if p == math.inf:
        return absd.max(axis=axis)
    if p == 0:
        return (absd != 0).sum(axis=axis).astype(diff.dtype)
    if p == 1:
        return absd.sum(axis=axis)
    if p == 2:
        return xp.sqrt((diff * diff).sum(axis=axis))
    return (absd ** p).sum(axis=axis) ** (1.0 / p)


class Dist(Function):
    """out = |a - b|_p over all elements (a, b broadcast). Saves b, a and out: torch DistBackward0's order (other,
    self, result), which it unpacks in (the in-place error names the first changed one)."""

    node_name, array_forward = "DistBackward0", True

    @staticmethod
    def forward(ctx, a, b, p):
        for x in (a, b):
            check_floating(x, "norm(): input dtype should be either floating point or complex. Got {} instead.")
        xp = get_array_module(a)
        ctx.p, ctx.shapes = p, (a.shape, b.shape)
        out = xp.asarray(_pnorm(xp, (a - b).reshape(-1), p, None))
        ctx.save_for_backward(b, a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, out = ctx.saved_tensors
        g = _norm_grad(a - b, out, grad, ctx.p) if ctx.p != math.inf else \
            _norm_grad((a - b).reshape(-1), out, grad, ctx.p).reshape(*(a - b).shape)
        return sum_to(g, ctx.shapes[0]), sum_to(-g, ctx.shapes[1]), None


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    if _amp.on and autocast_applies("dist", input, other, p):
        return autocast_run("dist", dist, input, other, p)
    return Dist.apply(input, other, float(p))


class Cdist(Function):
    """out[..., i, j] = |x1[..., i, :] - x2[..., j, :]|_p. Saves x1, x2 and out."""

    half_kernel = "cdist"
    node_name, array_forward = "CdistBackward0", True

    @staticmethod
    def forward(ctx, x1, x2, p):
        xp = get_array_module(x1)
        ctx.p, ctx.shapes = p, (x1.shape, x2.shape)
        out = _pnorm(xp, x1[..., :, None, :] - x2[..., None, :, :], p, -1)
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch: x1's gradient is _cdist_backward(grad, x1, x2, p, out), x2's the same kernel with the roles
        # swapped (grad and out transposed); that kernel has no derivative
        x1, x2, out = ctx.saved_tensors
        need1, need2 = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        g1 = CdistBackward.apply(grad.contiguous(), x1, x2, ctx.p, out) if need1 else None
        g2 = CdistBackward.apply(grad.mT.contiguous(), x2, x1, ctx.p, out.mT.contiguous()) if need2 else None
        # torch expands both inputs to the broadcast batch shape first: an expanded one's gradient is summed back
        return (None if g1 is None else sum_to(g1, ctx.shapes[0])), \
            (None if g2 is None else sum_to(g2, ctx.shapes[1])), None


class CdistBackward(Function):
    """out = d cdist(x1, x2) / d x1 times g (torch's _cdist_backward), from the distances ``dist``, over the batch
    dims of x1 and x2 broadcast. torch has no derivative for it: under create_graph its node,
    CdistBackwardBackward0, raises if differentiated. Saves nothing."""

    node_name, array_forward = "CdistBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x1, x2, p, dist):
        x1_, x2_ = Tensor._make(x1), Tensor._make(x2)
        diff = x1_.unsqueeze(-2) - x2_.unsqueeze(-3)
        grad = _norm_grad(diff, Tensor._make(dist).unsqueeze(-1), Tensor._make(g).unsqueeze(-1), p)
        return grad.sum(dim=-2)._array

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Pairwise p-norm distances between the rows of x1 and of x2 (batch dims broadcast).

    deviation from torch: compute_mode is ignored, distances are always summed term by term (torch's matmul form
    for p=2 and more than 25 rows agrees to rounding, not bit for bit).
    """
    if _amp.on and autocast_applies("cdist", x1, x2, p, compute_mode):
        return autocast_run("cdist", cdist, x1, x2, p, compute_mode)
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.ndim < 2 else 2} got: "
                           f"{min(x1.ndim, x2.ndim) if x1.ndim < 2 else x2.ndim}D")
    for i, x in ((1, x1), (2, x2)):
        check_floating(x._array, f"cdist only supports floating-point dtypes, X{i} got: {{}}")
    if x1.dtype != x2.dtype:
        refuse_half_kernel(x1, "cdist")  # torch's kernel dispatches on x1's dtype before it reads x2's
        check_same_dtype("expected scalar type {} but found {}", x1._array, x2._array)
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return Cdist.apply(x1, x2, float(p))


def _pairs(xp, n: int):
    """The row pairs i < j in pdist's order (row-major over the upper triangle), on xp's device (made by NumPy:
    not every array backend has triu_indices)."""
    return tuple(xp.asarray(k) for k in np.triu_indices(n, 1))


class Pdist(Function):
    """out[k] = |a[i] - a[j]|_p over the row pairs i < j (torch.pdist). Saves a and out."""

    node_name, array_forward = "PdistBackward0", True

    @staticmethod
    def forward(ctx, a, p):
        i, j = _pairs(get_array_module(a), a.shape[0])
        ctx.p = p
        out = _pnorm(get_array_module(a), a[i] - a[j], p, -1)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # torch: _pdist_backward(grad, a, p, out), a kernel with no derivative
        return PdistBackward.apply(grad.contiguous(), a, ctx.p, out), None


class PdistBackward(Function):
    """out = d pdist(a) / d a times g (torch's _pdist_backward): each pair's norm gradient added to row i and taken
    from row j. Under create_graph its node, PdistBackwardBackward0, raises if differentiated. Saves nothing."""

    node_name, array_forward = "PdistBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, p, dist):
        xp = get_array_module(a)
        i, j = _pairs(xp, a.shape[0])
        diff = Tensor._make(a[i] - a[j])
        pair = _norm_grad(diff, Tensor._make(dist)[:, None], Tensor._make(g)[:, None], p)._array
        out = xp.zeros_like(a)
        backend.scatter_add(out, i, pair)  # a row is in many pairs: accumulated
        backend.scatter_add(out, j, -pair)
        return out

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between every pair of rows i < j of a 2-D input, as a flat tensor (torch.pdist)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    check_floating(input._array, "pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return Pdist.apply(input, float(p))


class Renorm(Function):
    """Each slice along dim whose p-norm exceeds maxnorm is scaled to norm maxnorm. Saves a."""

    node_name, array_forward = "RenormBackward0", True

    @staticmethod
    def _norm(xp, a, p, dims):
        if p == math.inf:
            return xp.abs(a).max(axis=dims, keepdims=True)
        return (xp.abs(a) ** p).sum(axis=dims, keepdims=True) ** (1.0 / p)

    @staticmethod
    def forward(ctx, a, p, dim, maxnorm):
        xp = get_array_module(a)
        dims = tuple(d for d in range(a.ndim) if d != dim)
        ctx.save_for_backward(a)
        ctx.p, ctx.dims, ctx.maxnorm = p, dims, maxnorm
        norm = Renorm._norm(xp, a, p, dims)
        factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        return (a * factor).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p, dims, maxnorm = ctx.p, ctx.dims, ctx.maxnorm
        # torch's renorm_backward, op for op: where(norm > maxnorm, factor grad - factor / (norm + 1e-7) nb, grad),
        # nb = norm_backward(sum(a * grad), a, p, norm); the slices left alone pass grad through exactly
        if p == math.inf:
            norm = a.abs().amax(dim=dims, keepdim=True)
        else:
            norm = a.abs().pow(p).sum(dim=dims, keepdim=True).pow(1.0 / p)
        inner = (a * grad).sum(dim=dims, keepdim=True)
        zero = Tensor._make(norm._array == 0)
        if p == 1:
            nb = a.sign() * inner
        elif p == 2:
            nb = a * (inner / norm).masked_fill(zero, 0.0)
        elif p == math.inf:
            hit = Tensor._make((a.abs()._array == norm._array).astype(a._array.dtype))
            nb = a.sign() * hit * inner / hit.sum(dim=dims, keepdim=True)
        else:
            nb = a * a.abs().pow(p - 2) * (inner / norm.pow(p - 1)).masked_fill(zero, 0.0)
        invnorm = (norm + 1e-7).reciprocal()
        factor = invnorm * maxnorm
        active = Tensor._make(norm._array > maxnorm)
        return where_op(active, factor * grad - (factor * invnorm) * nb, grad), None, None, None


RenormInplace = _inplace(Renorm, "RenormInplace", save_input_copy=True)


def renorm_(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    _check_renorm(input, p, maxnorm)
    return RenormInplace.apply(input, p, wrap_dim(dim, input.ndim), maxnorm)


def _check_renorm(input: Tensor, p: float, maxnorm: float) -> None:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input._array.dtype.kind not in "fV":
        raise RuntimeError(f"\"renorm\" not implemented for '{scalar_type_name(input._array.dtype)}'")


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """input with every slice along dim scaled down to p-norm maxnorm where it exceeds it."""
    if _amp.on and autocast_applies("renorm", input, p, dim, maxnorm):
        return autocast_run("renorm", renorm, input, p, dim, maxnorm)
    _check_renorm(input, p, maxnorm)
    return Renorm.apply(input, p, wrap_dim(dim, input.ndim), maxnorm)
