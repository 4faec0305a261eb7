"""Joining tensors: cat, stack, h/v/d/column_stack, atleast_Nd, broadcast_tensors, meshgrid, combinations, cartesian_prod."""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import get_array_module, to_device
from ...tensor import Tensor
from ...memory_layout import channels_last_copy, channels_last_like, contiguous_result
from .._util import as_operand, binary_dtype, broadcast_shapes_checked, formula_zeros, normalize_dims, wrap_dim


def _each(fn, tensors):
    """torch's atleast_*d: one tensor in, one out; several (or a list) in, a tuple out."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    items = tensors[0] if len(tensors) == 1 else tensors
    return tuple(fn(t) for t in items)


def _atleast_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t.ndim == 0 else t


def _atleast_2d(t: Tensor) -> Tensor:
    return t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t


def _atleast_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.ndim == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-d one reshaped to [1]); others as they are."""
    return _each(_atleast_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (a new leading dim for a 1-D one)."""
    return _each(_atleast_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (1-D: [1, n, 1]; 2-D: a new last dim)."""
    return _each(_atleast_3d, tensors)


def _nonempty(name: str, tensors) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors) -> Tensor:
    """cat along dim 1 (dim 0 for 1-D tensors) of the tensors made at least 1-D."""
    tensors = [_atleast_1d(t) for t in _nonempty("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    """cat along dim 0 of the tensors made at least 2-D."""
    return cat([_atleast_2d(t) for t in _nonempty("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors) -> Tensor:
    """cat along dim 2 of the tensors made at least 3-D."""
    return cat([_atleast_3d(t) for t in _nonempty("dstack", tensors)], 2)


def column_stack(tensors) -> Tensor:
    """cat along dim 1 of the tensors, 0-d and 1-D ones made columns first."""
    tensors = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in _nonempty("column_stack", tensors)]
    return cat(tensors, 1)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common shape (one already of that shape is returned as it is, as torch's)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes_checked(*[tuple(t.shape) for t in tensors])
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(*shape) for t in tensors)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Grids from 0-d/1-D tensors: the k-th output varies along dim k ('ij'; 'xy' swaps the first two)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    # 'xy' swaps the first two dims: the first tensor varies along columns, the second along rows
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for t, ax in zip(tensors, axes):
        shape[ax] = t.numel()
    grids = []
    for t, ax in zip(tensors, axes):
        view = [1] * len(tensors)
        view[ax] = -1
        grids.append(t.view(*view).expand(*shape))
    return tuple(grids)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-D input's elements, one per row (itertools' order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    # torch's: r meshgrids of the input, each masked to the index tuples in order (masked_select saves its input,
    # here an expand of the input's: changing the input in place before backward is then refused, as torch's)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    n = input.shape[0]
    keep = np.zeros((n,) * r, dtype=bool)
    for combo in pick(range(n), r):
        keep[combo] = True
    mask = Tensor._make(to_device(keep, input.device))
    grids = meshgrid(*([input] * r), indexing="ij")
    return stack([g.masked_select(mask) for g in grids], 1)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (the first tensor varies slowest)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


class Cat(Function):
    """out = the inputs joined along ``dim``. Saves nothing (only their sizes)."""

    node_name, array_forward = "CatBackward0", True

    @staticmethod
    def forward(ctx, dim, *arrays):
        if not arrays:
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        nd = arrays[0].ndim
        (d,) = normalize_dims(dim, nd)
        for i, a in enumerate(arrays):
            if a.ndim != nd:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {a.ndim}")
            for k in range(nd):
                if k != d and a.shape[k] != arrays[0].shape[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                       f"{arrays[0].shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
        ctx.dim, ctx.sizes = d, [a.shape[d] for a in arrays]
        ctx.empty_1d = {i for i, a in enumerate(arrays) if a.shape == (0,)}
        dt = arrays[0].dtype
        for a in arrays[1:]:
            dt = binary_dtype(arrays[0].astype(dt, copy=False), a)
        out = get_array_module(arrays[0]).concatenate([a.astype(dt, copy=False) for a in arrays], axis=d)
        return _cat_layout(out, [(a.shape, _elements(a)) for a in arrays] if nd in (4, 5) else ())

    @staticmethod
    def backward(ctx, grad):
        out, start = [None], 0
        for i, n in enumerate(ctx.sizes):
            if ctx.needs_input_grad[i + 1] and n == 0 and i in ctx.empty_1d:
                out.append(formula_zeros(grad, (0,)))  # torch's cat_tensors_backward: at::zeros({0}), _version 1
            elif ctx.needs_input_grad[i + 1]:
                out.append(grad.narrow(ctx.dim, start, n))
            else:
                out.append(None)
            start += n
        return tuple(out)


def _cat_layout(out, layouts):
    """torch's cat/stack write a C-contiguous result, channels-last only when every input is laid out so (4-D
    and 5-D); NumPy's keep their inputs' order, so a stack of transposed matrices came out Fortran-ordered and a
    cat of expanded tensors strided, and a later .view() failed where torch's works.  layouts: (shape, strides
    in elements) of each input, as torch sees it (stack's inputs unsqueezed at its dim)."""
    if out.ndim in (4, 5) and all(channels_last_like(shape, strides) for shape, strides in layouts):
        return out if channels_last_like(out.shape, _elements(out)) else channels_last_copy(out)
    return contiguous_result(out)


def _elements(a) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _unsqueezed(a, dim: int) -> tuple:
    """(shape, strides in elements) of torch's a.unsqueeze(dim): the new dim's stride is size * stride of the dim
    it goes before (1 at the end)."""
    shape, strides = list(a.shape), list(_elements(a))
    strides.insert(dim, shape[dim] * strides[dim] if dim < a.ndim else 1)
    shape.insert(dim, 1)
    return tuple(shape), tuple(strides)


class Stack(Function):
    """out = the inputs stacked along a new ``dim``. Saves nothing."""

    node_name, array_forward = "StackBackward0", True

    @staticmethod
    def forward(ctx, dim, *arrays):
        if not arrays:
            raise RuntimeError("stack expects a non-empty TensorList")
        for i, a in enumerate(arrays):
            if a.shape != arrays[0].shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} at "
                                   f"entry 0 and {list(a.shape)} at entry {i}")
        ctx.dim = wrap_dim(dim, arrays[0].ndim + 1)
        dt = arrays[0].dtype
        for a in arrays[1:]:  # torch's promotion (numpy's would make int64 with float32 float64)
            dt = dtypes.promote_types(dt, a.dtype)
        out = get_array_module(arrays[0]).stack([a.astype(dt, copy=False) for a in arrays], axis=ctx.dim)
        return _cat_layout(out, [_unsqueezed(a, ctx.dim) for a in arrays] if out.ndim in (4, 5) else ())

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.select(ctx.dim, i) if need else None
                               for i, need in enumerate(ctx.needs_input_grad[1:]))


def cat(tensors, dim: int = 0, *, axis: int | None = None):
    """Join along ``dim`` (``axis=``: NumPy's name, which torch's argument parser accepts too)."""
    if axis is not None:
        dim = axis
    if _amp.on and autocast_applies("cat", tensors, dim):
        return autocast_run("cat", cat, tensors, dim)
    tensors = [as_operand(x) for x in tensors]
    return Cat.apply(dim, *tensors)


concat = concatenate = cat


def stack(tensors, dim: int = 0):
    if _amp.on and autocast_applies("stack", tensors, dim):
        return autocast_run("stack", stack, tensors, dim)
    tensors = [as_operand(x) for x in tensors]
    return Stack.apply(dim, *tensors)
