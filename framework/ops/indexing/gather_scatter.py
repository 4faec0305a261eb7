"""gather, scatter, scatter_add, take_along_dim and index_select: reading and writing along one dim through an index tensor."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import backend
from ...backend import get_array_module
from ...creation import zeros
from ...tensor import Tensor
from .._util import broadcast_shapes_checked, wrap_dim
from .subscript import IndexAddGrad


def _index_arg(index, name: str, allowed: str = "int32/int64"):
    """The index as the op takes it: a Tensor itself (the op saves it, so backward refuses it once it was changed
    in place, as torch's), anything else as an array."""
    arr = index._array if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype {allowed} for index")
    return index if isinstance(index, Tensor) else arr


def _check_range(index, size: int, dim: int) -> None:
    """torch's error for gather/scatter indices outside [0, size), raised before the array call: NumPy would
    wrap a negative index around, and CuPy wraps every out-of-range one (it never raises)."""
    bad = (index < 0) | (index >= size)
    with backend.input_check():  # under framework.compile: checked at capture, no graph break
        out_of_range = index.size and bool(bad.any())
    if out_of_range:
        raise RuntimeError(f"index {int(index[bad][0])} is out of bounds for dimension {dim} with size {size}")


def _along(index, dim: int):
    """The full advanced index that addresses ``a[..., index[i], ...]`` element-wise along ``dim``."""
    if not index.ndim:  # a 0-d tensor along dim 0 (its index checked to be 0): the element itself
        return ()
    xp = get_array_module(index)
    grids = list(xp.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[dim] = index
    return tuple(grids)


class Gather(Function):
    """out[i][j] = a[i][index[i][j]] (dim=1). Saves the index and a (as torch, which reads its shape), in torch
    GatherBackward0's unpack order (the in-place error names the first changed one)."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward, index_args = "GatherBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index):
        if index.ndim != a.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        _check_range(index, a.shape[dim] if a.ndim else 1, dim)
        ctx.shape, ctx.dim = a.shape, dim
        ctx.save_for_backward(index, a)
        return a[_along(index, dim)]

    @staticmethod
    def backward(ctx, grad):
        index, _ = ctx.saved_tensors  # a or the index changed in place since forward: torch's error
        base = zeros(*ctx.shape, dtype=grad.dtype, device=grad.device)
        return ScatterAdd.apply(base, ctx.dim, index, grad), None, None


class ScatterAdd(Function):
    """out = a with src[i][j] added at a[i][index[i][j]] (dim=1). Saves the index when src needs a gradient."""

    node_name, array_forward, index_args = "ScatterAddBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src):
        _check_src_dtype(a, src)  # in forward, as torch's kernel: after the inputs' histories were read
        _check_range(index, a.shape[dim] if a.ndim else 1, dim)
        ctx.dim = dim
        if ctx.needs_input_grad[3]:  # as torch's: only src's gradient reads the index
            ctx.save_for_backward(index)
        out = a.copy()
        src = src[tuple(slice(0, s) for s in index.shape)]
        backend.scatter_add(out, _along(index, dim), src)
        return out

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors  # unpacked whichever gradient is wanted, as torch's node (a freed one raises)
        gs = Gather.apply(grad, ctx.dim, saved[0]) if ctx.needs_input_grad[3] else None
        return grad, None, None, gs


class Scatter(Function):
    """out = a with a[i][index[i][j]] = src[i][j] (dim=1); ``src`` a tensor or a number. Saves the index."""

    node_name, array_forward, index_args = "ScatterBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src):
        _check_range(index, a.shape[dim] if a.ndim else 1, dim)
        ctx.dim = dim
        ctx.save_for_backward(index)
        out = a.copy()
        if hasattr(src, "shape"):
            src = src[tuple(slice(0, s) for s in index.shape)]
        out[_along(index, dim)] = src
        return out

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors  # changed in place since forward, or freed by a backward: torch's error
        ga = ScatterValue.apply(grad, ctx.dim, index, 0.0) if ctx.needs_input_grad[0] else None  # scatter.value
        gs = Gather.apply(grad, ctx.dim, index) if len(ctx.needs_input_grad) > 3 and \
            ctx.needs_input_grad[3] else None
        return ga, None, None, gs


class ScatterValue(Scatter):
    """out = a with a[i][index[i][j]] = value (dim=1). Saves the index."""

    node_name = "ScatterBackward1"

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors  # changed in place since forward, or freed by a backward: torch's error
        return ScatterValue.apply(grad, ctx.dim, index, 0.0), None, None, None


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    return Gather.apply(input, dim % max(input.ndim, 1), _index_arg(index, "gather"))


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """input.gather(dim, indices), input and indices broadcast against each other (but along dim), as torch's; with
    dim None, the flattened input at the flattened indices."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"take_along_dim(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(indices).__name__}")
    if dim is None:  # torch's self.view(-1).gather(0, indices.view(-1)): the indices are saved (a view of them)
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if indices.dtype.legacy != "LongTensor":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.legacy[:-len('Tensor')]}")
    if input.ndim == 0 and dim in (0, -1):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    in_shape, idx_shape = list(input.shape), list(indices.shape)
    # each is broadcast to the other's shape, but keeps its own size along dim
    idx_to = broadcast_shapes_checked(in_shape[:dim] + [idx_shape[dim]] + in_shape[dim + 1:], idx_shape)
    in_to = broadcast_shapes_checked(idx_shape[:dim] + [in_shape[dim]] + idx_shape[dim + 1:], in_shape)
    # torch's broadcast indices are a tensor of its own, not the caller's: changing those later is no error there
    idx = get_array_module(indices._array).broadcast_to(indices._array, idx_to)
    return Gather.apply(input.expand(*in_to), dim, idx)


def _check_src_dtype(input, src) -> None:
    """input and src: Tensors, or the arrays a forward sees."""
    if hasattr(src, "dtype") and src.dtype != input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def _scatter_plain(input: Tensor, dim: int, index: Tensor, src=None, *, value=None) -> Tensor:
    """input with `input[index[i][j]][j] = src[i][j]` (dim=0), or the value (reduce=: ops/indexing/scatter_reduction.py)."""
    _check_src_dtype(input, src)
    dim, index = dim % max(input.ndim, 1), _index_arg(index, "scatter")
    src = value if src is None else src
    if isinstance(src, Tensor):
        return Scatter.apply(input, dim, index, src)
    return ScatterValue.apply(input, dim, index, float(src) if input._array.dtype.kind in "fV" else src)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    if _amp.on and autocast_applies("scatter_add", input, dim, index, src):
        return autocast_run("scatter_add", scatter_add, input, dim, index, src)
    return ScatterAdd.apply(input, dim % max(input.ndim, 1), _index_arg(index, "scatter"), src)


class IndexSelect(Function):
    """out = a.index_select(dim, index). Saves the index."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward, index_args = "IndexSelectBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index):
        if index.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        size = a.shape[dim] if a.ndim else 1
        bad = (index < 0) | (index >= size)  # checked first: CuPy would wrap a bad index around
        with backend.input_check():
            out_of_range = index.size and bool(bad.any())
        if out_of_range:
            if dim == 1:  # torch's CPU kernel for dim 1 has its own check and text
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(index[bad][0])} axis_dim={size}")
            raise IndexError("index out of range in self")
        ctx.shape, ctx.index = a.shape, (slice(None),) * dim + (index.reshape(-1),)
        ctx.save_for_backward(index)  # for the check only: ctx.index holds the same values while it passes
        if a.ndim == 0:
            return a[ctx.index]
        # take: a fresh C-contiguous result as torch's (a[:, index] is laid out with the indexed dim first)
        return backend.get_array_module(a).take(a, ctx.index[-1], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_arrays  # the index changed in place since forward, or freed by a backward: torch's error
        return IndexAddGrad.apply(grad, ctx.shape, ctx.index, True), None, None


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    return IndexSelect.apply(input, dim % max(input.ndim, 1), _index_arg(index, "index_select", "int32 or int64"))
