"""softmax, log_softmax and softmin over one dim."""
from __future__ import annotations

import warnings

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import normalize_dims, read_history, scalar_type_name, wrap_dim
from ..backward_ops import LogSoftmaxBackwardData, SoftmaxBackwardData


class Softmax(Function):
    """out = exp(a - max) / sum(exp(a - max)) along ``dim``. Saves out."""

    node_name, array_forward = "SoftmaxBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        xp = get_array_module(a)
        ctx.dim = dim
        if a.size == 0:  # NumPy's max has no identity for an empty axis; the result is empty
            ctx.save_for_backward(a)
            return a.copy()
        if not a.flags.c_contiguous:  # torch's kernel reads input.contiguous(): its result is C-contiguous
            a = xp.ascontiguousarray(a)
        out = xp.asarray(a - a.max(axis=dim, keepdims=True))  # (NumPy returns a scalar for 0-d input)
        xp.exp(out, out=out)  # in place in the one fresh buffer
        out /= out.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return SoftmaxBackwardData.apply(grad, out, ctx.dim), None


_BLOCK = 1 << 17  # elements of one block of rows: 512 KB of float32, which stays in cache between passes


def _row_blocks(a, dim: tuple) -> bool:
    """log_softmax over the last dim of a large host array: its exp-and-sum runs in blocks of rows."""
    return (len(dim) == 1 and dim[0] == a.ndim - 1 and a.ndim > 1 and a.size > 2 * _BLOCK
            and a.shape[-1] <= _BLOCK and not backend._on_gpu(a))


def _sum_exp_by_rows(xp, shifted, axis: int):
    """sum(exp(shifted)) along the last axis, keepdims, a block of rows at a time through one small buffer: the
    same sums as exp over the whole array (each row summed on its own), without a second full-size pass or
    buffer, and ``shifted`` (a - max) is left as it is for the result."""
    rows = shifted.reshape(-1, shifted.shape[axis])
    step = _BLOCK // rows.shape[1]
    buf = xp.empty((step, rows.shape[1]), dtype=rows.dtype)
    total = xp.empty((rows.shape[0], 1), dtype=rows.dtype)
    for start in range(0, rows.shape[0], step):
        block = rows[start:start + step]
        part = buf[:block.shape[0]]
        xp.exp(block, out=part)
        part.sum(axis=1, keepdims=True, out=total[start:start + step])
    return total.reshape(shifted.shape[:-1] + (1,))


class LogSoftmax(Function):
    """out = a - max - log(sum(exp(a - max))) along ``dim``. Saves out."""

    node_name, array_forward = "LogSoftmaxBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        xp = get_array_module(a)
        ctx.dim = dim
        if a.size == 0:  # as softmax: an empty result
            ctx.save_for_backward(a)
            return a.copy()
        if not a.flags.c_contiguous:  # as softmax: a C-contiguous result, as torch's
            a = xp.ascontiguousarray(a)
        top = a.max(axis=dim, keepdims=True)
        out = xp.asarray(a - top)  # (NumPy returns a scalar for 0-d input)
        if _row_blocks(a, dim):
            total = _sum_exp_by_rows(xp, out, dim[0])
        else:  # exp in place to sum it, then a - max again: the one fresh buffer, no second one as large as a
            total = xp.exp(out, out=out).sum(axis=dim, keepdims=True)
            xp.subtract(a, top, out=out)
        out -= xp.log(total)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None


def _check_float(a, dim: int, kernel: str) -> None:
    """torch's error for an integer input; an empty one runs no kernel there, so it passes (an empty result)."""
    if a._array.dtype.kind not in "fV" and a._array.size:
        last = wrap_dim(dim, a.ndim) == max(a.ndim, 1) - 1
        raise NotImplementedError(f"\"{kernel}_{'lastdim_' if last else ''}kernel_impl\" not implemented for "
                                  f"'{scalar_type_name(a._array.dtype)}'")


def implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's legacy dim for a softmax called without one (0 for 0-, 1- and 3-d input, else 1), with its warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(a, dim: int, dtype=None):
    if _amp.on and autocast_applies("softmax", a, dim, dtype):
        return autocast_run("softmax", softmax, a, dim, dtype=dtype)
    if dtype is not None:
        a = a.to(dtype)
    _check_float(a, dim, "softmax")
    read_history(a)  # before the dim is wrapped, as torch's
    return Softmax.apply(a, normalize_dims(dim, a.ndim))  # a tuple of axes: () for a 0-d tensor


def log_softmax(a, dim: int, dtype=None):
    if _amp.on and autocast_applies("log_softmax", a, dim, dtype):
        return autocast_run("log_softmax", log_softmax, a, dim, dtype=dtype)
    if dtype is not None:
        a = a.to(dtype)
    _check_float(a, dim, "log_softmax")
    read_history(a)  # before the dim is wrapped, as torch's
    return LogSoftmax.apply(a, normalize_dims(dim, a.ndim))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-input): torch's node is the softmax's (SoftmaxBackward0)."""
    if dim is None:
        dim = implicit_softmax_dim("softmin", input.ndim, _stacklevel)
    return softmax(-input, dim, dtype)
