"""Selection ops: repeat_interleave, take, masked_select, median, unique, cross, bernoulli.

repeat_interleave is torch's own composition (unsqueeze, expand, clone, flatten; index_select for a tensor of
repeats); take, median, cross and bernoulli are one node each with torch's name and saves; unique has no graph.
"""
from __future__ import annotations

import warnings

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend, dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..backend import device_of, get_array_module, to_device
from ..random import _gen
from ..tensor import Tensor
from ._util import broadcast_shapes_checked, grad_for, normalize_dims, scalar_type_name, wrap_dim
from .extrema import _scatter_to_indices, evenly_distribute, values_and_indices, values_indices
from .gather import index_select


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
    """out = a.flatten()[index] (index of any shape, negatives from the end). Saves a (as torch) and the index."""

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
        ctx.save_for_backward(a, index)  # the index for the check only: ctx.index is computed from it
        index = xp.where(index < 0, index + n, index)
        ctx.index, ctx.shape = index, a.shape
        return a.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_arrays  # a or the index changed in place since forward, or freed by a backward: torch's error
        return _TakeBackward.apply(grad, ctx.shape, ctx.index), None


class _TakeBackward(Function):
    """out = zeros(shape) with g added at the flat positions ``index`` (torch's take_backward, zeros.put_ with
    accumulate): PutBackward0 under create_graph, whose gradient is take again. Saves nothing."""

    node_name, array_forward = "PutBackward0", True

    @staticmethod
    def forward(ctx, g, shape, index):
        ctx.index = index
        out = get_array_module(g).zeros(int(_prod(shape)), dtype=g.dtype)
        backend.scatter_add(out, index.reshape(-1), g.reshape(-1))
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return Take.apply(grad, ctx.index), None, None  # torch's put_ backward: grad.take(index)


class MaskedSelect(Function):
    """out = the elements of a where mask is True (a and mask broadcast together), in order, as a 1-D tensor.
    Saves a (as torch, whose backward reads it) and the mask."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward, index_args = "MaskedSelectBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, mask):
        shape = broadcast_shapes_checked(mask.shape, a.shape)  # in torch's order, for its message
        xp = get_array_module(a)
        ctx.save_for_backward(a, mask)
        ctx.shape, ctx.a_meta = shape, (a.shape, a.dtype)
        return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]  # a data-dependent shape: a host read

    @staticmethod
    def backward(ctx, grad):
        _, mask = ctx.saved_tensors  # changed in place since forward, or freed by a backward: torch's error
        zeros = Tensor._make(get_array_module(grad._array).zeros(ctx.shape, dtype=grad._array.dtype))
        # torch's masked_select_backward: zeros.masked_scatter_(mask, grad), summed back to a's shape
        return grad_for(_MaskedScatterGrad.apply(zeros, grad, mask), *ctx.a_meta), None


class _MaskedScatterGrad(Function):
    """out = zeros with the elements of g written where mask is True, in order (masked_select's gradient:
    MaskedScatterBackward0 under create_graph, whose gradient is masked_select again). Saves the mask."""

    node_name, array_forward, index_args = "MaskedScatterBackward0", True, (2,)

    @staticmethod
    def forward(ctx, zeros, g, mask):
        ctx.save_for_backward(mask)
        out = zeros.copy()
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


class MedianAll(Function):
    """out = the lower median of all elements; the gradient is shared evenly by the elements equal to it. Saves a
    and out."""

    node_name, array_forward = "MedianBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        flat = a.reshape(-1)
        if flat.size == 0:  # torch: nan for an empty tensor
            out = xp.asarray(xp.nan, dtype=a.dtype)
            ctx.save_for_backward(a, out)
            return out
        ordered = xp.sort(flat)  # NaNs sort last: the median of a tensor with a NaN is NaN, as torch's
        out = ordered[(flat.size - 1) // 2]
        if a.dtype.kind in "fV":
            out = xp.where(xp.isnan(ordered[-1]), ordered[-1], out)
        out = xp.asarray(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return evenly_distribute(grad, a, out)


class MedianDim(Function):
    """(values, indices) = the lower median along ``dim``. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name, array_forward = "MedianBackward1", True

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:
            ctx.shape, ctx.dim, ctx.keepdim = (), None, keepdim
            idx = xp.zeros((), dtype=dtypes.int64.np)
            ctx.save_for_backward(idx)  # torch saves the indices even here
            ctx.mark_non_differentiable(idx)
            return a.copy(), idx
        (d,) = normalize_dims(dim, a.ndim)
        if a.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        order = xp.argsort(a, axis=d)  # NaNs sort last: a slice with a NaN has median NaN, as torch
        k = (a.shape[d] - 1) // 2
        idx = xp.take(order, xp.asarray([k]), axis=d)
        if a.dtype.kind in "fV":
            nan_at = xp.argmax(xp.isnan(a), axis=d)
            has_nan = xp.isnan(a).any(axis=d)
            idx = xp.where(xp.expand_dims(has_nan, d), xp.expand_dims(nan_at, d), idx)
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        if ctx.dim is None:
            return grad, None, None
        return _scatter_to_indices(ctx, grad, indices)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median of all elements, or (values, indices) along ``dim``."""
    if dim is None:
        return MedianAll.apply(input)
    v, i = MedianDim.apply(input, dim, keepdim)
    return values_indices(v, i)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None):
    """The distinct values (sorted), with the inverse map and the counts if asked (int64, no graph)."""
    xp = get_array_module(input._array)
    a = input._array
    kwargs = {}
    if dim is not None:
        kwargs["axis"] = wrap_dim(dim, input.ndim)
    else:
        a = a.reshape(-1)
    values, inverse, counts = xp.unique(a, return_inverse=True, return_counts=True, **kwargs)
    with no_grad():
        out = [Tensor._make(values)]
        if return_inverse:
            out.append(Tensor._make(inverse.reshape(input.shape if dim is None else (-1,)).astype(xp.int64,
                                                                                                  copy=False)))
        if return_counts:
            out.append(Tensor._make(counts.astype(xp.int64, copy=False)))
    return out[0] if len(out) == 1 else tuple(out)


class Cross(Function):
    """out = the cross product of a and b along ``dim`` (size 3). Saves a (if b needs a gradient) and b."""

    node_name, array_forward = "LinalgCrossBackward0", True

    @staticmethod
    def forward(ctx, a, b, dim):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        ctx.dim = dim
        return _cross(get_array_module(a), a, b, dim)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = Cross.apply(b, grad, ctx.dim) if needs[0] else None  # torch: other.cross(grad)
        gb = Cross.apply(grad, a, ctx.dim) if needs[1] else None  # torch: grad.cross(self)
        return ga, gb, None


def _cross(xp, a, b, dim):
    a, b = xp.broadcast_arrays(a, b)
    a0, a1, a2 = (xp.take(a, xp.asarray([i]), axis=dim) for i in range(3))
    b0, b1, b2 = (xp.take(b, xp.asarray([i]), axis=dim) for i in range(3))
    return xp.concatenate([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if _amp.on and autocast_applies("cross", input, other, dim):
        return autocast_run("cross", cross, input, other, dim)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:  # torch's deprecated default: the first dim of size 3
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        sizes = [d for d in range(input.ndim) if input.shape[d] == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(other._array.dtype)}")
    return Cross.apply(input, other, d)


class Bernoulli(Function):
    """out = 1 with probability p (per element, or one p for all), else 0. Saves nothing; the gradient is zero."""

    node_name, array_forward = "BernoulliBackward0", True

    @staticmethod
    def forward(ctx, a, p, generator):
        probs = a if p is None else p
        draw = _gen(generator).random(a.shape)  # the seeded host generator, then onto a's device
        u = to_device(draw, device_of(a))
        return (u < probs).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return Tensor._make(get_array_module(grad._array).zeros_like(grad._array)), None, None


def bernoulli(input: Tensor, p: float | None = None, *, generator=None) -> Tensor:
    """Draws 0/1 with probability ``input`` (or ``p``) per element, in input's dtype."""
    if input._array.dtype.kind not in "fV" and p is None:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                  f"'{scalar_type_name(input._array.dtype)}'")
    return Bernoulli.apply(input, p, generator)
