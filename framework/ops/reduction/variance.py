"""Spread: var, std, var_mean, std_mean, cov, corrcoef."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...autograd.function import Function
from ... import dtypes
from ...backend import errstate, errstate as _errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result
from .._util import normalize_dims, scalar_type_name
from ..pointwise.conditional import where
from ..scalar_ops import DivScalar, MulScalar
from .sums import _expand_back, _unsqueeze_dims


def _long(like: Tensor, value: int) -> Tensor:
    """torch's at::scalar_tensor(value, in.options().dtype(kLong)): a 0-d int64 constant."""
    return Tensor._make(get_array_module(like._array).asarray(value, dtype=dtypes.int64.np))


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in columns), as torch composes it."""
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype == dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.ndim} dimensions")
        if fweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{scalar_type_name(fweights._array.dtype)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n}")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.ndim} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{scalar_type_name(aweights._array.dtype)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n}")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else _long(x, n)
    if w is not None and not bool(w_sum.ne(0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - MulScalar.apply((w * aweights).sum(), correction) / w_sum  # torch's int * Tensor
    else:
        norm_factor = w_sum - correction if correction != 0 else w_sum  # torch: no SubBackward0 for 0
    if bool(norm_factor.le(0)):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t())
    return c.true_divide(norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of input's rows, clipped to [-1, 1] (torch's composition)."""
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c  # a scalar covariance: NaN for nan/inf/0, 1 otherwise
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


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


def _no_dof_grad(grad: Tensor, a: Tensor) -> Tensor:
    """torch's var_backward over all elements with dof <= 0: grad * where(a == a.mean(), nan, inf), a factor
    with no graph through a (so a create_graph gradient of a constant grad does not require grad)."""
    return grad * where(a == a.mean(), math.nan, math.inf)


def _shifted(a, dims: tuple, acc, every: bool = False):
    """a minus its first element along ``dims`` (in the accumulation dtype) when some dims are left: the variance is
    the same, and a run of equal values gives exactly 0, as torch's Welford kernel for a reduction over some dims
    (NumPy's two passes leave the rounding of sum / N: std of three 1.35s is 2.7e-16 there, fuzz seed 3603660).
    Over every dim var and std take two passes in torch too, as NumPy (a left as it is); var_mean and std_mean
    always take Welford's (``every``)."""
    if a.ndim == 0 or a.size == 0 or not dims or (len(set(dims)) == a.ndim and not every):
        return a
    first = a[tuple(slice(0, 1) if d in dims else slice(None) for d in range(a.ndim))]
    return a.astype(acc, copy=False) - first.astype(acc, copy=False) if acc is not None else a - first


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
            acc = _acc_dtype(a)
            out = _shifted(a, ctx.dims, acc).var(axis=ctx.dims, ddof=correction, keepdims=keepdim, dtype=acc)
        return contiguous_result(get_array_module(a).asarray(out, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # torch's var_backward: (2 / dof) * grad (the Scalar product) * (a - mean), grad unsqueezed first
        dof = ctx.n - ctx.correction
        scale = 2.0 / dof if dof != 0 else math.inf
        if ctx.all_dims:
            if dof <= 0:
                return _no_dof_grad(grad, a), None, None, None
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
            acc = _acc_dtype(a)
            out = contiguous_result(xp.asarray(_shifted(a, ctx.dims, acc).std(
                axis=ctx.dims, ddof=correction, keepdims=keepdim, dtype=acc), dtype=a.dtype))
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
        dof = ctx.n - ctx.correction
        if ctx.all_dims and dof <= 0:  # torch's var_backward over all elements with no degrees of freedom
            return _no_dof_grad(scale, a), None, None, None
        if ctx.all_dims:
            centered = a - a.mean()
        else:
            if not ctx.keepdim and a.ndim > 1:
                scale = _unsqueeze_dims(scale, ctx.dims)
            centered = a - a.mean(dim=ctx.dims, keepdim=True)
        return MulScalar.apply(scale, 2.0 / dof if dof != 0 else math.inf) * centered, None, None, None


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


class VarMean(Function):
    """(var, mean) over dim with ``correction``, one node (VarMeanBackward0). Saves a."""

    node_name, array_forward = "VarMeanBackward0", True
    std = False

    @classmethod
    def forward(cls, ctx, a, dims, correction, keepdim, all_dims=False):
        xp = get_array_module(a)
        ctx.set_materialize_grads(False)  # an unused output's gradient stays None (adding zeros turns -0.0 to +0.0)
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        ctx.all_dims = all_dims
        ctx.n = int(np.prod([a.shape[d] for d in dims])) if dims else 1
        acc = np.float64 if a.dtype.itemsize < 8 else None
        with errstate(xp, divide="ignore", invalid="ignore"):
            v = _shifted(a, tuple(dims), acc, every=True).var(axis=dims, ddof=correction, keepdims=keepdim, dtype=acc)
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
        dof = n - ctx.correction
        if g_out is not None:
            g = g_out
            if cls.std:  # d std = d var / (2 std), 0 where the std is 0
                zero = Tensor._make(out._array == 0)
                g = (g / MulScalar.apply(out.masked_fill(zero, 1.0), 2)).masked_fill(zero, 0.0)
            if ctx.all_dims and dof <= 0:  # torch's var_backward, as Var's
                gx = _no_dof_grad(g, a)
            else:
                if not keepdim and a.ndim > 0 and dims:
                    g = _unsqueeze_dims(g, dims)
                centered = a - a.mean(dim=dims, keepdim=True) if dims else a - a.mean()
                gx = MulScalar.apply(g, 2.0 / dof if dof != 0 else math.inf) * centered
        if g_mean is not None:
            gm = DivScalar.apply(_expand_back(g_mean, tuple(a.shape), dims, keepdim), n)
            gx = gm if gx is None else gx + gm
        return gx, None, None, None, None


class StdMean(VarMean):
    """(std, mean) over dim with ``correction``, one node (StdMeanBackward0). Saves a and the std."""

    node_name, std = "StdMeanBackward0", True


def _var_mean_args(fn: str, input, dim, unbiased, keepdim, correction):
    if input._array.dtype.kind not in "fV":
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var_mean(x, unbiased)
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = normalize_dims(dim, input.ndim)
    return dims, correction, keepdim, dim is None or input.ndim == 0  # all dims: torch's var_backward rule


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(var, mean) over dim, one node."""
    return VarMean.apply(input, *_var_mean_args("var_mean", input, dim, unbiased, keepdim, correction))


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(std, mean) over dim, one node."""
    return StdMean.apply(input, *_var_mean_args("std_mean", input, dim, unbiased, keepdim, correction))
