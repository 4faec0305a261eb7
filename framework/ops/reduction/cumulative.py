"""Scans along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp, diff, trapezoid and cumulative_trapezoid."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function, OriginalSelf
from ...autograd.grad_mode import is_grad_enabled
from ... import dtypes
from ...backend import errstate, get_array_module
from ...creation import zeros
from ...tensor import Tensor
from ..pointwise.unary_inplace import _inplace
from .sums import prod
from ...memory_layout import contiguous_result
from .._util import check_inplace_cast, scalar_type_name, values_indices, wrap_dim
from ..indexing import ScatterAdd, Slice
from ..pointwise import logical_xor
from ..scalar_ops import DivScalar, MulScalar
from ..shape import Cat, cat


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


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    if input._array.dtype.kind not in "fV":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{scalar_type_name(input._array.dtype)}'")
    return Logcumsumexp.apply(input, wrap_dim(dim, input.ndim))


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


def _running_in_double(fn, a, dim: int):
    """fn (cumsum or cumprod) of a float array as torch's CPU kernel: accumulated in double (its acc_type for
    float and half), each step rounded to a's dtype."""
    acc = a.dtype if a.dtype.itemsize >= 8 else np.float64
    return fn(a, axis=dim, dtype=acc).reshape(a.shape).astype(a.dtype, copy=False)


class Cumsum(Function):
    """out = running sum along dim. Saves nothing."""

    node_name, array_forward = "CumsumBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim, ctx.dtype = dim, a.dtype
        xp = get_array_module(a)
        if a.dtype.kind not in "fV":
            # (numpy flattens a 0-d input to (1,))
            return contiguous_result(xp.cumsum(a, axis=dim, dtype=np.int64).reshape(a.shape))
        out = contiguous_result(_running_in_double(xp.cumsum, a, dim))  # torch's: row-major, whatever a's layout
        out += 0  # torch's running sum starts from +0.0: a leading -0.0 gives +0.0, as there
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch's cumsum_backward: the reversed running sum, flip(cumsum(flip(grad))) (grad itself when trivial)
        if grad.numel() <= 1 or grad.shape[ctx.dim] == 1:
            return grad, None
        return Cumsum.apply(grad.flip(ctx.dim), ctx.dim).flip(ctx.dim), None


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    if _amp.on and autocast_applies("cumsum", input, dim):
        return autocast_run("cumsum", cumsum, input, dim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    return Cumsum.apply(input, wrap_dim(dim, input.ndim))


class Cumprod(Function):
    """out = running product along dim. Saves a and out."""

    node_name, array_forward = "CumprodBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        xp = get_array_module(a)
        if a.dtype.kind in "fV":
            out = _running_in_double(xp.cumprod, a, dim)
        else:
            out = xp.cumprod(a, axis=dim).reshape(a.shape)  # numpy flattens a 0-d input
        out = contiguous_result(out)  # torch's: row-major, whatever a's layout
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch's cumprod_backward, op for op, so that NaN and inf spread to the same places
        a, out = ctx.saved_tensors
        dim = ctx.dim
        if a.numel() <= 1 or a.shape[dim] == 1:  # the product of one element: the element itself
            return grad, None
        w = out * grad
        if not bool((a == 0).any()):  # dy_j/da_k = y_j / a_k: the reversed running sum of w, over a
            return _reversed_cumsum(w, dim) / a, None
        if is_grad_enabled():
            return _cumprod_backward_omitted(grad, a, dim), None
        return Tensor._make(_cumprod_backward_zeros(grad._array, a._array, out._array, w._array, dim)), None


def _reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    """sum_{j >= k} w_j along dim: flip, running sum, flip (a NaN reaches only the places before it)."""
    return Cumsum.apply(w.flip(dim), dim).flip(dim)


def _cumprod_backward_zeros(grad, a, out, w, dim: int):
    """cumprod's input gradient where a holds zeros, without graph (torch's O(n) masks): before the first zero
    z1, the no-zero formula on w cut at z1; at z1, prod(a[:z1]) * sum_j grad_j * prod(a(z1, j]) up to the second
    zero; after z1, zero."""
    xp = get_array_module(a)
    zeros_so_far = xp.cumsum(a == 0, axis=dim)
    before = zeros_so_far == 0
    with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
        cut = _running_in_double(xp.cumsum, xp.flip(xp.where(before, w, 0), dim), dim)
        result = xp.where(before, xp.flip(cut, dim) / a, xp.zeros_like(grad))
    first_run = zeros_so_far == 1
    z1 = xp.argmax(first_run, axis=dim)[(slice(None),) * dim + (None,)]  # the first zero's index (0 when none)
    positions = xp.arange(a.shape[dim]).reshape((-1,) + (1,) * (a.ndim - dim - 1))
    at_z1 = (positions == z1) & first_run
    between = first_run & ~at_z1
    with errstate(xp, over="ignore", invalid="ignore"):
        after_z1 = _running_in_double(xp.cumprod, xp.where(between, a, xp.ones_like(a)), dim)
        total = (after_z1 * xp.where(first_run, grad, xp.zeros_like(grad))).sum(axis=dim, keepdims=True)
        until_z1 = xp.take_along_axis(out, xp.maximum(z1 - 1, 0), axis=dim)
        total = total * xp.where(z1 == 0, xp.ones_like(until_z1), until_z1)
    return xp.where(at_z1, total, result).astype(grad.dtype, copy=False)


def _cumprod_backward_omitted(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    """cumprod's input gradient where a holds zeros, differentiable (create_graph): for each k,
    sum_{j >= k} grad_j * prod_{i <= j, i != k} a_i, from the products before k and the running products after k."""
    n = a.shape[dim]
    ones_shape = list(a.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(get_array_module(a._array).ones(tuple(ones_shape), dtype=grad._array.dtype))
    slices = []
    for k in range(n):
        if k == 0:
            omitted = cat([ones, Cumprod.apply(a.narrow(dim, 1, n - 1), dim)], dim)
        else:
            until_k = prod(a.narrow(dim, 0, k), dim, True)
            omitted = until_k
            if k < n - 1:
                from_k = Cumprod.apply(a.narrow(dim, k + 1, n - k - 1), dim)
                omitted = cat([until_k, until_k.expand_as(from_k) * from_k], dim)
        slices.append((grad.narrow(dim, k, n - k) * omitted).sum(dim, keepdim=True))
    return cat(slices, dim)


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    if _amp.on and autocast_applies("cumprod", input, dim):
        return autocast_run("cumprod", cumprod, input, dim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    return Cumprod.apply(input, wrap_dim(dim, input.ndim))


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along dim (out[i] = x[i + 1] - x[i]), after cat'ing prepend and append."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.ndim)
    for p in (prepend, append):
        if p is None:
            continue
        if p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for k in range(input.ndim):
            if k != dim and p.shape[k] != input.shape[k]:
                raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({k}) = {input.shape[k]}, "
                                   f"but got tensor.size({k}) = {p.shape[k]}")
    if n == 0:  # torch: the input as it is, prepend and append left out
        return input
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        size = x.shape[dim]
        if size == 0:
            break
        hi, lo = Slice.apply(x, dim, slice(1, size)), Slice.apply(x, dim, slice(0, size - 1))
        x = logical_xor(hi, lo) if x.dtype.np == np.bool_ else hi - lo
    return x


CumsumInplace = _inplace(Cumsum, "CumsumInplace")


class CumprodInplace(Cumprod):
    """In-place cumprod_: saves a copy of the old a (torch's original_self) and the result (a itself now)."""

    node_name, inplace = "CumprodBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        out = Cumprod.forward(ctx, a, dim)
        if out.dtype != a.dtype:
            check_inplace_cast(out.dtype, a.dtype)
        ctx.save_for_backward(OriginalSelf(a.copy()), a)
        a[...] = out
        return a


def cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype}, but got {self.dtype} instead")
    return CumsumInplace.apply(self, wrap_dim(dim, max(self.ndim, 1)))


def cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype}, but got {self.dtype} instead")
    return CumprodInplace.apply(self, wrap_dim(dim, max(self.ndim, 1)))
