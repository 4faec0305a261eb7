"""Splitting along a dim into views: narrow, select, unbind, split, chunk, tensor_split and h/v/dsplit."""
from __future__ import annotations

import itertools

import numpy as np

from ...tensor import Tensor
from .._util import scalar_type_name, wrap_dim
from .subscript import Select, Slice, Split, SplitWithSizes, Unbind


class UnsafeSplit(Split):
    """Split under torch's name for unsafe_split / unsafe_chunk (its RNN cells chunk their gates with it): the
    pieces share the input's memory but are not tracked as views, so writing into one in place is allowed (the
    "unsafe" of torch's name). Saves nothing."""

    node_name, is_view, multi_view = "UnsafeSplitBackward0", False, False
    exact_in_bfloat16 = True  # the pieces must stay in the input's memory, not in a float32 copy's


class UnsafeSplitWithSizes(UnsafeSplit):
    """UnsafeSplit under torch's name for pieces of given sizes (unsafe_chunk of an empty dim)."""

    node_name = "UnsafeSplitWithSizesBackward0"


def narrow(a, dim: int, start: int, length: int):
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, a.ndim)
    size = a.shape[dim]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start % size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(a, dim, slice(start, start + length))


def select(a, dim: int, index: int):
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    return Select.apply(a, wrap_dim(dim, a.ndim), index)


def unbind(a, dim: int = 0):
    """Every slice along ``dim``: views of one UnbindBackward0 node (torch forbids changing them in place)."""
    if a.ndim == 0 and dim in (0, -1):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return Unbind.apply(a, wrap_dim(dim, a.ndim))


def split(a, split_size, dim: int = 0):
    """Pieces of ``split_size`` along ``dim`` (an int, or a list of sizes): views of one SplitBackward0 node."""
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, a.ndim)
    n = a.shape[dim]
    if isinstance(split_size, int):
        if split_size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
        if split_size == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        pieces = max(-(-n // split_size), 1) if split_size else 1  # torch's: one (empty) piece of an empty dim
        sizes = [split_size] * (pieces - 1) + [n - split_size * (pieces - 1)]
        return Split.apply(a, dim, tuple(sizes))
    sizes = tuple(int(s) for s in split_size)
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={list(sizes)}")
    return SplitWithSizes.apply(a, dim, sizes)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """chunk into ``chunks`` equal pieces, recorded as torch's unsafe_chunk (one UnsafeSplitBackward0 node)."""
    dim = wrap_dim(dim, input.ndim)
    sizes = _chunk_sizes(input.shape[dim], chunks)
    return (UnsafeSplitWithSizes if sizes[0] == 0 else UnsafeSplit).apply(input, dim, sizes)


def _chunk_sizes(n: int, chunks: int) -> list:
    """torch's chunk: pieces of ceil(n / chunks) (the last one shorter); an empty dim gives ``chunks`` empty pieces."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = -(-n // chunks)
    if size == 0:
        return [0] * chunks
    return [min(size, n - start) for start in range(0, n, size)]


def chunk(a, chunks: int, dim: int = 0):
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, a.ndim)
    sizes = _chunk_sizes(a.shape[dim], chunks)
    if sizes and sizes[0] == 0:  # torch's split_with_sizes of ``chunks`` empty pieces (split would give one)
        return SplitWithSizes.apply(a, dim, tuple(sizes))
    return split(a, sizes[0], dim)


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
