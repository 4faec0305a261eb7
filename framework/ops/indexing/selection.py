"""Selections that return a new tensor: nonzero, argwhere, masked_select, take, repeat_interleave."""
from __future__ import annotations

import math

from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ... import backend, dtypes
from ...backend import get_array_module
from ...creation import as_tensor
from ...tensor import Tensor
from ...memory_layout import copy_in_order, copy_preserving_layout, preserve_format_order
from .._util import broadcast_shapes_checked, grad_for, scalar_type_name, wrap_dim
from .gather_scatter import index_select


def repeat_interleave(input, repeats=None, dim: int | None = None, *, output_size: int | None = None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times, in place of ``input``'s order."""
    if repeats is None:  # torch.repeat_interleave(counts): each index i, counts[i] times
        counts = input
        xp = get_array_module(counts._array)
        with no_grad():
            return Tensor._make(xp.repeat(xp.arange(counts.shape[0]), counts._array).astype(xp.int64, copy=False))
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor) and repeats.ndim == 0:
        repeats = int(repeats.item())
    if isinstance(repeats, Tensor):
        if repeats.ndim != 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.shape[0] not in (1, x.shape[d]):
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.shape[0]} and input.size({d}) = {x.shape[d]}")
        if repeats.shape[0] == 1:
            repeats = int(repeats.item())
        else:
            index = repeat_interleave(repeats)
            return index_select(x, d, index)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(x.shape)
    shape.insert(d + 1, repeats)
    # torch's graph: View <- Clone <- Expand; its clone is contiguous, so the flatten is a view
    return x.unsqueeze(d + 1).expand(*shape).clone(memory_format=dtypes.contiguous_format).flatten(d, d + 1)


class Take(Function):
    """out = a.flatten()[index] (index of any shape, negatives from the end). Saves the index and a (as torch's
    TakeBackward0, in its order: the in-place error names the first changed one)."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward, index_args = "TakeBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, index):
        xp = get_array_module(a)
        n = a.size
        with backend.input_check():
            bad = bool(((index < -n) | (index >= n)).any()) if index.size else False
        if bad:
            first = index[(index < -n) | (index >= n)].reshape(-1)[0]
            raise IndexError(f"out of range: tried to access index {int(first)} on a tensor of {n} elements.")
        ctx.save_for_backward(index, a)  # the index for the check only: ctx.index is computed from it
        index = xp.where(index < 0, index + n, index)
        ctx.index, ctx.shape = index, a.shape
        return a.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        # (saved_arrays: a or the index changed in place since forward, or freed by a backward: torch's error)
        _, a = ctx.saved_arrays
        return _TakeBackward.apply(grad, ctx.shape, ctx.index, preserve_format_order(a.shape, a.strides)), None


class _TakeBackward(Function):
    """out = zeros(shape) with g added at the flat positions ``index`` (torch's take_backward, zeros.put_ with
    accumulate): PutBackward0 under create_graph, whose gradient is take again. Saves nothing."""

    node_name, array_forward = "PutBackward0", True

    @staticmethod
    def forward(ctx, g, shape, index, order=None):
        ctx.index = index
        out = get_array_module(g).zeros(int(_prod(shape)), dtype=g.dtype)
        backend.scatter_add(out, index.reshape(-1), g.reshape(-1))
        out = out.reshape(shape)
        # torch's zeros_like(self): the input's layout (order: its dims from outermost to innermost)
        return out if order is None or tuple(order) == tuple(range(len(shape))) else copy_in_order(out, order)

    @staticmethod
    def backward(ctx, grad):
        return Take.apply(grad, ctx.index), None, None, None  # torch's put_ backward: grad.take(index)


class MaskedSelect(Function):
    """out = the elements of a where mask is True (a and mask broadcast together), in order, as a 1-D tensor.
    Saves the mask and a (as torch, whose backward reads it, in its order)."""

    node_name, array_forward, index_args = "MaskedSelectBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, mask):
        shape = broadcast_shapes_checked(mask.shape, a.shape)  # in torch's order, for its message
        xp = get_array_module(a)
        ctx.save_for_backward(mask, a)
        ctx.shape, ctx.a_meta = shape, (a.shape, a.dtype)
        return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]  # a data-dependent shape: a host read

    @staticmethod
    def backward(ctx, grad):
        mask, a = ctx.saved_tensors  # changed in place since forward, or freed by a backward: torch's error
        xp = get_array_module(grad._array)
        zeros = xp.zeros(ctx.shape, dtype=grad._array.dtype)
        if not a._array.flags.c_contiguous:  # torch's zeros_like(input.expand(shape)): the input's layout
            spread = xp.broadcast_to(a._array, ctx.shape)
            zeros = copy_in_order(zeros, preserve_format_order(spread.shape, spread.strides))
        zeros = Tensor._make(zeros)
        # torch's masked_select_backward: zeros.masked_scatter_(mask, grad) (in place: _version 1), summed back to
        # a's shape by the engine when mask broadcast it (a new tensor: _version 0)
        out = _MaskedScatterGrad.apply(zeros, grad, mask)
        if tuple(ctx.shape) == tuple(ctx.a_meta[0]):
            if out._version_counter is not None:
                out._version_counter.bump("masked_scatter_")
            return out, None
        return grad_for(out, *ctx.a_meta), None


class _MaskedScatterGrad(Function):
    """out = zeros with the elements of g written where mask is True, in order (masked_select's gradient:
    MaskedScatterBackward0 under create_graph, whose gradient is masked_select again). Saves the mask."""

    node_name, array_forward, index_args = "MaskedScatterBackward0", True, (2,)

    @staticmethod
    def forward(ctx, zeros, g, mask):
        ctx.save_for_backward(mask)
        out = copy_preserving_layout(zeros)  # torch's clone, then masked_scatter_ in place
        out[get_array_module(out).broadcast_to(mask, out.shape)] = g
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return None, MaskedSelect.apply(grad, mask), None


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """A 1-D tensor of input's elements where mask (a bool tensor, broadcast with input) is True."""
    if mask._array.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return MaskedSelect.apply(input, mask)


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def take(input: Tensor, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor) or index._array.dtype.kind not in "iu":
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(index._array.dtype) if isinstance(index, Tensor) else type(index)}")
    return Take.apply(input, index)


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim (as_tuple)."""
    xp = get_array_module(input._array)
    idx = xp.nonzero(input._array) if input.ndim else xp.nonzero(input._array.reshape(1))
    with no_grad():
        if as_tuple:
            return tuple(Tensor._make(i.astype(xp.int64, copy=False)) for i in idx)
        if not input.ndim:
            return Tensor._make(xp.zeros((idx[0].shape[0], 0), dtype=xp.int64))
        return Tensor._make(xp.stack(idx, axis=1).astype(xp.int64, copy=False))


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def unravel_index(indices, shape) -> tuple:
    """The coordinates of flat ``indices`` in an array of ``shape`` (a tuple of int64 tensors, as torch)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    idx = indices if isinstance(indices, Tensor) else as_tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype == dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {str(idx.dtype).replace('framework', 'torch')}")
    total = math.prod(shape)
    if bool(((idx < -total) | (idx >= total)).any()):
        raise ValueError("'indices' must be in range [-{}, {})".format(total, total))
    flat = idx % total if total else idx
    out = []
    for s in reversed(shape):
        out.append(flat % s)
        flat = flat.div(s, rounding_mode="floor")
    return tuple(reversed(out))
