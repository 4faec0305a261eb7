"""Searching and counting: bucketize, searchsorted, histc, histogram, bincount, isin, unique_consecutive, tril/triu_indices,
and aminmax (the one with a gradient) and msort.

All but aminmax/msort return index or count tensors with no history, as torch's (their results never require grad)."""
from __future__ import annotations

import collections

import numpy as np

from ..autograd.grad_mode import no_grad
from ..creation import linspace
from ..backend import get_array_module, host_array_module
from ..tensor import Tensor
from ._util import scalar_type_name, wrap_dim


def _array(x, like=None):
    """A tensor's array; a Python number as a 0-d array (on ``like``'s device)."""
    if isinstance(x, Tensor):
        return x._array
    xp = get_array_module(like) if like is not None else host_array_module()
    return xp.asarray(x)


def _index_result(array, out_int32: bool) -> Tensor:
    return Tensor._make(array.astype(np.int32 if out_int32 else np.int64))


def _sorted_search(seq, values, side: str):
    """searchsorted along the last dim of seq (1-D, or with the leading dims of values)."""
    xp = get_array_module(seq)
    if seq.ndim == 1:
        return xp.searchsorted(seq, values, side=side)
    # row by row, as one comparison: the count of boundaries below (or at, for side='right') each value
    below = (seq[..., None, :] <= values[..., :, None]) if side == "right" else \
        (seq[..., None, :] < values[..., :, None])
    return below.sum(-1)


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value of input, the index in sorted_sequence (along its last dim) where it would be inserted."""
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side is not None and right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left while "
                           "right was True")
    side = side or ("right" if right else "left")
    seq = sorted_sequence._array
    values = _array(input, seq)
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}")
    if sorter is not None:
        seq = get_array_module(seq).take_along_axis(seq, sorter._array, -1)
    return _index_result(_sorted_search(seq, values, side), out_int32)


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """For each element of input, the index of the bucket of the (1-D, sorted) boundaries it falls in."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _index_result(_sorted_search(boundaries._array, _array(input, boundaries._array),
                                        "right" if right else "left"), out_int32)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """The histogram of input's elements in ``bins`` equal bins over [min, max] (the data's range if both are 0);
    elements outside are left out."""
    a = input._array
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    xp = get_array_module(a)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_c_number(lo)}, {_c_number(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    flat = a.reshape(-1)
    inside = (flat >= lo) & (flat <= hi)
    pos = ((flat[inside] - lo) * bins / (hi - lo)).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)  # the top edge belongs to the last bin
    return Tensor._make(xp.bincount(pos, minlength=bins).astype(a.dtype))


_HISTOGRAM = collections.namedtuple("histogram", ["hist", "bin_edges"])  # torch.return_types.histogram's fields


def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False):
    """(hist, bin_edges): counts (or summed weights) of input's elements in ``bins`` equal bins over ``range`` (the
    data's, widened by 0.5 each way when flat) or between the edges of a 1-D ``bins`` tensor; the top edge belongs
    to the last bin, elements outside are left out; density=True divides by the total times each bin's width."""
    a = input._array
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{scalar_type_name(a.dtype)}'")
    xp = get_array_module(a)
    flat = a.reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dtype != input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {_c_type(a)} and bins for dimension 0 with dtype "
                               f"{_c_type(bins._array)}")
        edges = bins._array
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                                   "for dimension 0")
        elif flat.size:
            lo, hi = float(flat.min()), float(flat.max())
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)._array
    n = edges.shape[0] - 1
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    pos = xp.minimum(xp.searchsorted(edges, flat[inside], side="right") - 1, n - 1)  # the top edge: the last bin
    w = None if weight is None else weight._array.reshape(-1)[inside]
    hist = xp.bincount(pos, weights=w, minlength=n).astype(a.dtype)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _HISTOGRAM(Tensor._make(hist.astype(a.dtype, copy=False)), Tensor._make(xp.array(edges, copy=True)))


def _c_type(a) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(str(a.dtype), str(a.dtype))


def _c_number(x: float) -> str:
    """A bound as torch's message prints it (C++ stream: 1, 2.5, inf, -nan for the NaN its reductions give)."""
    if np.isnan(x):
        return "-nan"
    return "inf" if x == np.inf else "-inf" if x == -np.inf else f"{x:g}"


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """The count (or summed weights) of each value 0..max(input) of a 1-D non-negative integer tensor."""
    a = input._array
    if a.dtype.kind in "fV":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim != 1 or (a.size and int(a.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    xp = get_array_module(a)
    if weights is None:
        return Tensor._make(xp.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._array
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64  # torch: float weights stay float
    return Tensor._make(xp.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(out_dtype))


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """A bool tensor: whether each of elements is among test_elements (either may be a number)."""
    like = next((x._array for x in (elements, test_elements) if isinstance(x, Tensor)), None)
    e, t = _array(elements, like), _array(test_elements, like)
    for x in (e, t):
        if x.dtype == np.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    xp = get_array_module(e)
    flat = t.reshape(-1)
    sorted_t = xp.sort(flat)
    pos = xp.searchsorted(sorted_t, e.reshape(-1))
    found = (pos < flat.size) & (sorted_t[xp.minimum(pos, max(flat.size - 1, 0))] == e.reshape(-1)) \
        if flat.size else xp.zeros(e.size, bool)
    found = found.reshape(e.shape)
    return Tensor._make(~found if invert else found)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """input with each run of equal consecutive elements (or slices along dim) kept once; optionally the run of
    each element and each run's length."""
    a = input._array
    xp = get_array_module(a)
    if dim is None:
        flat = a.reshape(-1)
        starts = xp.ones(flat.size, bool)
        if flat.size:
            starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse_shape = a.shape
    else:
        dim = wrap_dim(dim, a.ndim)
        moved = xp.moveaxis(a, dim, 0).reshape(a.shape[dim], -1) if a.ndim else a.reshape(1, 1)
        starts = xp.ones(moved.shape[0], bool)
        if moved.shape[0]:
            starts[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        values = xp.moveaxis(xp.moveaxis(a, dim, 0)[starts], 0, dim)
        inverse_shape = (a.shape[dim],)
    run = xp.cumsum(starts) - 1
    out = [Tensor._make(values)]
    if return_inverse:
        out.append(Tensor._make(run.reshape(inverse_shape).astype(np.int64)))
    if return_counts:
        begins = xp.nonzero(starts)[0]
        ends = xp.concatenate([begins[1:], xp.asarray([starts.size], dtype=begins.dtype)])
        out.append(Tensor._make((ends - begins).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None):
    """The distinct values (sorted), with the inverse map and the counts if asked (int64, no graph)."""
    xp = get_array_module(input._array)
    a = input._array
    kwargs = {}
    if dim is not None:
        kwargs["axis"] = wrap_dim(dim, input.ndim)
    else:
        a = a.reshape(-1)
    values, inverse, counts = xp.unique(a, return_inverse=True, return_counts=True, **kwargs)
    with no_grad():
        out = [Tensor._make(values)]
        if return_inverse:
            out.append(Tensor._make(inverse.reshape(input.shape if dim is None else (-1,)).astype(xp.int64,
                                                                                                  copy=False)))
        if return_counts:
            out.append(Tensor._make(counts.astype(xp.int64, copy=False)))
    return out[0] if len(out) == 1 else tuple(out)
