"""Ordering and scans: sort, argsort, topk, cumsum, cumprod, logsumexp; and multinomial sampling."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..backend import get_array_module
from ..creation import zeros
from ..tensor import Tensor
from ._util import values_indices, wrap_dim
from .indexing import Scatter


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


def msort(input: Tensor) -> Tensor:
    """input sorted along dim 0 (torch.sort(input, 0).values)."""
    return sort(input, 0)[0]
