"""Reductions: sum, mean, max/min (whole tensor or along a dim), amax/amin, var, std."""
from __future__ import annotations

from .. import dtypes
from ..autograd.function import Function
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ._util import normalize_dims
from ..tensor import Tensor


def _keep_shape(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _expand_back(grad, shape: tuple, dims: tuple, keepdim: bool):
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim:
        grad = grad.reshape(_keep_shape(shape, dims))
    return grad.expand(shape)


class SumAll(Function):
    """out = sum of all elements. Saves nothing."""

    node_name, array_forward = "SumBackward0", True

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.shape = a.shape
        xp = get_array_module(a)
        if dtype is None and a.dtype.kind in "bui":
            dtype = dtypes.int64.np
        return xp.asarray(a.sum(dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape), None

    @staticmethod
    def backward_arrays(ctx, g):
        return get_array_module(g).broadcast_to(g, ctx.shape), None


class Sum(Function):
    """out = sum over ``dim``. Saves nothing."""

    node_name, array_forward = "SumBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, normalize_dims(dim, a.ndim), keepdim
        if dtype is None and a.dtype.kind in "bui":
            dtype = dtypes.int64.np
        return get_array_module(a).asarray(a.sum(axis=ctx.dims, keepdims=keepdim, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


def _mean_check(a):
    if a.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {dtypes.from_numpy_dtype(a.dtype).legacy.replace('Tensor', '')}")


class MeanAll(Function):
    """out = mean of all elements. Saves nothing."""

    node_name, array_forward = "MeanBackward0", True

    @staticmethod
    def forward(ctx, a):
        _mean_check(a)
        ctx.shape, ctx.n = a.shape, a.size
        return get_array_module(a).asarray(a.mean(dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape) / ctx.n

    @staticmethod
    def backward_arrays(ctx, g):
        return (get_array_module(g).broadcast_to(g / ctx.n, ctx.shape),)


class Mean(Function):
    """out = mean over ``dim``. Saves nothing."""

    node_name, array_forward = "MeanBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        _mean_check(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, normalize_dims(dim, a.ndim), keepdim
        ctx.n = 1
        for d in ctx.dims:
            ctx.n *= a.shape[d]
        return get_array_module(a).asarray(a.mean(axis=ctx.dims, keepdims=keepdim, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n, None, None


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
        mask = (a == out)
        return grad * mask / mask.sum()


class MinAll(MaxAll):
    """out = min of all elements; ties share the gradient evenly. Saves a and out."""

    node_name, _reduce = "MinBackward1", "min"

    @staticmethod
    def forward(ctx, a):
        return MinAll._fwd(ctx, a)


class MaxDim(Function):
    """(values, indices) = max along ``dim``. Saves the indices."""

    node_name, array_forward = "MaxBackward0", True
    _arg = "argmax"

    @classmethod
    def _fwd(cls, ctx, a, dim, keepdim):
        xp = get_array_module(a)
        (d,) = normalize_dims(dim, a.ndim)
        idx = getattr(xp, cls._arg)(a, axis=d)
        idx = xp.expand_dims(idx, d)
        values = xp.take_along_axis(a, idx, axis=d)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, d, keepdim
        ctx.indices = idx
        if not keepdim:
            values, idx = values.squeeze(d), idx.squeeze(d)
        idx = idx.astype(dtypes.int64.np)
        ctx.mark_non_differentiable(idx)
        return values, idx

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        return MaxDim._fwd(ctx, a, dim, keepdim)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        xp = get_array_module(ctx.indices)
        positions = xp.arange(ctx.shape[ctx.dim]).reshape([-1 if i == ctx.dim else 1 for i in range(len(ctx.shape))])
        mask = Tensor._make(positions == ctx.indices)
        g = grad if ctx.keepdim else grad.unsqueeze(ctx.dim)
        return g.expand(ctx.shape) * mask, None, None


class MinDim(MaxDim):
    """(values, indices) = min along ``dim``. Saves the indices."""

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
        out = get_array_module(a).asarray(getattr(a, cls._reduce)(axis=ctx.dims, keepdims=keepdim))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def forward(ctx, a, dim=(), keepdim=False):
        return Amax._fwd(ctx, a, dim, keepdim)

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        shape = a.shape
        if not ctx.keepdim:
            out = out.reshape(_keep_shape(shape, ctx.dims))
            grad = grad.reshape(_keep_shape(shape, ctx.dims))
        mask = (a == out)
        count = mask.sum(dim=ctx.dims, keepdim=True)
        return grad * mask / count, None, None


class Amin(Amax):
    """out = min over ``dim`` (no indices); ties share the gradient. Saves a and out."""

    node_name, _reduce = "AminBackward0", "min"

    @staticmethod
    def forward(ctx, a, dim=(), keepdim=False):
        return Amin._fwd(ctx, a, dim, keepdim)


class Var(Function):
    """out = sum((a - mean)**2) / (N - correction) over ``dim``. Saves a."""

    node_name, array_forward = "VarBackward0", True

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        _mean_check(a)
        ctx.dims = normalize_dims(dim, a.ndim)
        ctx.keepdim, ctx.correction = keepdim, correction
        ctx.n = 1
        for d in ctx.dims:
            ctx.n *= a.shape[d]
        ctx.save_for_backward(a)
        with _errstate(get_array_module(a), divide="ignore", invalid="ignore"):
            out = a.var(axis=ctx.dims, ddof=correction, keepdims=keepdim)
        return get_array_module(a).asarray(out, dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(a.shape, ctx.dims))
        centered = a - a.mean(dim=ctx.dims, keepdim=True)
        return grad * centered * (2.0 / (ctx.n - ctx.correction)), None, None, None


class Std(Function):
    """out = sqrt(var(a)) over ``dim``. Saves a and out."""

    node_name, array_forward = "StdBackward0", True

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        _mean_check(a)
        ctx.dims = normalize_dims(dim, a.ndim)
        ctx.keepdim, ctx.correction = keepdim, correction
        ctx.n = 1
        for d in ctx.dims:
            ctx.n *= a.shape[d]
        xp = get_array_module(a)
        with _errstate(xp, divide="ignore", invalid="ignore"):
            out = xp.asarray(a.std(axis=ctx.dims, ddof=correction, keepdims=keepdim), dtype=a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(a.shape, ctx.dims))
            out = out.reshape(_keep_shape(a.shape, ctx.dims))
        centered = a - a.mean(dim=ctx.dims, keepdim=True)
        return grad * centered / (out * (ctx.n - ctx.correction)), None, None, None
