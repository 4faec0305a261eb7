"""Order statistics with indices: kthvalue along a dim, and the running max/min (cummax, cummin)."""
from __future__ import annotations

from .. import dtypes
from ..autograd.function import Function
from ..backend import get_array_module
from ..creation import zeros
from ..tensor import Tensor
from ._util import normalize_dims, wrap_dim
from .extrema import _scatter_to_indices, values_and_indices, values_indices
from .gather import ScatterAdd
from .sorting import _argsort


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


def _running(fn, a, axis: int):
    """fn accumulated along ``axis`` (a running max/min) by doubling steps: log2(n) calls of fn, each on whole
    slices, where CuPy has no ufunc.accumulate."""
    out = a.copy()
    n, k = a.shape[axis], 1
    while k < n:
        head = [slice(None)] * a.ndim
        tail = list(head)
        head[axis], tail[axis] = slice(k, None), slice(None, n - k)
        out[tuple(head)] = fn(out[tuple(head)], out[tuple(tail)])  # element i takes in element i - k
        k *= 2
    return out


class _CumExtreme(Function):
    """(values, indices) = the running max (or min) along ``dim`` and where it was last reached; a NaN, once met,
    stays the value (its latest position the index), as in torch. Saves a and the indices (torch's
    cummaxmin_backward(grad, self, indices, dim))."""

    array_forward = True
    _ufunc = "maximum"

    @classmethod
    def _fwd(cls, ctx, a, dim):
        xp = get_array_module(a)
        ctx.shape, ctx.dim = a.shape, dim
        if a.ndim == 0 or a.size == 0:
            idx = xp.zeros(a.shape, dtype=dtypes.int64.np)
            values = a.copy()
        else:
            values = _running(getattr(xp, cls._ufunc), a, dim)  # maximum/minimum propagate NaN, as torch's
            hit = a == values  # a new extreme or a tie with it: torch's >= (<=) moves the index there
            if a.dtype.kind in "fV":
                hit |= xp.isnan(a)
            shape = [1] * a.ndim
            shape[dim] = a.shape[dim]
            positions = xp.arange(a.shape[dim]).reshape(shape)
            idx = _running(xp.maximum, xp.where(hit, positions, 0), dim).astype(dtypes.int64.np)
        ctx.save_for_backward(a, idx)  # the input and the returned indices, as torch's CummaxBackward0 saves them
        ctx.mark_non_differentiable(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad, grad_indices):
        _, indices = ctx.saved_arrays  # (unpacking a checks it was not modified in place, as torch's)
        if not ctx.shape or grad.numel() == 0:
            return grad, None
        base = zeros(*ctx.shape, dtype=grad.dtype, device=grad.device)
        return ScatterAdd.apply(base, ctx.dim, indices, grad), None  # torch's cummaxmin_backward


class Cummax(_CumExtreme):
    """(values, indices) = running max along ``dim``. Saves a and the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "CummaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        return Cummax._fwd(ctx, a, dim)


class Cummin(_CumExtreme):
    """(values, indices) = running min along ``dim``. Saves a and the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, _ufunc = "CumminBackward0", "minimum"

    @staticmethod
    def forward(ctx, a, dim):
        return Cummin._fwd(ctx, a, dim)


def cummax(input: Tensor, dim: int):
    """(values, indices): the running maximum along ``dim`` and the position it was last reached at."""
    v, i = Cummax.apply(input, wrap_dim(dim, input.ndim))
    return values_indices(v, i)


def cummin(input: Tensor, dim: int):
    """(values, indices): the running minimum along ``dim`` and the position it was last reached at."""
    v, i = Cummin.apply(input, wrap_dim(dim, input.ndim))
    return values_indices(v, i)
