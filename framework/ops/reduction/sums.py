"""Sums and means: sum, prod, mean, nansum, nanmean, logsumexp, count_nonzero, sum_to_size."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import dtypes
from ...backend import broadcast_view, get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result
from .._util import normalize_dims, not_a_tensor, read_history, scalar_type_name
from ..scalar_ops import DivScalar
from ..shape import cat


def _keep_shape(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _unsqueeze_dims(t, dims: tuple):
    """torch's unsqueeze_multiple: t with the reduced dims put back, one unsqueeze each (UnsqueezeBackward0s)."""
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def _no_dims(dim) -> bool:
    """An empty dim list (torch reduces every dim for it)."""
    return isinstance(dim, (tuple, list)) and len(dim) == 0


def _expand_back(grad, shape: tuple, dims: tuple, keepdim: bool):
    """Broadcast a reduced gradient back over the reduced dims (torch's sum_backward: ``dims`` () for a reduction
    given no dims, whose gradient is expanded as it is, without unsqueezes)."""
    if not keepdim and len(shape) > 0 and dims:
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
        ctx.given = dim is not None  # dim=None: torch's gradient is expanded without unsqueezes
        if dtype is None and a.dtype.kind in "bui":
            dtype = dtypes.int64.np
        return contiguous_result(get_array_module(a).asarray(a.sum(axis=ctx.dims, keepdims=keepdim, dtype=dtype)))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims if ctx.given else (), ctx.keepdim), None, None, None


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
        ctx.given = dim is not None  # dim=None: torch's gradient is expanded without unsqueezes
        ctx.n = 1
        for d in ctx.dims:
            ctx.n *= a.shape[d]
        return contiguous_result(get_array_module(a).asarray(a.mean(axis=ctx.dims, keepdims=keepdim, dtype=a.dtype)))

    @staticmethod
    def backward(ctx, grad):
        return DivScalar.apply(_expand_back(grad, ctx.shape, ctx.dims if ctx.given else (), ctx.keepdim), ctx.n), \
            None, None


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
    # torch: an empty dim list reduces every dim, as no dim does
    return Sum.apply(a, None if dim is NO_DIM or _no_dims(dim) else dim, keepdim, np_dt)


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
    return Mean.apply(a, None if dim is NO_DIM or _no_dims(dim) else dim, keepdim)


class Nansum(Function):
    """out = the sum over dim of the elements that are not NaN. Saves a."""

    node_name, array_forward = "NansumBackward0", True

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        xp = get_array_module(a)
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim, ctx.shape = dims, keepdim, a.shape
        clean = xp.where(xp.isnan(a), xp.zeros((), a.dtype), a) if a.dtype.kind in "fV" else a
        if dtype is None and a.dtype.kind in "bui":
            dtype = np.int64
        return xp.asarray(clean.sum(axis=dims, keepdims=keepdim, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        keep = Tensor._make((~get_array_module(a._array).isnan(a._array)).astype(grad._array.dtype))
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) * keep, None, None, None


class _SqueezePrivate(Function):
    """out = a reshaped to ``shape``: torch's in-place squeeze_ of a private result (quantile's last step), so not
    a view. Saves nothing."""

    node_name, array_forward = "SqueezeBackward4", True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum treating NaN as 0."""
    dims = normalize_dims(dim, input.ndim) if dim is not None and dim != () else tuple(range(input.ndim))
    return Nansum.apply(input, dims, keepdim, dtypes.to_numpy_dtype(dtype) if dtype is not None else None)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean of the elements that are not NaN: nansum / their count (torch's composition, DivBackward0)."""
    if input._array.dtype.kind not in "fV":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{scalar_type_name(input._array.dtype)}")
    count = input.isnan().logical_not().sum(dim=dim, keepdim=keepdim) if dim is not None else \
        input.isnan().logical_not().sum()
    return nansum(input, dim, keepdim, dtype=dtype).div(count)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    xp = get_array_module(input._array)
    axes = None if dim is None else normalize_dims(dim, input.ndim)
    counts = xp.count_nonzero(input._array, axis=axes)
    return Tensor._make(contiguous_result(xp.asarray(counts).astype(xp.int64, copy=False)))


class Logsumexp(Function):
    """out = log(sum(exp(a))) over dims, computed shifted by the max. Saves a and out."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

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
    read_history(input)  # before the dim is wrapped, as torch's
    return Logsumexp.apply(input, normalize_dims(dim, input.ndim), keepdim)


def sum_to_size(self: Tensor, *size) -> Tensor:
    """self summed down to ``size`` (which self's shape must be expandable from), as a broadcast's gradient."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = self.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(self.shape)}}}.")
    return sum_to(self, shape)
