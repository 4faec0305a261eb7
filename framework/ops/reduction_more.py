"""More reductions: nansum, nanmean, std_mean, var_mean, nanmedian, quantile, nanquantile, logcumsumexp,
trapezoid and cumulative_trapezoid.

nansum, std_mean/var_mean, nanmedian and logcumsumexp are one node each (torch's NansumBackward0...); nanmean,
quantile and the trapezoid rules are composed from ops as torch composes them, so their graphs end in the
same nodes (DivBackward0, SqueezeBackward4, MulBackward1...).
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function
from ..backend import errstate, get_array_module
from ..tensor import Tensor
from ._util import normalize_dims, scalar_type_name, wrap_dim
from .extrema import values_and_indices, values_indices
from .order_stats import _running
from .reduction import _expand_back, _unsqueeze_dims
from .scalar_ops import DivScalar, MulScalar
from .select_more import MedianAll, MedianDim


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


class VarMean(Function):
    """(var, mean) over dim with ``correction``, one node (VarMeanBackward0). Saves a."""

    node_name, array_forward = "VarMeanBackward0", True
    std = False

    @classmethod
    def forward(cls, ctx, a, dims, correction, keepdim):
        xp = get_array_module(a)
        ctx.set_materialize_grads(False)  # an unused output's gradient stays None (adding zeros turns -0.0 to +0.0)
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        ctx.n = int(np.prod([a.shape[d] for d in dims])) if dims else 1
        acc = np.float64 if a.dtype.itemsize < 8 else None
        with errstate(xp, divide="ignore", invalid="ignore"):
            v = a.var(axis=dims, ddof=correction, keepdims=keepdim, dtype=acc)
            out = xp.sqrt(v) if cls.std else v
        mean = a.mean(axis=dims, keepdims=keepdim)
        out = xp.asarray(out, dtype=a.dtype)
        ctx.save_for_backward(a, out if cls.std else None)  # as torch: std_mean also saves its std
        return out, xp.asarray(mean, dtype=a.dtype)

    @classmethod
    def backward(cls, ctx, g_out, g_mean):
        a, out = ctx.saved_tensors
        dims, keepdim, n = ctx.dims, ctx.keepdim, ctx.n
        gx = None
        centered = a - a.mean(dim=dims, keepdim=True) if dims else a - a.mean()
        dof = n - ctx.correction
        if g_out is not None:
            g = g_out
            if cls.std:  # d std = d var / (2 std), 0 where the std is 0
                zero = Tensor._make(out._array == 0)
                g = (g / MulScalar.apply(out.masked_fill(zero, 1.0), 2)).masked_fill(zero, 0.0)
            if not keepdim and a.ndim > 0 and dims:
                g = _unsqueeze_dims(g, dims)
            gx = MulScalar.apply(g, 2.0 / dof if dof > 0 else math.inf) * centered
        if g_mean is not None:
            gm = DivScalar.apply(_expand_back(g_mean, tuple(a.shape), dims, keepdim), n)
            gx = gm if gx is None else gx + gm
        return gx, None, None, None


class StdMean(VarMean):
    """(std, mean) over dim with ``correction``, one node (StdMeanBackward0). Saves a and the std."""

    node_name, std = "StdMeanBackward0", True


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


class Logcumsumexp(Function):
    """out = log of the running sum of e**a along dim, stable. Saves a and out."""

    node_name, array_forward = "LogcumsumexpBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        xp = get_array_module(a)
        with errstate(xp, over="ignore", invalid="ignore"):
            # + 0.0: torch's first element is logaddexp(-inf, a) = a + log1p(0), so -0.0 comes out +0.0
            out = (_running(xp.logaddexp, a, dim) if a.ndim else a.copy()) + a.dtype.type(0)
        ctx.save_for_backward(a, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        d = ctx.dim
        if a.ndim == 0:
            return grad, None

        def reverse(t):  # the running logsumexp from the end
            return Logcumsumexp.apply(t.flip(d), d).flip(d)

        # torch's logcumsumexp_backward: the positive and negative parts of grad in log space
        lowest = float(ml_dtypes.finfo(grad._array.dtype).min)
        log_abs = grad.abs().log()
        pos = log_abs.masked_fill(Tensor._make(~(grad._array > 0)), lowest)
        neg = log_abs.masked_fill(Tensor._make(~(grad._array < 0)), lowest)
        return (reverse(pos - out) + a).exp() - (reverse(neg - out) + a).exp(), None


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


# ---- the functional API ---------------------------------------------------------------------------------

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


def _var_mean_args(fn: str, input, dim, unbiased, keepdim, correction):
    if input._array.dtype.kind not in "fV":
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var_mean(x, unbiased)
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = normalize_dims(dim, input.ndim)
    return dims, correction, keepdim


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(var, mean) over dim, one node."""
    return VarMean.apply(input, *_var_mean_args("var_mean", input, dim, unbiased, keepdim, correction))


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(std, mean) over dim, one node."""
    return StdMean.apply(input, *_var_mean_args("std_mean", input, dim, unbiased, keepdim, correction))


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median ignoring NaN, or (values, indices) along dim."""
    if dim is None:
        return NanmedianAll.apply(input)
    v, i = NanmedianDim.apply(input, dim, keepdim)
    return values_indices(v, i)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    if input._array.dtype.kind not in "fV":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{scalar_type_name(input._array.dtype)}'")
    return Logcumsumexp.apply(input, wrap_dim(dim, input.ndim))


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
        x = input.movedim(d, -1) if input.ndim else input.reshape(1)
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


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The q-th quantiles (q a number or 1-D tensor) over all elements or along dim; NaN if a NaN is there."""
    if _amp.on and autocast_applies("quantile", input, q, dim, keepdim):
        return autocast_run("quantile", quantile, input, q, dim, keepdim, interpolation=interpolation)
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """quantile ignoring NaN (NaN only where all are)."""
    if _amp.on and autocast_applies("nanquantile", input, q, dim, keepdim):
        return autocast_run("nanquantile", nanquantile, input, q, dim, keepdim, interpolation=interpolation)
    return _quantile(input, q, dim, keepdim, interpolation, True)


def _dx_tensor(y: Tensor, x: Tensor, dim: int, fn: str) -> Tensor:
    """The sample spacings of x, shaped to broadcast along y's dim (torch's rules and message)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
        dx = x[1:] - x[:-1]
        return dx.view(tuple(dx.shape[0] if i == dim else 1 for i in range(y.ndim)))
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
    return x.narrow(dim, 1, x.shape[dim] - 1) - x.narrow(dim, 0, x.shape[dim] - 1)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The trapezoid rule's integral of y along dim, with sample points x or a constant spacing dx."""
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx as arguments, but only one may be specified.")
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    if isinstance(x, Tensor):
        if n == 0:
            return y.sum(d) * 0
        spacing = _dx_tensor(y, x, d, "trapezoid")
        pairs = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        return DivScalar.apply((spacing * pairs).sum(d), 2.0)
    step = 1.0 if dx is None else dx
    if n == 0:
        return MulScalar.apply(y.sum(d), 0.0)
    # torch's do_trapezoid: (sum(y) - (y[0] + y[-1]) * 0.5) * dx
    ends = MulScalar.apply(y.select(d, 0) + y.select(d, -1), 0.5)
    return MulScalar.apply(y.sum(d) - ends, step)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The running trapezoid-rule integral of y along dim (one element fewer than y there)."""
    if x is not None and dx is not None:
        raise RuntimeError("cumulative_trapezoid: received both x and dx as arguments, but only one may be "
                           "specified.")
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    left, right = y.narrow(d, 1, max(n - 1, 0)), y.narrow(d, 0, max(n - 1, 0))
    if isinstance(x, Tensor):
        spacing = _dx_tensor(y, x, d, "cumulative_trapezoid")
        return DivScalar.apply((spacing * (left + right)).cumsum(d), 2.0)
    step = 1.0 if dx is None else dx
    return MulScalar.apply(left + right, step / 2.0).cumsum(d)

