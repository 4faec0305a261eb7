"""Reductions: sum, mean, var, std (op classes, then the functional API); max/min/amax/amin are in extrema.py."""
from __future__ import annotations

import math

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..backend import errstate as _errstate
from ..backend import broadcast_view, get_array_module
from ..tensor import Tensor
from ._layout import contiguous_result
from ._util import normalize_dims, not_a_tensor
from .combine import cat
from .scalar_ops import DivScalar, MulScalar


def _keep_shape(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _unsqueeze_dims(t, dims: tuple):
    """torch's unsqueeze_multiple: t with the reduced dims put back, one unsqueeze each (UnsqueezeBackward0s)."""
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def _expand_back(grad, shape: tuple, dims: tuple, keepdim: bool):
    """Broadcast a reduced gradient back over the reduced dims (torch's sum_backward)."""
    if not keepdim and len(shape) > 0:
        grad = _unsqueeze_dims(grad, dims)
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
        return broadcast_view(g, ctx.shape), None


class Sum(Function):
    """out = sum over ``dim``. Saves nothing."""

    node_name, array_forward = "SumBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, normalize_dims(dim, a.ndim), keepdim
        if dtype is None and a.dtype.kind in "bui":
            dtype = dtypes.int64.np
        return contiguous_result(get_array_module(a).asarray(a.sum(axis=ctx.dims, keepdims=keepdim, dtype=dtype)))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


def _mean_check(a):
    if a.dtype.kind not in "fV":
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
        return DivScalar.apply(grad.expand(ctx.shape), ctx.n)  # torch's / numel: DivBackward1 under create_graph

    @staticmethod
    def backward_arrays(ctx, g):
        # divide after broadcasting, as backward(): a dense gradient (one that in-place ops may write into)
        return (get_array_module(g).broadcast_to(g, ctx.shape) / ctx.n,)


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
        return contiguous_result(get_array_module(a).asarray(a.mean(axis=ctx.dims, keepdims=keepdim, dtype=a.dtype)))

    @staticmethod
    def backward(ctx, grad):
        return DivScalar.apply(_expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), ctx.n), None, None


def _var_setup(ctx, a, dim, correction, keepdim) -> None:
    """What var and std both remember: the reduced dims, their element count N, correction, keepdim."""
    if a.dtype.kind not in "fV":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    ctx.dims = normalize_dims(dim, a.ndim)
    ctx.all_dims = dim is None or a.ndim == 0  # torch's var_backward then uses a.mean(), no unsqueeze
    ctx.keepdim, ctx.correction = keepdim, correction
    ctx.n = 1
    for d in ctx.dims:
        ctx.n *= a.shape[d]


def _acc_dtype(a):
    """The dtype torch's CPU var/std accumulate a float array in: double for float and half (so 1e30 ** 2 does
    not overflow a float32 variance, and the float32 result is the double one rounded, bit for bit)."""
    return np.float64 if a.dtype.kind in "fV" and a.dtype.itemsize < 8 else None


class Var(Function):
    """out = sum((a - mean)**2) / (N - correction) over ``dim``. Saves a."""

    node_name, array_forward = "VarBackward0", True

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        _var_setup(ctx, a, dim, correction, keepdim)
        ctx.save_for_backward(a)
        with _errstate(get_array_module(a), divide="ignore", invalid="ignore"):
            out = a.var(axis=ctx.dims, ddof=correction, keepdims=keepdim, dtype=_acc_dtype(a))
        return contiguous_result(get_array_module(a).asarray(out, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # torch's var_backward: (2 / dof) * grad (the Scalar product) * (a - mean), grad unsqueezed first
        dof = ctx.n - ctx.correction
        scale = 2.0 / dof if dof != 0 else math.inf
        if ctx.all_dims:
            return MulScalar.apply(grad, scale) * (a - a.mean()), None, None, None
        if not ctx.keepdim and a.ndim > 1:
            grad = _unsqueeze_dims(grad, ctx.dims)
        return MulScalar.apply(grad, scale) * (a - a.mean(dim=ctx.dims, keepdim=True)), None, None, None


class Std(Function):
    """out = sqrt(var(a)) over ``dim``. Saves a and out."""

    node_name, array_forward = "StdBackward0", True

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        _var_setup(ctx, a, dim, correction, keepdim)
        xp = get_array_module(a)
        with _errstate(xp, divide="ignore", invalid="ignore"):
            out = contiguous_result(xp.asarray(a.std(axis=ctx.dims, ddof=correction, keepdims=keepdim,
                                                     dtype=_acc_dtype(a)), dtype=a.dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        # torch's std_backward, (grad / (result * 2)).masked_fill_(result == 0, 0), then var_backward on it (the
        # nodes a create_graph gradient shows); the gradient is 0, not 0/0, where the std is 0 (a constant or
        # single element): unlike torch, the divisor is masked too, so no NaN comes back at higher orders
        zero = out == 0
        scale = (grad / MulScalar.apply(out.masked_fill(zero, 1.0), 2)).masked_fill(zero, 0.0)
        if ctx.all_dims:
            centered = a - a.mean()
        else:
            if not ctx.keepdim and a.ndim > 1:
                scale = _unsqueeze_dims(scale, ctx.dims)
            centered = a - a.mean(dim=ctx.dims, keepdim=True)
        dof = ctx.n - ctx.correction
        return MulScalar.apply(scale, 2.0 / dof if dof > 0 else math.inf) * centered, None, None, None


def _prod_safe_zeros_backward(grad, a, dim: int):
    """prod's gradient along ``dim`` when ``a`` holds zeros (torch's prod_safe_zeros_backward, op for op): grad
    times the exclusive cumulative products from both sides, which never divide by zero and stay differentiable
    in ``a`` (for double backward); a dim of size 1 passes grad itself on."""
    if a.numel() == 0:
        return grad.expand_as(a)
    n = a.shape[dim]
    if n == 1:
        return grad
    ones_shape = list(a.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(get_array_module(a._array).ones(tuple(ones_shape), dtype=grad._array.dtype))
    normal = cat([ones, a.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    reverse = cat([ones, a.narrow(dim, 1, n - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (normal * reverse)


def _prod_dtype(a, dtype):
    if dtype is None and a.dtype.kind in "bui":
        return dtypes.int64.np
    return dtype


class ProdAll(Function):
    """out = product of all elements. Saves a and out."""

    node_name, array_forward = "ProdBackward0", True

    @staticmethod
    def forward(ctx, a, dtype=None):
        out = get_array_module(a).asarray(a.prod(dtype=_prod_dtype(a, dtype)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):  # torch's prod_backward, op for op
        a, out = ctx.saved_tensors
        if a.ndim == 0:  # a 0-d input's gradient is grad itself (no graph through a)
            return grad, None
        zeros = int((a == 0).sum())
        if zeros == 0:
            return grad * (out / a), None
        if zeros > 1 and not is_grad_enabled():  # every other-product is 0: exactly +0.0 (grad * 0 gives -0.0, NaN)
            return Tensor._make(get_array_module(a._array).zeros_like(a._array)), None
        return _prod_safe_zeros_backward(grad, a.contiguous().view(-1), 0).view_as(a), None


class Prod(Function):
    """out = product over ``dim``. Saves a and out."""

    node_name, array_forward = "ProdBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        ctx.dims, ctx.keepdim = normalize_dims(dim, a.ndim), keepdim
        out = contiguous_result(get_array_module(a).asarray(a.prod(axis=ctx.dims, keepdims=keepdim,
                                                               dtype=_prod_dtype(a, dtype))))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if a.ndim == 0:  # torch's prod_backward: a 0-d input's gradient is grad itself (no graph through a)
            return grad, None, None, None
        if not ctx.keepdim:  # torch's prod_backward: grad and result unsqueezed at dim
            grad, out = _unsqueeze_dims(grad, ctx.dims), _unsqueeze_dims(out, ctx.dims)
        if not bool((a == 0).any()):
            return grad * (out / a), None, None, None
        return _prod_safe_zeros_backward(grad, a, ctx.dims[0]), None, None, None


# ---- functional API ---------------------------------------------------------------------------------

class _NoDim:
    """sum/mean's default dim: torch's ``x.sum()`` (SumBackward0) is another overload than ``x.sum(dim=None)``
    (SumBackward1: every dim, keepdim honoured)."""

    def __repr__(self) -> str:
        return "None"


NO_DIM = _NoDim()


def sum(a, dim=NO_DIM, keepdim: bool = False, *, dtype=None):
    if not isinstance(a, Tensor):
        raise not_a_tensor("sum", (a,) + ((dim,) if dim is not NO_DIM else ()) + ((keepdim,) if keepdim else ()))
    if _amp.on and autocast_applies("sum", a, dim, keepdim):
        return autocast_run("sum", sum, a, dim, keepdim, dtype=dtype)
    np_dt = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    if dim is NO_DIM and not keepdim:
        return SumAll.apply(a, np_dt) if np_dt is not None else SumAll.apply(a)
    return Sum.apply(a, tuple(range(a.ndim)) if dim is None or dim is NO_DIM else dim, keepdim, np_dt)


def prod(a, dim=None, keepdim: bool = False, *, dtype=None):
    """Product of all elements, or over one ``dim``."""
    if not isinstance(a, Tensor):
        raise not_a_tensor("prod", (a,) + tuple(v for v in (dim,) if v is not None) + ((keepdim,) if keepdim else ()))
    if _amp.on and autocast_applies("prod", a, dim, keepdim):
        return autocast_run("prod", prod, a, dim, keepdim, dtype=dtype)
    np_dt = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    if dim is None:
        return ProdAll.apply(a, np_dt)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError("prod(): argument 'dim' must be int, not " + type(dim).__name__)
    return Prod.apply(a, dim, keepdim, np_dt)


def mean(a, dim=NO_DIM, keepdim: bool = False, *, dtype=None):
    if not isinstance(a, Tensor):
        raise not_a_tensor("mean", (a,) + ((dim,) if dim is not NO_DIM else ()) + ((keepdim,) if keepdim else ()))
    if dtype is not None:
        a = a.to(dtype)
    if dim is NO_DIM and not keepdim:
        return MeanAll.apply(a)
    return Mean.apply(a, tuple(range(a.ndim)) if dim is None or dim is NO_DIM else dim, keepdim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return Var.apply(a, dim, _correction(unbiased, correction), keepdim)


def std(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return Std.apply(a, dim, _correction(unbiased, correction), keepdim)
