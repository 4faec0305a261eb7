"""Ops that write along one dim at a list of indices: index_add, index_copy, index_fill, put, masked_scatter.

Each has an in-place twin (``index_add_``...) made by ``inplace_twin``: the same node name, saves and backward
(torch's in-place ops share their out-of-place derivative), writing into arg 0. Backwards are written with
differentiable ops (index_select, index_fill, take, masked_select...), so gradients of gradients work too."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import copy_preserving_layout
from .._twin import inplace_twin
from .._util import scalar_type_name, wrap_dim
from ..pointwise import masked_fill, where
from .gather_scatter import IndexSelect
from .selection import take


def index_arg(index):
    """The index as an op takes it: a Tensor itself (saved, so changing it in place before backward is refused, as
    torch's), anything else (a list) as an int64 array."""
    return index if isinstance(index, Tensor) else np.asarray(index, dtype=np.int64)


def check_index_range(index, size: int, dim: int, op: str = "", error=RuntimeError, negative: bool = False) -> None:
    """torch's error for an index outside [0, size) ([-size, size) with ``negative``), raised before the array
    call (NumPy wraps negative indices, CuPy every out-of-range one)."""
    bad = (index < (-size if negative else 0)) | (index >= size)
    with backend.input_check():  # under framework.compile: checked at capture, no graph break
        out_of_range = index.size and bool(bad.any())
    if out_of_range:
        raise error(f"{op}index {int(index[bad][0])} is out of bounds for dimension {dim} with size {size}")


def along(dim: int, index) -> tuple:
    """The advanced index ``[:, ..., index]`` with ``index`` (flattened) at ``dim``."""
    return (slice(None),) * dim + (index.reshape(-1),)


def _as_1d(x):
    """A 0-d array as a 1-element one (torch treats a 0-d self/source as one of size 1 along dim 0)."""
    return x.reshape(1) if x.ndim == 0 else x


def _check_vector(index, message: str, error=IndexError) -> None:
    if index.ndim > 1:
        raise error(message)


class IndexAdd(Function):
    """out = a with alpha * src[k] added at a.select(dim, index[k]). Saves the index and src (torch reads its
    dims) when src needs a gradient."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward, index_args = "IndexAddBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src, alpha=1):
        _check_vector(index, f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                             f"{scalar_type_name(index.dtype)} and size: {list(index.shape)}")
        if index.dtype.kind not in "iu":
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                               f"{scalar_type_name(index.dtype)}")
        if src.dtype != a.dtype:
            raise RuntimeError(f"index_add_(): self ({scalar_type_name(a.dtype)}) and source "
                               f"({scalar_type_name(src.dtype)}) must have the same scalar type")
        a1, s1 = _as_1d(a), _as_1d(src)
        if s1.ndim == a1.ndim and s1.shape[dim] != index.size:
            raise RuntimeError(f"index_add_(): Number of indices ({index.size}) should be equal to "
                               f"source.size(dim): ({s1.shape[dim]}), for dim: {dim}")
        if s1.shape[:dim] + s1.shape[dim + 1:] != a1.shape[:dim] + a1.shape[dim + 1:]:
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(a.shape)} source.shape = {list(src.shape)}")
        check_index_range(index, a1.shape[dim], dim)
        ctx.dim, ctx.alpha, ctx.src_shape = dim, alpha, src.shape
        if ctx.needs_input_grad[3]:  # as torch's: only source's gradient reads the index (and source's dims)
            ctx.save_for_backward(index, src)
        out = a1.copy()
        values = s1 if alpha == 1 else (s1 * alpha).astype(a.dtype, copy=False)
        backend.scatter_reduce(out, along(dim, index), values, "add")
        return out.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        gs = None
        # unpacked whichever gradient is wanted, as torch's node: changed in place since forward, or freed by a
        # backward, it raises torch's error
        saved = ctx.saved_tensors
        if ctx.needs_input_grad[3]:
            index = saved[0]
            gs = _select_for(grad, ctx.dim, index, ctx.src_shape)
            gs = gs if ctx.alpha == 1 else gs * ctx.alpha
        return grad, None, None, gs, None


def _select_for(grad: Tensor, dim: int, index: Tensor, shape: tuple) -> Tensor:
    """grad.index_select(dim, index) in the source's shape (a 0-d source gets a 0-d gradient)."""
    g = grad.reshape(1) if grad.ndim == 0 else grad
    out = IndexSelect.apply(g, dim, index)
    return out.reshape(shape) if tuple(out.shape) != tuple(shape) else out


class IndexCopy(Function):
    """out = a with a.select(dim, index[k]) = src[k]. Saves the index, and src (torch reads its dims) when src
    needs a gradient."""

    node_name, array_forward, index_args = "IndexCopyBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src):
        _check_vector(index, f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
        if index.dtype != np.int64:
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{scalar_type_name(index.dtype)}")
        if src.dtype != a.dtype:
            raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                               f"{scalar_type_name(a.dtype)} and (source) {scalar_type_name(src.dtype)}")
        a1, s1 = _as_1d(a), _as_1d(src)
        if s1.ndim == a1.ndim and s1.shape[dim] != index.size:
            raise IndexError(f"index_copy_(): Number of indices ({index.size}) should be equal to "
                             f"source.size(dim) ({s1.shape[dim]})")
        rest_a, rest_s = a1.shape[:dim] + a1.shape[dim + 1:], s1.shape[:dim] + s1.shape[dim + 1:]
        if rest_a != rest_s:
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {' '.join(map(str, rest_a))} at dimension {dim} and source slice "
                               f"shape: {' '.join(map(str, rest_s))} at dimension {dim}.")
        check_index_range(index, a1.shape[dim], dim, "index_copy_(): ", IndexError)
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(index, src if ctx.needs_input_grad[3] else None)
        out = a1.copy()
        out[along(dim, index)] = s1
        return out.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        index, _ = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = IndexFill.apply(grad, ctx.dim, index, 0.0) if needs[0] else None
        gs = _select_for(grad, ctx.dim, index, ctx.src_shape) if needs[3] else None
        return ga, None, None, gs


class IndexFill(Function):
    """out = a with a.select(dim, index[k]) = value (a number). Saves the index."""

    node_name, array_forward, index_args = "IndexFillBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, value, out=None):
        if hasattr(value, "ndim") and value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        if index.dtype != np.int64:
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        _check_vector(index, "Index has to be a vector/scalar", RuntimeError)
        a1 = _as_1d(a)
        check_index_range(index, a1.shape[dim], dim, error=IndexError, negative=True)
        ctx.dim = dim
        ctx.save_for_backward(index)
        if out is None:  # out of place; in place, ``out`` is arg 0 itself (written element by element, as torch's)
            out = copy_preserving_layout(a1)  # torch's index_fill keeps a transposed input's layout
        out[along(dim, index)] = value
        return out.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return IndexFill.apply(grad, ctx.dim, index, 0.0), None, None, None


class IndexFillTensor(IndexFill):
    """out = a with a.select(dim, index[k]) = value (a 0-d tensor). Saves the index; value's gradient is the sum
    of the gradient at the (distinct) filled positions."""

    node_name = "IndexFillBackward1"

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = IndexFill.apply(grad, ctx.dim, index, 0.0) if needs[0] else None
        gv = None
        if needs[3]:
            xp = get_array_module(index._array)
            # torch's _unique(index), negative indices as they are: index_select then refuses them, as torch's
            distinct = Tensor._make(xp.unique(index._array.reshape(-1)))
            gv = IndexSelect.apply(grad.reshape(1) if grad.ndim == 0 else grad, ctx.dim, distinct).sum()
        return ga, None, None, gv


class Put(Function):
    """out = a with a.flatten()[index[k]] = src[k] (or += with accumulate). Saves the index, and src (torch reads
    its shape) when src needs a gradient."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward, index_args = "PutBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, index, src, accumulate=False):
        if index.dtype != np.int64:
            raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
        if src.dtype != a.dtype:
            raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                               f"{scalar_type_name(a.dtype)} and source.dtype = {scalar_type_name(src.dtype)}")
        if src.size != index.size:
            raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                             f"source.numel() = {src.size}, index.numel() = {index.size}")
        bad = (index < -a.size) | (index >= a.size)
        with backend.input_check():
            out_of_range = index.size and bool(bad.any())
        if out_of_range:
            raise IndexError(f"out of range: tried to access index {int(index[bad][0])} on a tensor of {a.size} "
                             "elements.")
        ctx.accumulate, ctx.src_shape = accumulate, src.shape
        ctx.save_for_backward(index, src if ctx.needs_input_grad[2] else None)
        written = a.copy()  # C order: its flat view is the flat index's order
        flat, where = written.reshape(-1), index.reshape(-1) % max(a.size, 1)
        if accumulate:
            backend.scatter_reduce(flat, where, src.reshape(-1), "add")
        else:
            flat[where] = src.reshape(-1)
        if written.flags.c_contiguous == a.flags.c_contiguous:
            return written
        out = copy_preserving_layout(a)  # torch's put keeps a transposed input's layout
        out[...] = written
        return out

    @staticmethod
    def backward(ctx, grad):
        index, _ = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = None
        if needs[0]:
            ga = grad if ctx.accumulate else Put.apply(grad, index, Tensor._make(
                get_array_module(grad._array).zeros(ctx.src_shape, grad._array.dtype)), False)
        gs = take(grad, index).reshape(ctx.src_shape) if needs[2] else None
        return ga, None, gs, None


class MaskedScatter(Function):
    """out = a with its masked elements (mask broadcast to a) taken from src's first elements in order.
    Saves the mask."""

    node_name, array_forward, index_args = "MaskedScatterBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, mask, src):
        if mask.dtype != np.bool_:
            raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                               f"{scalar_type_name(mask.dtype)}")
        if src.dtype != a.dtype:
            raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                               f"{scalar_type_name(a.dtype)} and {scalar_type_name(src.dtype)}")
        xp = get_array_module(a)
        shape = np.broadcast_shapes(a.shape, mask.shape)
        full = xp.broadcast_to(mask, shape)
        with backend.input_check():  # only raises: under framework.compile, checked at capture
            too_few = int(full.sum()) > src.size
        if too_few:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.src_shape, ctx.a_shape = src.shape, a.shape
        ctx.save_for_backward(mask)
        out = xp.broadcast_to(a, shape)
        if src.size == 0:  # then the mask has no True: nothing to write
            return out.copy()
        # the k-th masked element takes src's k-th: a gather at the running count (fixed shapes, no host read)
        taken = src.reshape(-1)[_source_positions(full, src.size)].reshape(shape)
        return xp.where(full, taken, out)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = sum_to(masked_fill(grad, mask, 0.0), ctx.a_shape) if needs[0] else None
        gs = None
        if needs[2]:  # torch's masked_scatter_backward: the masked gradient in order, zeros for the unused source
            xp = get_array_module(grad._array)
            n = int(np.prod(ctx.src_shape, dtype=np.int64))
            zeros = Tensor._make(xp.zeros(n, grad._array.dtype))
            if n == 0 or grad.numel() == 0:
                gs = zeros.reshape(ctx.src_shape)
            else:
                # source element k got the k-th True's gradient: a gather at the k-th True's position (found in the
                # running count; fixed shapes, no host read), and zero past the last True
                running = xp.cumsum(xp.broadcast_to(mask._array, grad.shape).reshape(-1))
                kth = xp.searchsorted(running, xp.arange(1, n + 1), side="left")
                used = Tensor._make(kth < running.size)
                gs = where(used, take(grad, Tensor._make(xp.minimum(kth, running.size - 1))), zeros)
                gs = gs.reshape(ctx.src_shape)
        return ga, None, gs


def _source_positions(full, n: int):
    """For each element of the (broadcast) mask, flattened: the index of the source element a True one takes
    (the count of Trues before it), clipped into [0, n) for the False ones."""
    xp = get_array_module(full)
    return xp.clip(xp.cumsum(full.reshape(-1)) - 1, 0, n - 1)


IndexAddInplace = inplace_twin(IndexAdd)


IndexCopyInplace = inplace_twin(IndexCopy)


def _fill_in_place(ctx, a, dim, index, value):
    """index_fill_: the fill written straight into arg 0 (an expand()ed one's shared elements too, as torch's)."""
    IndexFill.forward(ctx, a, dim, index, value, a.reshape(1) if a.ndim == 0 else a)
    return a


# torch's index_fill_ is a fill kernel: it writes an expand()ed tensor's shared elements without complaint
IndexFillInplace = inplace_twin(IndexFill, checks_internal_overlap=False, forward=staticmethod(_fill_in_place))


IndexFillTensorInplace = inplace_twin(IndexFillTensor, checks_internal_overlap=False,
                                      forward=staticmethod(_fill_in_place))


PutInplace = inplace_twin(Put)


MaskedScatterInplace = inplace_twin(MaskedScatter)


def _dim(input: Tensor, dim: int) -> int:
    return wrap_dim(dim, input.ndim)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """input with alpha * source[k] added at input.select(dim, index[k]) (repeated indices accumulate)."""
    return IndexAdd.apply(input, _dim(input, dim), index_arg(index), source, alpha)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    return IndexAddInplace.apply(input, _dim(input, dim), index_arg(index), source, alpha)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """input with input.select(dim, index[k]) replaced by source.select(dim, k)."""
    if _amp.on and autocast_applies("index_copy", input, dim, index, source):
        return autocast_run("index_copy", index_copy, input, dim, index, source)
    return IndexCopy.apply(input, _dim(input, dim), index_arg(index), source)


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return IndexCopyInplace.apply(input, _dim(input, dim), index_arg(index), source)


def _fill_args(input: Tensor, dim: int, index, value) -> tuple:
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return (input, _dim(input, dim), index_arg(index), value), True
    return (input, _dim(input, dim), index_arg(index), value), False


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """input with input.select(dim, index[k]) set to value (a number or a 0-d tensor)."""
    args, is_tensor = _fill_args(input, dim, index, value)
    return (IndexFillTensor if is_tensor else IndexFill).apply(*args)


def index_fill_(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    args, is_tensor = _fill_args(input, dim, index, value)
    return (IndexFillTensorInplace if is_tensor else IndexFillInplace).apply(*args)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """input with input.flatten()[index[k]] = source.flatten()[k] (added with accumulate)."""
    return Put.apply(input, index_arg(index), source, accumulate)


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return PutInplace.apply(input, index_arg(index), source, accumulate)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """input with its elements where mask is True replaced by source's first elements, in order."""
    return MaskedScatter.apply(input, mask, source)


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    if tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))) != tuple(input.shape):
        raise RuntimeError(f"expand({mask.type().replace('framework.', 'CPU').replace('Tensor', 'Type')}"
                           f"{{{list(mask.shape)}}}, size={list(input.shape)}): the number of sizes provided "
                           f"({input.ndim}) must be greater or equal to the number of dimensions in the tensor "
                           f"({mask.ndim})")
    return MaskedScatterInplace.apply(input, mask, source)
