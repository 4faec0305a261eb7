"""Ordering and scans: sort, argsort, topk, cumsum, cumprod, logsumexp; and multinomial sampling."""
from __future__ import annotations

import collections

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend
from ..autograd.function import Function
from ..backend import get_array_module
from ..creation import zeros
from ..random import _gen
from ..tensor import Tensor
from ._layout import contiguous_result
from ._util import normalize_dims, wrap_dim
from .combine import Cat
from .gather import Scatter

values_indices = collections.namedtuple("return_types", ["values", "indices"])


class _ByIndices(Function):
    """(values, indices): a gathered at ``indices`` along ``dim`` (sort/topk), and the indices themselves. Saves the
    indices, as the returned tensor (torch saves that output: changing it in place makes backward raise)."""

    array_forward = True

    @staticmethod
    def forward(ctx, a, dim, indices):
        ctx.shape, ctx.dim = a.shape, dim
        ctx.save_for_backward(indices)  # as torch: a second backward after it is freed raises
        ctx.mark_non_differentiable(indices)
        if a.ndim == 0:  # a 0-d tensor sorted along dim 0: itself
            return a.copy(), indices
        return get_array_module(a).take_along_axis(a, indices, axis=dim), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        if not ctx.shape:
            return grad, None, None
        base = zeros(*ctx.shape, dtype=grad.dtype, device=grad.device)
        return Scatter.apply(base, ctx.dim, indices, grad), None, None  # torch's: a scatter (ScatterBackward0)


class SortValues(_ByIndices):
    """sort's values. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "SortBackward0"


class TopkValues(_ByIndices):
    """topk's values. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "TopkBackward0"


def _argsort(arr, dim: int, descending: bool):
    """Stable sort order (torch keeps ties in index order on CPU); descending sorts the negated values."""
    xp = get_array_module(arr)
    stable = {"kind": "stable"} if xp is np else {}  # cupy's argsort is always stable and refuses 'kind'
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int8)
    if not descending:
        return xp.argsort(arr, axis=dim, **stable).astype(np.int64)  # NaN last, as torch
    idx = xp.argsort(-arr if arr.dtype.kind in "fiV" else ~arr, axis=dim, **stable)  # ~: unsigned, no wrapping
    if arr.dtype.kind in "fV":  # torch puts NaN first when descending (the negation left them last): a stable
        # second pass on "is not NaN", always (checking for NaN first would read the data on the host)
        nan = xp.isnan(arr)
        first = xp.argsort(xp.logical_not(xp.take_along_axis(nan, idx, axis=dim)), axis=dim, **stable)
        idx = xp.take_along_axis(idx, first, axis=dim)
    return idx.astype(np.int64)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """(values, indices) sorted along dim; NaN sorts last as in torch (stable order for ties)."""
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        idx = get_array_module(input._array).zeros((), np.int64)
        return values_indices(*SortValues.apply(input, dim, idx))
    idx = _argsort(input._array, dim, descending)
    return values_indices(*SortValues.apply(input, dim, idx))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along dim (no graph: torch's argsort has no gradient)."""
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return Tensor._make(get_array_module(input._array).zeros((), np.int64))
    return Tensor._make(_argsort(input._array, dim, descending))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """(values, indices) of the k largest (or smallest) elements along dim, in sorted order."""
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    arr = input._array if input.ndim else input._array.reshape(1)
    idx = _argsort(arr, dim, descending=largest)
    idx = get_array_module(idx).ascontiguousarray(idx[(slice(None),) * dim + (slice(0, k),)])  # torch's: contiguous
    if not input.ndim:
        idx = idx.reshape(())
    return values_indices(*TopkValues.apply(input, dim, idx))


def _running(fn, a, dim: int):
    """fn (cumsum or cumprod) of a float array as torch's CPU kernel: accumulated in double (its acc_type for
    float and half), each step rounded to a's dtype."""
    acc = a.dtype if a.dtype.itemsize >= 8 else np.float64
    return fn(a, axis=dim, dtype=acc).reshape(a.shape).astype(a.dtype, copy=False)


class Cumsum(Function):
    """out = running sum along dim. Saves nothing."""

    node_name, array_forward = "CumsumBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim, ctx.dtype = dim, a.dtype
        xp = get_array_module(a)
        if a.dtype.kind not in "fV":
            return xp.cumsum(a, axis=dim, dtype=np.int64).reshape(a.shape)  # numpy flattens a 0-d input to (1,)
        out = _running(xp.cumsum, a, dim)
        out += 0  # torch's running sum starts from +0.0: a leading -0.0 gives +0.0, as there
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch's cumsum_backward: the reversed running sum, flip(cumsum(flip(grad))) (grad itself when trivial)
        if grad.numel() <= 1 or grad.shape[ctx.dim] == 1:
            return grad, None
        return Cumsum.apply(grad.flip(ctx.dim), ctx.dim).flip(ctx.dim), None


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    if _amp.on and autocast_applies("cumsum", input, dim):
        return autocast_run("cumsum", cumsum, input, dim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    return Cumsum.apply(input, wrap_dim(dim, input.ndim))


class Cumprod(Function):
    """out = running product along dim. Saves a and out."""

    node_name, array_forward = "CumprodBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        xp = get_array_module(a)
        if a.dtype.kind in "fV":
            out = _running(xp.cumprod, a, dim)
        else:
            out = xp.cumprod(a, axis=dim).reshape(a.shape)  # numpy flattens a 0-d input
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a.ndim == 0:  # the product of one element: the element itself
            return grad, None
        if not bool((a == 0).any()):
            go = grad * out
            return (go.sum(dim=dim, keepdim=True) - Cumsum.apply(go, dim) + go) / a, None
        # with zeros the division above is 0/0: d out_j / d a_k = prod_{i<=j, i!=k} a_i, column by column
        n = a.shape[dim]
        cols = []
        for k in range(n):
            ones = [1.0] * n
            ones[k] = 0.0
            xp = get_array_module(a._array)
            shape = [1] * a.ndim
            shape[dim] = n
            hole = Tensor._make(xp.asarray(ones, dtype=a._array.dtype).reshape(shape))
            others = Cumprod.apply(a * hole + (1 - hole), dim)  # a with a_k replaced by 1
            later = Tensor._make((xp.arange(n) >= k).reshape(shape))
            cols.append((grad * others * later).sum(dim=dim, keepdim=True))
        return Cat.apply(dim, *cols), None


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    if _amp.on and autocast_applies("cumprod", input, dim):
        return autocast_run("cumprod", cumprod, input, dim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    return Cumprod.apply(input, wrap_dim(dim, input.ndim))


class Logsumexp(Function):
    """out = log(sum(exp(a))) over dims, computed shifted by the max. Saves a and out."""

    node_name, array_forward = "LogsumexpBackward0", True

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        xp = get_array_module(a)
        ctx.dims, ctx.keepdim = dims, keepdim
        m = a.max(axis=dims, keepdims=True) if a.size else xp.zeros((1,) * a.ndim, a.dtype)
        m = xp.where(xp.isfinite(m), m, 0)
        out = xp.log(xp.exp(a - m).sum(axis=dims, keepdims=True)) + m
        out = contiguous_result(out if keepdim else out.squeeze(axis=dims))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if not ctx.keepdim:
            for d in ctx.dims:
                grad, out = grad.unsqueeze(d), out.unsqueeze(d)
        return grad * (a - out).exp(), None, None


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    if _amp.on and autocast_applies("logsumexp", input, dim, keepdim):
        return autocast_run("logsumexp", logsumexp, input, dim, keepdim)
    if input._array.dtype.kind not in "fV":
        input = input.float()
    return Logsumexp.apply(input, normalize_dims(dim, input.ndim), keepdim)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices drawn from each row's categorical distribution (weights need not sum to 1)."""
    probs = backend.to_numpy(input._array).astype(np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, probs.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rng = _gen(generator)
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for r, p in enumerate(rows):
        total = p.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            out[r] = rng.choice(len(p), size=num_samples, replace=True, p=p / total)
        else:
            # sequential draws without replacement (as torch): Gumbel top-k over log-weights
            keys = np.where(p > 0, np.log(np.where(p > 0, p, 1)) + rng.gumbel(size=len(p)), -np.inf)
            if num_samples > int((p > 0).sum()):
                raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough "
                                   "non-negative category to sample)")
            out[r] = np.argsort(-keys, kind="stable")[:num_samples]
    out = out.reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._make(backend.to_device(out, input.device))
