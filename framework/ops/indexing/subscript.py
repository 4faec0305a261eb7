"""Tensor indexing: a[idx] (Select, Slice, advanced Index) and a[idx] = v (index_put), with the gradient nodes they share."""
from __future__ import annotations

import sys

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import backend, diagnostics
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import copy_preserving_layout
from .._util import grad_for, scalar_type_name
from ..conversion import FillTensor
from ..shape import Alias, cat, stack, Unsqueeze


def _is_advanced(i) -> bool:
    return isinstance(i, (list, np.ndarray, Tensor)) or (hasattr(i, "__cuda_array_interface__"))


def _index_part(i, check: bool = True):
    """One part of an advanced index as Index/IndexPut take it: a Tensor as it is (its dtype checked, unless
    ``check`` is False: index_put_ checks it after the in-place checks, as torch's; the op saves it), a list as an
    array; slices, None, Ellipsis and numbers as they are."""
    if isinstance(i, Tensor):
        if check:
            _check_index_dtype(i._array)
        return i
    if isinstance(i, list):
        part = np.asanyarray(i)  # asanyarray: compile's traced arrays stay traced
        # an empty list (``a[[]]``) is NumPy's float64 but torch's empty long index
        return part.astype(np.int64) if part.size == 0 and part.dtype.kind == "f" else part
    return i


def _check_index_dtype(p) -> None:
    if getattr(p, "dtype", None) is not None and p.dtype.kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _on_device(parts: tuple, a) -> tuple:
    """The index parts as arrays on ``a``'s device (host arrays are copied there, as torch allows)."""
    if get_array_module(a) is np:
        return parts
    device = backend.device_of(a)
    return tuple(backend.to_device(p, device) if isinstance(p, np.ndarray) else p for p in parts)


def _saved_parts(parts: tuple) -> list:
    """The index parts torch's IndexBackward0 keeps as tensors: its 0-d ones (ints, a 0-d mask) it turns into
    numbers or new tensors first, so changing those in place later is no error there."""
    return [p for p in parts if getattr(p, "ndim", 0)]


def _put(target, index, values, accumulate: bool) -> None:
    """target[index] = values in place; with accumulate, repeated indices add up (index_put_/index backward)."""
    if accumulate:
        backend.scatter_add(target, index, values)
    else:
        target[index] = values


def _check_count(ndim: int, parts) -> int:
    """torch's IndexError for an index of more dims than the tensor (a bool mask counts its dims); the count."""
    consuming = sum(p.ndim if getattr(p, "dtype", None) is not None and p.dtype.kind == "b" else 1
                    for p in parts if p is not None and p is not Ellipsis)
    if consuming > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    return consuming


def check_bounds(shape: tuple, index) -> None:
    """torch's IndexError for an out-of-range integer-array index, raised before the array call: CuPy would
    wrap such an index around and read another element instead of raising.  Like torch, the message counts
    dimensions among the index arrays (``a[:, [7]]`` reports dimension 0)."""
    parts = index if isinstance(index, tuple) else (index,)
    consuming = _check_count(len(shape), parts)
    dim = ordinal = 0
    for p in parts:
        if p is Ellipsis:
            dim += len(shape) - consuming
        elif p is None:
            continue
        elif getattr(p, "dtype", None) is not None and p.dtype.kind == "b":
            dim, ordinal = dim + p.ndim, ordinal + p.ndim
        elif getattr(p, "dtype", None) is not None and p.dtype.kind in "iu" and getattr(p, "ndim", 0):
            size = shape[dim] if dim < len(shape) else 0
            bad = (p < -size) | (p >= size)
            with backend.input_check():  # under framework.compile: checked at capture, no graph break
                out_of_range = p.size and bool(bad.any())
            if out_of_range:
                raise IndexError(f"index {int(p[bad][0])} is out of bounds for dimension {ordinal} with size {size}")
            dim, ordinal = dim + 1, ordinal + 1
        else:
            dim += 1


class Select(Function):
    """out = a[..., i, ...] along ``dim`` (a view). Saves nothing."""

    node_name, array_forward, is_view = "SelectBackward0", True, True

    @staticmethod
    def forward(ctx, a, dim, i):
        size = a.shape[dim]
        if not -size <= i < size:
            raise IndexError(f"select(): index {i} out of range for tensor of size {list(a.shape)} at dimension {dim}")
        # the trailing ... keeps numpy returning a 0-d *view* rather than a scalar copy
        ctx.shape, ctx.index = a.shape, (slice(None),) * dim + (i, Ellipsis)
        return a[ctx.index]

    @staticmethod
    def backward(ctx, grad):
        return SelectGrad.apply(grad, ctx.shape, ctx.index, False), None, None


class Slice(Function):
    """out = a[start:stop:step] along ``dim`` (a view). Saves nothing."""

    node_name, array_forward, is_view = "SliceBackward0", True, True

    @staticmethod
    def forward(ctx, a, dim, sl):
        if sl.step is not None and sl.step <= 0:
            raise ValueError("step must be greater than zero")
        ctx.shape, ctx.index = a.shape, (slice(None),) * dim + (sl,)
        return a[ctx.index]

    @staticmethod
    def backward(ctx, grad):
        return SliceGrad.apply(grad, ctx.shape, ctx.index, False), None, None


class Unbind(Function):
    """outs = a.select(dim, i) for each i (views of ``a``, one node). Saves nothing."""

    node_name, array_forward, is_view, multi_view = "UnbindBackward0", True, True, True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        pre = (slice(None),) * dim
        # the trailing ... keeps numpy returning 0-d *views* rather than scalar copies
        return tuple(a[pre + (i, Ellipsis)] for i in range(a.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):  # unused outputs arrive as zeros (the node materializes them)
        return stack(grads, ctx.dim), None


class Split(Function):
    """outs = consecutive pieces of ``a`` along ``dim`` with the given sizes (views, one node). Saves nothing."""

    node_name, array_forward, is_view, multi_view = "SplitBackward0", True, True, True

    @staticmethod
    def forward(ctx, a, dim, sizes):
        ctx.dim = dim
        pre, out, start = (slice(None),) * dim, [], 0
        for s in sizes:
            out.append(a[pre + (slice(start, start + s),)])
            start += s
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx.dim), None, None


class SplitWithSizes(Split):
    """Split with an explicit list of sizes (torch names its node SplitWithSizesBackward0). Saves nothing."""

    node_name = "SplitWithSizesBackward0"


class Index(Function):
    """out = a[index] for an advanced index, given as its parts: ``Index.apply(a, *index)``. Saves the index
    arrays (an index Tensor itself: changed in place before backward, it is refused, as torch's)."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward = "IndexBackward0", True
    index_args = range(1, sys.maxsize)  # every part of the index

    @staticmethod
    def forward(ctx, a, *parts):
        ctx.save_for_backward(*_saved_parts(parts))
        index = _on_device(parts, a)
        ctx.shape, ctx.index = a.shape, index
        check_bounds(a.shape, index)
        try:
            out = a[index]
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
        # NumPy's result may be a transposed view of the array it filled: an empty one gets torch's contiguous strides
        if not out.size:
            return backend.empty_as_torch(out, fresh=True)
        # a row-major one, torch's strides on its size-1 dims too (x[::2, True] is (2, 2, 1), NumPy's (2, 4, 1);
        # a later matmul folds it, or not, by them: fuzz seed 7703913)
        return backend.row_major(out) if out.flags.c_contiguous and 1 in out.shape else out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_arrays  # the index changed in place since forward, or freed by a backward: torch's error
        return (IndexPutGrad.apply(grad, ctx.shape, ctx.index, True),) + (None,) * len(ctx.index)


class IndexGrad(Function):
    """out = zeros(shape) with ``grad`` added at ``index`` (the backward of indexing). Saves nothing."""

    node_name, array_forward = "IndexBackwardBackward0", True

    @staticmethod
    def forward(ctx, grad, shape, index, accumulate):
        ctx.index = index
        out = get_array_module(grad).zeros(shape, dtype=grad.dtype)
        _put(out, index, grad, accumulate)
        return out

    @staticmethod
    def backward(ctx, g):
        return Index.apply(g, *ctx.index), None, None, None


# the same maths under torch's names for each op's create_graph gradient: select_backward, slice_backward,
# index's zeros.index_put_ (IndexPutImplBackward0), index_select's zeros.index_add, embedding_dense_backward
SelectGrad = type("SelectGrad", (IndexGrad,), {"node_name": "SelectBackwardBackward0"})


SliceGrad = type("SliceGrad", (IndexGrad,), {"node_name": "SliceBackwardBackward0"})


IndexPutGrad = type("IndexPutGrad", (IndexGrad,), {"node_name": "IndexPutImplBackward0"})


IndexAddGrad = type("IndexAddGrad", (IndexGrad,), {"node_name": "IndexAddBackward0"})


class EmbeddingGrad(IndexGrad):
    """embedding_dense_backward: zeros(num_weights, dim) with each row of ``grad`` added at its token's row. The
    rows are summed by one bincount over (token, column) bins (float64 sums, no ufunc.at: ~3x faster than
    np.add.at, and of a fixed output shape, so framework.compile records it). Saves nothing."""

    node_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, index, accumulate):
        ctx.index = index
        if grad.dtype.kind != "f" or len(shape) != 2:
            return IndexGrad.forward(ctx, grad, shape, index, accumulate)
        xp = get_array_module(grad)
        rows, dim = shape
        bins = (index[0].reshape(-1, 1) * dim + xp.arange(dim)).reshape(-1)
        sums = xp.bincount(bins, weights=grad.reshape(-1), minlength=rows * dim)
        return sums.reshape(rows, dim).astype(grad.dtype, copy=False)


def getitem(a, idx):
    """``a[idx]`` with torch's decomposition into views, or one advanced Index op."""
    if not isinstance(idx, tuple):
        if isinstance(idx, slice):  # a bare slice, even a full one, is a Slice in torch
            if not a.ndim:
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            return Slice.apply(a, 0, idx)
        idx = (idx,)
    # torch's indexing reads a 0-d integer tensor as an int (a Select), not as an advanced index
    idx = tuple(int(i) if _is_int_scalar(i) else bool(i) if _is_bool_scalar(i) else i for i in idx)
    if any(_is_advanced(i) for i in idx):
        return Index.apply(a, *[_index_part(i) for i in idx])
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis and not _is_bool(i))
    if n_real and a.ndim == 0:
        if any(isinstance(i, slice) for i in idx):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if n_real > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    out, dim, masks = a, 0, {}
    for pos, i in enumerate(idx):  # in order, as torch's applySlicing: each part a view of the previous result
        if i is Ellipsis:
            dim += a.ndim - n_real
        elif i is None:
            out = Unsqueeze.apply(out, dim)
            dim += 1
        elif _is_bool(i):  # torch: a new dim of size 1, then indexed by [0] (True) or by nothing (False)
            out = Unsqueeze.apply(out, dim)
            masks[dim] = _bool_index(i)
            dim += 1
        elif isinstance(i, slice):
            if not _selects_all(i, out.shape[dim]):
                out = Slice.apply(out, dim, i)
            dim += 1
        elif isinstance(i, (int, np.integer)) or _is_int_scalar(i):
            size = out.shape[dim]
            if not -size <= int(i) < size:  # torch's message counts positions in the index, as here
                raise IndexError(f"index {int(i)} is out of bounds for dimension {pos} with size {size}")
            out = Select.apply(out, dim, int(i))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices")
    if masks:
        return Index.apply(out, *[masks.get(d, slice(None)) for d in range(max(masks) + 1)])
    return Alias.apply(out) if out is a else out  # nothing applied: torch's x[...] is an alias, not x itself


def _is_int_scalar(i) -> bool:
    return isinstance(i, Tensor) and i.ndim == 0 and i._array.dtype.kind in "iu"


def _is_bool_scalar(i) -> bool:
    """A 0-d bool tensor, which torch's indexing takes as the bool it holds."""
    return isinstance(i, Tensor) and i.ndim == 0 and i._array.dtype.kind == "b"


def _bool_index(flag) -> np.ndarray:
    """torch's boolToIndexingTensor: the new size-1 dim indexed by [0] (True) or by nothing (False), as int64."""
    return np.zeros(1 if flag else 0, dtype=np.int64)


def _is_bool(i) -> bool:
    return isinstance(i, (bool, np.bool_))


def _selects_all(s: slice, length: int) -> bool:
    """torch's applySlice shortcut: a slice from 0 (as written, not -length), step 1, to at least the dim's end is
    skipped inside a tuple index (a bare ``a[0:n]`` is still a Slice)."""
    return (s.start is None or s.start == 0) and (s.step is None or s.step == 1) and \
        (s.stop is None or s.stop >= length)


class IndexPut(Function):
    """a[index] = values in place (advanced index, given as its parts: ``IndexPut.apply(a, values, accumulate,
    *index)``); with accumulate, values at repeated indices add up. Saves nothing but the index (an index Tensor
    itself, as Index)."""

    node_name, array_forward, inplace = "IndexPutBackward0", True, True
    checks_internal_overlap = False  # torch only warns for an expand()ed target
    checks_overlap = False  # index_put_ has its own rule (_check_put_overlap)
    index_args = range(3, sys.maxsize)  # every part of the index
    # on bfloat16 arrays as they are: the overlap check must see their memory, and torch's accumulate rounds
    # after each add, as NumPy's bfloat16 add.at does
    exact_in_bfloat16 = True

    @staticmethod
    def forward(ctx, a, values, accumulate, *parts):
        fill = None if accumulate else _masked_fill_index(a, values, parts)
        if fill is None:
            _check_put_overlap(a, values, parts)
            for p in parts:
                _check_index_dtype(p)
        ctx.save_for_backward(*_saved_parts(parts))
        index = _on_device(parts, a)
        ctx.index, ctx.accumulate = index, accumulate
        ctx.v_meta = (tuple(getattr(values, "shape", ())), getattr(values, "dtype", None))
        if fill is not None:
            _masked_fill(a, _on_device(fill, a), values)
            return a
        check_bounds(a.shape, index)
        if values.dtype != a.dtype:
            _check_put_shape(a, index, values)  # torch checks the shapes first
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{scalar_type_name(a.dtype)} for the destination and {scalar_type_name(values.dtype)} "
                               f"for the source.")
        try:
            if accumulate and _reads_what_it_writes(a, values):
                _accumulate_serially(a, index, values)
            else:
                _put(a, index, values, accumulate)
        except (ValueError, TypeError):  # NumPy's broadcast failure (TypeError for a boolean mask): torch's text
            _check_put_shape(a, index, values)
            raise
        return a

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_arrays  # the index changed in place since forward, or freed by a backward: torch's error
        ga = gv = None
        if ctx.needs_input_grad[0]:
            if ctx.accumulate:
                ga = grad
            else:  # torch's grad.index_put(indices, zeros_like(values)): +0 where the values went
                zeros = get_array_module(grad._array).zeros(ctx.v_meta[0], dtype=grad._array.dtype)
                ga = IndexPutCopy.apply(grad, Tensor._make(zeros), False, *ctx.index)
        if ctx.needs_input_grad[1]:
            gv = Index.apply(grad, *ctx.index)
            shape = tuple(ctx.v_meta[0])
            # torch's engine sums grad[index] down to the values' shape, or refuses one it cannot (values that
            # broadcast to an empty selection: fuzz seed 5206591)
            if len(shape) > gv.ndim or any(n not in (1, m) for n, m in zip(reversed(shape), reversed(gv.shape))):
                raise RuntimeError(f"Function IndexPutBackward0 returned an invalid gradient at index 1 - got "
                                   f"{list(gv.shape)} but expected shape compatible with {list(shape)}")
            gv = grad_for(gv, shape, ctx.v_meta[1])
        return (ga, gv, None) + (None,) * len(ctx.index)


def _is_array(p) -> bool:
    return getattr(p, "ndim", None) is not None and not isinstance(p, np.generic)


def _masked_fill_index(a, values, parts: tuple):
    """torch's canDispatchToMaskedFill: index_put_ (no accumulate) of one value through exactly one bool mask
    (besides basic parts) is masked_fill_(mask, value.item()): no dtype match needed, no overlap check. Returns the
    index to fill through, or None; raises torch's error for a mask whose shape is not that of the dims it indexes,
    checked as torch does on the basic parts' view. torch dispatches only for a CPU value; here a value on the GPU
    is filled in the same way, so that a program behaves alike on every device."""
    if values.size != 1 or any(isinstance(p, (bool, np.bool_)) for p in parts):
        return None
    arrays = [k for k, p in enumerate(parts) if _is_array(p)]
    if len(arrays) != 1 or parts[arrays[0]].dtype not in (np.bool_, np.uint8):
        return None
    k, mask = arrays[0], parts[arrays[0]]
    basic = [p for p in parts if p is not None and p is not Ellipsis and not _is_array(p)]
    spare = max(a.ndim - len(basic) - mask.ndim, 0)  # the dims an Ellipsis stands for
    key = [q for p in parts for q in ((slice(None),) * mask.ndim if p is mask else (p,))]
    try:
        view_shape = a[tuple(key)].shape  # basic indexing only: a view
    except IndexError:  # a mask of more dims than are left (index_put_'s parts are all tensors): torch's error below
        view_shape = a.shape
    at = sum(1 if p is None or isinstance(p, slice) else spare if p is Ellipsis else 0 for p in parts[:k])
    for j, n in enumerate(mask.shape):
        if at + j >= len(view_shape):
            n_dims = len(view_shape)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n_dims}, {n_dims - 1}], but got "
                             f"{at + j})")
        if n != view_shape[at + j]:
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape of the "
                             f"indexed tensor {list(view_shape)} at index {at + j}")
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    return tuple(parts)


def _masked_fill(a, index: tuple, values) -> None:
    """a[index] = the one value, cast to a's dtype (torch's masked_fill_ with value.item())."""
    value = values.reshape(()).astype(a.dtype)
    if get_array_module(value) is not get_array_module(a):
        value = value.item()  # a CPU value into device memory
    a[index] = value


def _check_put_overlap(a, values, parts: tuple) -> None:
    """torch's index_put_ (when it is no masked_fill_): neither the values nor an index may share any memory with
    the written-to tensor."""
    indices = [p for p in parts if isinstance(p, (bool, np.bool_)) or getattr(p, "ndim", 0) > 0]
    owner = backend.memory_owner(a)
    for other in (values, *indices):
        if hasattr(other, "shape") and backend.memory_owner(other) is owner and \
                backend.memory_overlap(a, other) in ("full", "partial"):
            raise diagnostics.partial_overlap()


def _reads_what_it_writes(a, values) -> bool:
    """Whether an accumulating put may read memory it has written: ``a`` repeats memory (an expand) or the values
    share its memory in a way the overlap check could not judge."""
    return backend.repeats_memory(a) or (
        backend.memory_owner(values) is backend.memory_owner(a) and backend.memory_overlap(a, values) == "too_hard")


def _accumulate_serially(a, index, values) -> None:
    """a[index] += values one element at a time, in the indexed result's order, each reading the values' memory as
    it is then: torch's CPU index_put_ with accumulate runs serially, so an expanded ``a`` adds up what it wrote."""
    host = backend.to_numpy
    grid = np.indices(a.shape)
    host_index = tuple(host(p) if _is_array(p) else p for p in index)
    coords = [g[host_index] for g in grid]
    view = get_array_module(a).broadcast_to(values, coords[0].shape)  # reads the values' memory when indexed
    for k in np.ndindex(coords[0].shape):
        at = tuple(int(c[k]) for c in coords)
        a[at] += view[k]


def _check_put_shape(a, index, values) -> None:
    """torch's error for values that do not broadcast to the indexed part's shape (an error path: reads a[index])."""
    result = tuple(a[index].shape)
    try:
        fits = np.broadcast_shapes(values.shape, result) == result
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(result)}")


class IndexPutCopy(IndexPut):
    """out = a copy of a with out[index] = values (torch's out-of-place index_put, also IndexPutBackward0)."""

    node_name, inplace = "IndexPutBackward0", False

    @staticmethod
    def forward(ctx, a, values, accumulate, *parts):
        # torch's self.clone(preserve_format).index_put_(...): a transposed input gives a transposed result
        return IndexPut.forward(ctx, copy_preserving_layout(a), values, accumulate, *parts)


def _index_put_parts(name: str, a, indices, values) -> list:
    """torch's argument checks of index_put(_); the index parts as IndexPut takes them."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(i).__name__}")
    if len(indices) > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (got {len(indices)})")
    return [_index_part(i, check=False) for i in indices]


def index_put_(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """input[indices] = values in place (indices: a tuple of index tensors); with accumulate, repeated indices add
    up. Saves the index tensors."""
    return IndexPut.apply(input, values, bool(accumulate), *_index_put_parts("index_put_", input, indices, values))


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with input[indices] = values (see index_put_). Saves the index tensors."""
    if _amp.on and autocast_applies("index_put", input, indices, values, accumulate):
        return autocast_run("index_put", index_put, input, indices, values, accumulate)
    return IndexPutCopy.apply(input, values, bool(accumulate), *_index_put_parts("index_put", input, indices, values))


def _covers_all(key: tuple, shape: tuple) -> bool:
    """Whether a key of slices (and at most one Ellipsis) selects every element of every dim, in order."""
    if not all(i is Ellipsis or isinstance(i, slice) for i in key) or sum(i is Ellipsis for i in key) > 1:
        return False
    if Ellipsis in key:
        cut = key.index(Ellipsis)
        before, after = key[:cut], key[cut + 1:]
        if len(before) + len(after) > len(shape):
            return False
        pairs = list(zip(before, shape)) + list(zip(after, shape[len(shape) - len(after):]))
    else:
        if len(key) > len(shape):
            return False
        pairs = list(zip(key, shape))
    return all(_selects_all(s, n) for s, n in pairs)


def setitem(a, idx, value) -> None:
    """``a[idx] = value``: a view + copy_ (CopySlices) for basic indices, index_put_ for advanced."""
    if isinstance(idx, tuple) and any(_is_bool_scalar(i) for i in idx) or _is_bool_scalar(idx):
        idx = tuple(bool(i) if _is_bool_scalar(i) else i for i in idx) if isinstance(idx, tuple) else (bool(idx),)
    if _is_bool(idx):  # torch's set_item: a bare True writes into a.unsqueeze(0) as None does; False writes nothing
        if not idx:
            return
        idx = None
    key = idx if isinstance(idx, tuple) else (idx,)
    if any(_is_bool(i) for i in key) and not any(_is_advanced(i) for i in key):
        # torch: a bool is a new dim of size 1 indexed by [0] or by nothing: index_put_ into that view
        view = getitem(a, tuple(None if _is_bool(i) else i for i in key))
        a, key = view, tuple(_bool_index(i) if _is_bool(i) else i if i is Ellipsis else slice(None)
                             for i in key if i is None or i is Ellipsis or _is_bool(i) or isinstance(i, slice))
    if any(_is_advanced(i) for i in key):
        parts = [_index_part(i, check=False) for i in key]
        _check_count(a.ndim, [p._array if isinstance(p, Tensor) else p for p in parts])  # torch's applySlicing
        if isinstance(value, Tensor):
            IndexPut.apply(a, _strip_leading_ones(value, always=False), False, *parts)
        else:
            IndexPut.apply(a, get_array_module(a._array).asarray(value, dtype=a._array.dtype), False, *parts)
        return
    # torch skips slices that cover their whole dim: `a[:] = 0` (or `a[:1] = 0` when dim 0 has size 1) writes
    # into `a` itself, not into a view of it
    if _covers_all(key, tuple(a.shape)):
        target = a
    else:
        target = getitem(a, key)
    if isinstance(value, Tensor) and value.ndim == 0 and target.ndim and str(value.device) == "cpu":
        FillTensor.apply(target, value)  # torch's copy_to: a 0-d CPU value of another shape is fill_(value)
    elif isinstance(value, Tensor):
        if value.ndim and tuple(value.shape) != tuple(target.shape):
            # torch's copy_to: value viewed without its leading 1-dims, then expanded to the target's shape
            v = _strip_leading_ones(value, always=True)
            try:
                np.broadcast_shapes(tuple(v.shape), tuple(target.shape))
            except ValueError:
                v.expand(*target.shape)  # torch's copy_to expands first: its error comes before copy_'s checks
            else:
                if tuple(v.shape) != tuple(target.shape):
                    v = v.expand(*target.shape)
            value = v
        target.copy_(value)
    elif target is a and a.ndim == 0:  # torch: a 0-d tensor of the same shape: copy_ (CopyBackwards), not fill_
        target.copy_(Tensor._make(get_array_module(a._array).asarray(value, dtype=a._array.dtype)))
    else:
        FillTensor.apply(target, value)


def _strip_leading_ones(value, always: bool):
    """value.view(shape without leading 1-dims), as torch's slicePrefix1sSize; ``always``: view even if none."""
    shape = tuple(value.shape)
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    if k == 0 and not always:
        return value
    return value.view(*shape[k:])
