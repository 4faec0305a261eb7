"""Extrema: max, min (with indices), amax, amin, argmax, argmin, aminmax."""
from __future__ import annotations

from collections import namedtuple

from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result
from .._util import normalize_dims, not_a_tensor, values_indices, wrap_dim
from ..indexing import Scatter
from ..pointwise import maximum, minimum
from .sums import _keep_shape


def _empty_check(a, name):
    if a.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")


class MaxAll(Function):
    """out = max of all elements; ties share the gradient evenly. Saves a and out."""

    node_name, array_forward = "MaxBackward1", True
    _reduce = "max"

    @classmethod
    def _fwd(cls, ctx, a):
        _empty_check(a, cls._reduce)
        out = get_array_module(a).asarray(getattr(a, cls._reduce)())
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def forward(ctx, a):
        return MaxAll._fwd(ctx, a)

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out)


def evenly_distribute(grad, a, value):
    """torch's evenly_distribute_backward (CPU): zeros.masked_fill_(hit, grad / hit.sum()), the elements equal
    to value (its NaNs when value is NaN) sharing grad: a MaskedFillBackward1 node under create_graph."""
    xp = get_array_module(a._array)
    hit = Tensor._make(xp.isnan(a._array) if bool(xp.isnan(value._array)) else a._array == value._array)
    base = Tensor._make(xp.zeros(a.shape, dtype=grad._array.dtype))
    return base.masked_fill_(hit, grad / hit.sum())


class MinAll(MaxAll):
    """out = min of all elements; ties share the gradient evenly. Saves a and out."""

    node_name, _reduce = "MinBackward1", "min"

    @staticmethod
    def forward(ctx, a):
        return MinAll._fwd(ctx, a)


class MaxDim(Function):
    """(values, indices) = max along ``dim``. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, array_forward = "MaxBackward0", True
    _arg = "argmax"

    @classmethod
    def _fwd(cls, ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:  # a 0-d tensor along dim 0 (or -1): itself, at index 0
            wrap_dim(dim, 0)
            ctx.shape, ctx.dim, ctx.keepdim = (), None, keepdim
            idx = xp.zeros((), dtype=dtypes.int64.np)
            ctx.save_for_backward(idx)  # torch saves the indices even here: a freed node raises when run again
            ctx.mark_non_differentiable(idx)
            return a.copy(), idx
        (d,) = normalize_dims(dim, a.ndim)
        idx = getattr(xp, cls._arg)(a, axis=d)
        idx = xp.expand_dims(idx, d)
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        return MaxDim._fwd(ctx, a, dim, keepdim)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        if ctx.dim is None:  # a 0-d input: torch's zeros(()).scatter(0, indices, grad) all the same
            xp = get_array_module(indices)
            return Scatter.apply(Tensor._make(xp.zeros((), dtype=grad._array.dtype)), 0, indices, grad), None, None
        return _scatter_to_indices(ctx, grad, indices)


def values_and_indices(ctx, a, d: int, keepdim: bool, values, idx) -> tuple:
    """Finish a (values, indices) reduction of ``a`` along d: squeezed unless keepdim, int64 indices that are
    non-differentiable and saved as the returned tensor (as torch saves them: an in-place change raises)."""
    ctx.shape, ctx.dim, ctx.keepdim = a.shape, d, keepdim
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    idx = idx.astype(dtypes.int64.np)
    ctx.save_for_backward(idx)
    ctx.mark_non_differentiable(idx)
    return values, idx


def _scatter_to_indices(ctx, grad, indices) -> tuple:
    """grad placed at ``indices`` along ctx.dim of a zero tensor of ctx.shape (max/min/median/mode along a dim)."""
    xp = get_array_module(indices)
    if not ctx.keepdim:
        indices = xp.expand_dims(indices, ctx.dim)
    positions = xp.arange(ctx.shape[ctx.dim]).reshape([-1 if i == ctx.dim else 1 for i in range(len(ctx.shape))])
    del positions
    g = grad if ctx.keepdim else grad.unsqueeze(ctx.dim)
    # torch's value_selecting_reduction_backward: zeros.scatter(dim, indices, grad), ScatterBackward0
    base = Tensor._make(xp.zeros(ctx.shape, dtype=grad._array.dtype))
    return Scatter.apply(base, ctx.dim, indices, g), None, None


class MinDim(MaxDim):
    """(values, indices) = min along ``dim``. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, _arg = "MinBackward0", "argmin"

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        return MinDim._fwd(ctx, a, dim, keepdim)


class Amax(Function):
    """out = max over ``dim`` (no indices); ties share the gradient. Saves a and out."""

    node_name, array_forward = "AmaxBackward0", True
    _reduce = "max"

    @classmethod
    def _fwd(cls, ctx, a, dim, keepdim):
        ctx.dims = normalize_dims(dim if dim != () else None, a.ndim)
        ctx.keepdim = keepdim
        # dims given for a 0-d input (dim=-1 or 0): torch's backward restores each as a size-1 dim
        ctx.dims_0d = 0 if a.ndim or dim in ((), None) else len(dim) if isinstance(dim, (tuple, list)) else 1
        out = contiguous_result(get_array_module(a).asarray(getattr(a, cls._reduce)(axis=ctx.dims, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def forward(ctx, a, dim=(), keepdim=False):
        return Amax._fwd(ctx, a, dim, keepdim)

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        shape = tuple(a.shape)
        if not ctx.keepdim:  # torch's restore_reduced_dims: a 0-d input reduced over a dim comes back as (1,)
            keep = _keep_shape(shape, ctx.dims) if shape else (1,) * ctx.dims_0d
            out, grad = out.reshape(keep), grad.reshape(keep)
        mask = (a == out)
        count = mask.sum(dim=ctx.dims if shape else tuple(range(mask.ndim)), keepdim=True)
        g = grad / count * mask  # torch's scale_grad_by_count, in its order
        # (1,) for a 0-d input: torch's engine sums it down (a SumBackward0 under create_graph; fuzz seed 5507280)
        return (g if tuple(g.shape) == shape else sum_to(g, shape)), None, None


class Amin(Amax):
    """out = min over ``dim`` (no indices); ties share the gradient. Saves a and out."""

    node_name, _reduce = "AminBackward0", "min"

    @staticmethod
    def forward(ctx, a, dim=(), keepdim=False):
        return Amin._fwd(ctx, a, dim, keepdim)


def _nonempty_dims(a, dims, name: str) -> None:
    """torch's check before a max/min-like reduction along ``dims`` (as the user gave them): none may be empty."""
    if not a.ndim or a.numel() > 0:
        return
    if a.requires_grad and is_grad_enabled():
        a.grad_fn  # noqa: B018 - torch's autograd reads the input's history first: a stale view's error wins
    if dims is None or dims == () or dims == []:  # every dim of an empty tensor (amax/amin's default)
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    for d in (dims if isinstance(dims, (tuple, list)) else (dims,)):
        if -a.ndim <= d < a.ndim and a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _max_min(a, dim, keepdim, other, all_cls, dim_cls, fn_name):
    if not isinstance(a, Tensor):
        given = (a,) + tuple(v for v in (dim, other) if v is not None) + ((keepdim,) if keepdim else ())
        raise not_a_tensor(fn_name, given)
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return maximum(a, other) if fn_name == "max" else minimum(a, other)
    if dim is None:
        return all_cls.apply(a)
    wrapped = dim % a.ndim if a.ndim and isinstance(dim, int) and -a.ndim <= dim < a.ndim else dim
    _nonempty_dims(a, wrapped, fn_name)  # torch names the wrapped dim here (amax/amin: the dim as given)
    v, i = dim_cls.apply(a, dim, keepdim)
    return values_indices(v, i)


def max(a, dim=None, keepdim: bool = False, other=None):
    return _max_min(a, dim, keepdim, other, MaxAll, MaxDim, "max")


def min(a, dim=None, keepdim: bool = False, other=None):
    return _max_min(a, dim, keepdim, other, MinAll, MinDim, "min")


def amax(a, dim=(), keepdim: bool = False):
    _nonempty_dims(a, dim, "amax")
    return Amax.apply(a, dim, keepdim)


def amin(a, dim=(), keepdim: bool = False):
    _nonempty_dims(a, dim, "amin")
    return Amin.apply(a, dim, keepdim)


def argmax(a, dim=None, keepdim: bool = False):
    if dim is not None:
        _nonempty_dims(a, dim % a.ndim if a.ndim else dim, "argmax")  # torch names the wrapped dim here
    if a._array.dtype.kind == "b":
        raise RuntimeError("argmax(): does not support bool input")
    if dim is None:  # the flat index (keepdim: in a tensor of a's rank, all dims 1)
        if a.numel() == 0:
            raise IndexError("argmax(): Expected reduction dim to be specified for input.numel() == 0.")
        flat = get_array_module(a._array).asarray(a._array.argmax())
        return Tensor._make(flat.reshape((1,) * a.ndim) if keepdim else flat)
    return max(a.detach(), dim, keepdim).indices


def argmin(a, dim=None, keepdim: bool = False):
    if dim is not None:
        _nonempty_dims(a, dim % a.ndim if a.ndim else dim, "argmin")  # torch names the wrapped dim here
    if a._array.dtype.kind == "b":
        raise RuntimeError("argmin(): does not support bool input")
    if dim is None:  # the flat index (keepdim: in a tensor of a's rank, all dims 1)
        if a.numel() == 0:
            raise IndexError("argmin(): Expected reduction dim to be specified for input.numel() == 0.")
        flat = get_array_module(a._array).asarray(a._array.argmin())
        return Tensor._make(flat.reshape((1,) * a.ndim) if keepdim else flat)
    return min(a.detach(), dim, keepdim).indices


aminmax_result = namedtuple("aminmax", ["min", "max"])


class Aminmax(Function):
    """(min, max) of a over ``dim`` (all elements if None); each gradient is shared evenly by the elements equal
    to its result. Saves a, max and min: torch AminmaxBackward0's order (self, max, min), which it unpacks in (the
    in-place error names the first changed one)."""

    node_name, array_forward = "AminmaxBackward0", True

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        if a.size == 0 or (dim is not None and a.ndim and a.shape[dim] == 0):
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axis = None if dim is None or a.ndim == 0 else dim
        lo = a.min(axis=axis, keepdims=True)
        hi = a.max(axis=axis, keepdims=True)
        ctx.dim = axis
        shape = lo.shape if keepdim or (dim is not None and a.ndim == 0) else \
            (() if axis is None else lo.shape[:axis] + lo.shape[axis + 1:])
        lo, hi = lo.reshape(shape), hi.reshape(shape)
        ctx.save_for_backward(a, hi, lo)
        ctx.set_materialize_grads(False)
        return lo, hi

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        a, hi, lo = ctx.saved_arrays
        axis = ctx.dim
        kept = tuple(1 if axis is None or k == axis else n for k, n in enumerate(a.shape))
        out = None
        for g, value in ((grad_min, lo), (grad_max, hi)):
            if g is None:  # torch adds only the gradients it was given (a zero would turn -0.0 into +0.0)
                continue
            mask = a == value.reshape(kept)
            count = Tensor._make(mask.sum(axis=axis, keepdims=True).astype(g._array.dtype))
            part = g.reshape(kept) / count * Tensor._make(mask.astype(g._array.dtype))  # torch's scale_grad_by_count
            out = part if out is None else out + part
        return out, None, None


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False):
    """(min, max) of input over dim (or all its elements), as a named tuple."""
    if dim is not None:
        dim = wrap_dim(dim, input.ndim)
    lo, hi = Aminmax.apply(input, dim, keepdim)
    return aminmax_result(lo, hi)
