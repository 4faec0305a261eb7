"""Shape helpers built from views, cat and stack, as torch builds them (so their nodes are torch's): tensor_split
and h/v/dsplit (SliceBackward0 views), h/v/d/column/row_stack (CatBackward0), atleast_1d/2d/3d, broadcast_tensors,
meshgrid (ExpandBackward0), diff (SubBackward0), vander, combinations and cartesian_prod (StackBackward0); and rot90,
an op of its own (Rot90Backward0).
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from ..backend import get_array_module, to_device
from ..creation import ones
from ..tensor import Tensor
from ._util import broadcast_shapes_checked, scalar_type_name, wrap_dim
from .combine import cat, stack
from .compare import logical_xor
from .indexing import Slice
from .sorting import cumprod


# ---- splitting ----------------------------------------------------------------------------------------------

def _section_bounds(size: int, indices_or_sections) -> list:
    """The (start, stop) of each part: n near-equal sections (the first size % n one longer), or cuts at indices."""
    if isinstance(indices_or_sections, Tensor):
        arr = indices_or_sections._array
        if arr.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{scalar_type_name(arr.dtype)}")
        if arr.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arr.ndim} dims")
        indices_or_sections = int(arr) if arr.ndim == 0 else [int(v) for v in arr.tolist()]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        sizes = [small + 1] * extra + [small] * (n - extra)
        starts = list(itertools.accumulate([0] + sizes[:-1]))
        return [(s, s + k) for s, k in zip(starts, sizes)]
    cuts = [0] + [int(i) for i in indices_or_sections] + [size]
    return list(zip(cuts[:-1], cuts[1:]))


def _clip(i: int, size: int) -> int:
    """A cut as Python slicing reads it: negative from the end, clamped to [0, size]."""
    return min(max(i + size if i < 0 else i, 0), size)


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """input split along dim into views: n near-equal sections, or at the given indices."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    parts = []
    for start, stop in _section_bounds(size, indices_or_sections):
        start, stop = _clip(start, size), _clip(stop, size)
        parts.append(Slice.apply(input, dim, slice(start, max(start, stop))))
    return tuple(parts)


def _split_along(name: str, input: Tensor, indices_or_sections, dim: int, min_dims: int) -> tuple:
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 1 (dim 0 for a 1-D input); n sections must divide the dim evenly."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 0 of an input of 2 dims or more; n sections must divide the dim evenly."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 2 of an input of 3 dims or more; n sections must divide the dim evenly."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


# ---- at least n dims, stacking -------------------------------------------------------------------------------

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


# ---- rot90, diff, vander, combinations, cartesian_prod ---------------------------------------------------------

class Rot90(Function):
    """out = a rotated k quarter turns in the plane of dims (d0, d1), from d0 towards d1 (a copy). Saves nothing."""

    node_name, array_forward = "Rot90Backward0", True

    @staticmethod
    def forward(ctx, a, k, d0, d1):
        ctx.k, ctx.dims = k, (d0, d1)
        xp = get_array_module(a)
        k %= 4
        # torch's layout: k = 1, 3 flip a copy, then transpose it (a non-contiguous result); k = 2 flips both
        # dims, k = 0 clones (contiguous)
        if k == 1:
            return xp.swapaxes(xp.ascontiguousarray(xp.flip(a, d1)), d0, d1)
        if k == 3:
            return xp.swapaxes(xp.ascontiguousarray(xp.flip(a, d0)), d0, d1)
        if k == 2:
            return xp.ascontiguousarray(xp.flip(xp.flip(a, d0), d1))
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, -ctx.k, *ctx.dims), None, None, None


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """input rotated by k * 90 degrees in the plane of dims, from the first towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return Rot90.apply(input, int(k), d0, d1)


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


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D x: column j is x ** j (increasing) or x ** (N - 1 - j).

    deviation from torch: torch 2.13's vander(x) with N > 1 has a backward that always raises (its cumprod_out into
    a slice of the result saves a tensor its own write then changes); ours gives the gradient."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype.np.kind in "fV" else dtypes.int64  # torch: promote_types(x.dtype, long)
    result = ones(x.shape[0], n, dtype=dtype, device=x.device)
    if n > 1:  # torch's cumprod_out into result[:, 1:]: the result's node is CopySlices
        result[:, 1:] = cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1), 1)
    return result if increasing else result.flip(1)


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
