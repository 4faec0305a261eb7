"""as_strided: a view of the storage with any sizes and strides (in elements), and mode along a dim.

The storage is the array of the tensor's base (the tensor itself when it is no view), or the array the base had
before an in-place view op changed its geometry (base.t_(), resize_, set_); it must be contiguous, as every storage
made by this library's factories and ops is.
"""
from __future__ import annotations

from .. import backend
from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor
from .extrema import values_and_indices, values_indices
from .select_more import MedianDim


def _storage(t: Tensor):
    """(storage array flattened, t's own offset in it, t's strides in elements)."""
    base = t._base if t._base is not None else t
    # a base whose geometry changed in place (base.t_(), resize_) keeps the array its storage is in
    root = base._array if base._storage_root is None else base._storage_root
    if not root.flags.c_contiguous:
        raise NotImplementedError("as_strided: the tensor's storage is not contiguous; call .contiguous() first")
    item = root.itemsize
    own = (backend.data_ptr(t._array) - backend.data_ptr(root)) // item if root.size else 0
    return root.reshape(-1), own, tuple(s // item for s in t._array.strides)


def _owner(arr):
    """The array that owns ``arr``'s memory (numpy and cupy collapse a view's base to its owner)."""
    return arr if arr.base is None else arr.base


def _positions(xp, n: int, size, stride, offset: int):
    """The storage index of each element of the (size, stride, offset) geometry, as an int64 array."""
    index = xp.arange(n, dtype=xp.int64)
    return xp.lib.stride_tricks.as_strided(index[offset:], shape=tuple(size), strides=tuple(s * 8 for s in stride))


class AsStrided(Function):
    """out = the storage seen with ``size``, ``stride`` and ``offset`` (a view). Saves nothing; backward sums the
    gradient into the storage positions, then reads the input's positions."""

    grad_writes = 1  # torch's backward: a zero-filled gradient written into in place once

    node_name, array_forward, is_view = "AsStridedBackward0", True, True

    @staticmethod
    def forward(ctx, a, storage, size, stride, offset, in_geometry):
        if backend.memory_owner(storage) is not backend.memory_owner(a):  # (a capture's traced views: follow bases)
            # a replay of this view on another tensor of the base's shape (a view's regenerated grad_fn replays
            # its view ops on arange(numel) to find its elements): the geometry applies to that tensor's storage
            storage = _owner(a).reshape(-1)
        ctx.conf = (storage.size, size, stride, offset, in_geometry)
        item = storage.itemsize
        return get_array_module(storage).lib.stride_tricks.as_strided(
            storage[offset:], shape=tuple(size), strides=tuple(s * item for s in stride))

    @staticmethod
    def backward(ctx, grad):
        n, size, stride, offset, (in_size, in_stride, in_offset) = ctx.conf
        xp = get_array_module(grad._array)
        out_pos = _positions(xp, n, size, stride, offset)
        in_pos = _positions(xp, n, in_size, in_stride, in_offset)
        return StorageMap.apply(grad, n, out_pos, in_pos), None, None, None, None, None


class StorageMap(Function):
    """out = zeros(n) with g added at the storage positions ``src``, read at the positions ``dst`` (torch's
    as_strided_backward): a node of its own under create_graph (AsStridedBackward0), whose gradient is the same
    map with src and dst swapped. Saves nothing."""

    node_name, array_forward = "AsStridedBackward0", True

    @staticmethod
    def forward(ctx, g, n, src, dst):
        ctx.n, ctx.src, ctx.dst = n, src, dst
        flat = get_array_module(g).zeros(n, dtype=g.dtype)
        backend.scatter_add(flat, src.reshape(-1), g.reshape(-1))
        return flat[dst]

    @staticmethod
    def backward(ctx, grad):
        return StorageMap.apply(grad, ctx.n, ctx.dst, ctx.src), None, None, None


def as_strided_args(input: Tensor, size, stride, storage_offset: int | None = None) -> tuple:
    """AsStrided's arguments after input: (storage, size, stride, offset, input's own geometry), checked as torch."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    storage, own, own_strides = _storage(input)
    offset = own if storage_offset is None else int(storage_offset)
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if need > storage.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {storage.itemsize} requiring a storage size of {need * storage.itemsize} are out "
                           f"of bounds for storage of size {storage.size * storage.itemsize}")
    return storage, size, stride, offset, (tuple(input.shape), own_strides, own)


def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    return AsStrided.apply(input, *as_strided_args(input, size, stride, storage_offset))


class ModeDim(MedianDim):
    """(values, indices) = the most frequent value along ``dim`` (the smallest among ties) and the last position
    it has. Saves the indices."""

    grad_writes = 2  # torch's backward: zeros (a zero_), then scatter_ into them

    node_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        xp = get_array_module(a)
        if a.ndim == 0:
            return MedianDim.forward(ctx, a, dim, keepdim)
        d = dim % a.ndim
        rows = xp.moveaxis(a, d, -1)
        eq = rows[..., :, None] == rows[..., None, :]  # (..., n, n): which elements equal which
        counts = eq.sum(axis=-1)
        best = counts.max(axis=-1, keepdims=True)
        big = xp.asarray(xp.inf if a.dtype.kind in "fV" else xp.iinfo(a.dtype).max, dtype=a.dtype)
        value = xp.where(counts == best, rows, big).min(axis=-1, keepdims=True)
        n = rows.shape[-1]
        last = n - 1 - xp.argmax((rows == value)[..., ::-1], axis=-1)  # torch reports the last occurrence
        idx = xp.expand_dims(last, d)  # the other dims kept their order in rows: d goes back in its place
        return values_and_indices(ctx, a, d, keepdim, xp.take_along_axis(a, idx, axis=d), idx)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """(values, indices): the most frequent value along ``dim`` (smallest among ties) and its last index."""
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    v, i = ModeDim.apply(input, dim, keepdim)
    return values_indices(v, i)
