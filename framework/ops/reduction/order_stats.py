"""Order statistics: median, nanmedian, kthvalue, mode, quantile, nanquantile."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import normalize_dims, values_indices, wrap_dim
from ..sorting import _argsort
from .extrema import _scatter_to_indices, evenly_distribute, values_and_indices
from .sums import _SqueezePrivate


class KthvalueDim(Function):
    """(values, indices) = the k-th smallest element along ``dim`` (NaN counts as the largest). Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, array_forward = "KthvalueBackward0", True

    @staticmethod
    def forward(ctx, a, k, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:  # the only element: itself, at index 0 (torch saves the indices even here)
            ctx.shape, ctx.dim, ctx.keepdim = (), None, keepdim
            idx = xp.zeros((), dtype=dtypes.int64.np)
            ctx.save_for_backward(idx)
            ctx.mark_non_differentiable(idx)
            return a.copy(), idx
        (d,) = normalize_dims(dim, a.ndim)
        order = _argsort(a, d, descending=False)  # stable; NaNs sort last, as torch ranks them
        idx = xp.take(order, xp.asarray([k - 1]), axis=d)
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        if ctx.dim is None:
            return grad, None, None, None
        return _scatter_to_indices(ctx, grad, indices) + (None,)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """(values, indices): the k-th smallest element along ``dim`` (k counts from 1) and its position."""
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    v, i = KthvalueDim.apply(input, k, dim, keepdim)
    return values_indices(v, i)


class MedianAll(Function):
    """out = the lower median of all elements; the gradient is shared evenly by the elements equal to it. Saves a
    and out."""

    node_name, array_forward = "MedianBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        flat = a.reshape(-1)
        if flat.size == 0:  # torch: nan for an empty tensor
            out = xp.asarray(xp.nan, dtype=a.dtype)
            ctx.save_for_backward(a, out)
            return out
        ordered = xp.sort(flat)  # NaNs sort last: the median of a tensor with a NaN is NaN, as torch's
        out = ordered[(flat.size - 1) // 2]
        if a.dtype.kind in "fV":
            out = xp.where(xp.isnan(ordered[-1]), ordered[-1], out)
        out = xp.asarray(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out)


class NanmedianAll(MedianAll):
    """out = the lower median of the elements that are not NaN (NaN if all are). Saves a and out."""

    node_name = "NanmedianBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        flat = a.reshape(-1)
        ordered = xp.sort(flat)  # NaNs last
        k = int((~xp.isnan(flat)).sum()) if a.dtype.kind in "fV" else flat.size
        out = xp.asarray(ordered[(k - 1) // 2] if k else xp.nan, dtype=a.dtype)
        ctx.save_for_backward(a, out)
        return out


class MedianDim(Function):
    """(values, indices) = the lower median along ``dim``. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, array_forward = "MedianBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:
            ctx.shape, ctx.dim, ctx.keepdim = (), None, keepdim
            idx = xp.zeros((), dtype=dtypes.int64.np)
            ctx.save_for_backward(idx)  # torch saves the indices even here
            ctx.mark_non_differentiable(idx)
            return a.copy(), idx
        (d,) = normalize_dims(dim, a.ndim)
        if a.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        order = xp.argsort(a, axis=d)  # NaNs sort last: a slice with a NaN has median NaN, as torch
        k = (a.shape[d] - 1) // 2
        idx = xp.take(order, xp.asarray([k]), axis=d)
        if a.dtype.kind in "fV":
            nan_at = xp.argmax(xp.isnan(a), axis=d)
            has_nan = xp.isnan(a).any(axis=d)
            idx = xp.where(xp.expand_dims(has_nan, d), xp.expand_dims(nan_at, d), idx)
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        if ctx.dim is None:
            return grad, None, None
        return _scatter_to_indices(ctx, grad, indices)


class NanmedianDim(MedianDim):
    """(values, indices) = the lower median along dim of the elements that are not NaN. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "NanmedianBackward1"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:
            return MedianDim.forward(ctx, a, dim, keepdim)
        (d,) = normalize_dims(dim, a.ndim)
        if a.shape[d] == 0:
            raise IndexError(f"nanmedian(): Expected reduction dim {dim} to have non-zero size.")
        order = xp.argsort(a, axis=d, kind="stable")
        k = (~xp.isnan(a)).sum(axis=d, keepdims=True) if a.dtype.kind in "fV" else a.shape[d]
        pos = xp.maximum((k - 1) // 2, 0) * xp.ones((1,) * a.ndim, dtype=np.int64)
        idx = xp.take_along_axis(order, pos.astype(np.int64), axis=d)
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median ignoring NaN, or (values, indices) along dim."""
    if dim is None:
        return NanmedianAll.apply(input)
    v, i = NanmedianDim.apply(input, dim, keepdim)
    return values_indices(v, i)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    fn = "quantile"  # torch's checks name quantile() for nanquantile too
    xp = get_array_module(input._array)
    if input.numel() == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
    if input._array.dtype.kind not in "fV":
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    qs = q._array.astype(input._array.dtype) if isinstance(q, Tensor) else xp.asarray(q, dtype=input._array.dtype)
    scalar_q = qs.ndim == 0
    qs = qs.reshape(-1)
    # a Python q is checked on the host (no read of device values: a compiled step keeps replaying)
    in_range = 0 <= q <= 1 if isinstance(q, (int, float)) else not qs.size or bool(((qs >= 0) & (qs <= 1)).all())
    if not in_range:
        raise RuntimeError(f"{fn}() q values must be in the range [0, 1]" if not scalar_q else
                           f"{fn}() q must be in the range [0, 1] but got {float(qs[0]):g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                           f"{interpolation}")
    if dim is None:
        x = input.reshape(-1)
        kept = (1,) * input.ndim
    else:
        d = wrap_dim(dim, input.ndim)
        # torch sorts the input itself when dim is its last (else a view with dim moved last): no view node then
        x = input if input.ndim and d == input.ndim - 1 else input.movedim(d, -1) if input.ndim else input.reshape(1)
        kept = tuple(1 if i == d else s for i, s in enumerate(input.shape))
    reduced = tuple(x.shape[:-1])
    out_core = kept if keepdim else reduced
    sorted_ = x.sort(-1)[0]
    n = sorted_.shape[-1]
    s = sorted_._array
    nan = xp.isnan(s)
    qv = qs.reshape((-1,) + (1,) * (len(reduced) + 1))  # (Q, *reduced, 1)
    if ignore_nan:
        ranks = qv * ((~nan).sum(-1, keepdims=True) - 1).astype(s.dtype)
        ranks = xp.where(ranks < 0, 0, ranks)
    else:
        ranks = xp.where(nan.any(-1, keepdims=True), n - 1, qv * (n - 1)).astype(s.dtype)
    if interpolation == "lower":
        ranks = xp.floor(ranks)
    elif interpolation == "higher":
        ranks = xp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = xp.round(ranks)
    below = ranks.astype(np.int64)
    expanded = sorted_.unsqueeze(0).expand(len(qs), *sorted_.shape)
    values = expanded.gather(-1, Tensor._make(below))
    if interpolation in ("linear", "midpoint"):
        weights = xp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = expanded.gather(-1, Tensor._make(xp.ceil(ranks).astype(np.int64)))
        values = values.lerp(above, Tensor._make(weights.astype(s.dtype)))
    shape = out_core if scalar_q else (len(qs),) + out_core
    out = _SqueezePrivate.apply(values, shape)
    # torch's result went through in-place ops on its private tensor (lerp_, then squeeze_, or unsqueeze_,
    # transpose_ and squeeze_ for a tensor q): its _version counts them, and so does ours
    for _ in range((1 if interpolation in ("linear", "midpoint") else 0) + (1 if scalar_q else 3)):
        if out._version_counter is not None:
            out._version_counter.bump("SqueezeBackward4")
    return out


def _check_quantile_dtype(input: Tensor) -> None:
    if input._array.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The q-th quantiles (q a number or 1-D tensor) over all elements or along dim; NaN if a NaN is there."""
    if _amp.on and autocast_applies("quantile", input, q, dim, keepdim):
        return autocast_run("quantile", quantile, input, q, dim, keepdim, interpolation=interpolation)
    _check_quantile_dtype(input)
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """quantile ignoring NaN (NaN only where all are)."""
    if _amp.on and autocast_applies("nanquantile", input, q, dim, keepdim):
        return autocast_run("nanquantile", nanquantile, input, q, dim, keepdim, interpolation=interpolation)
    _check_quantile_dtype(input)
    return _quantile(input, q, dim, keepdim, interpolation, True)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median of all elements, or (values, indices) along ``dim``."""
    if dim is None:
        return MedianAll.apply(input)
    v, i = MedianDim.apply(input, dim, keepdim)
    return values_indices(v, i)


class ModeDim(MedianDim):
    """(values, indices) = the most frequent value along ``dim`` (the smallest among ties) and the last position
    it has. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:
            return MedianDim.forward(ctx, a, dim, keepdim)
        d = dim % a.ndim
        rows = xp.moveaxis(a, d, -1)
        eq = rows[..., :, None] == rows[..., None, :]  # (..., n, n): which elements equal which
        counts = eq.sum(axis=-1)
        best = counts.max(axis=-1, keepdims=True)
        big = xp.asarray(xp.inf if a.dtype.kind in "fV" else xp.iinfo(a.dtype).max, dtype=a.dtype)
        value = xp.where(counts == best, rows, big).min(axis=-1, keepdims=True)
        n = rows.shape[-1]
        last = n - 1 - xp.argmax((rows == value)[..., ::-1], axis=-1)  # torch reports the last occurrence
        idx = xp.expand_dims(last, d)  # the other dims kept their order in rows: d goes back in its place
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """(values, indices): the most frequent value along ``dim`` (smallest among ties) and its last index."""
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    v, i = ModeDim.apply(input, dim, keepdim)
    return values_indices(v, i)
