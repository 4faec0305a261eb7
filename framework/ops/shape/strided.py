"""Strided views: as_strided, Tensor.unfold, storage_offset, new_empty_strided."""
from __future__ import annotations

from ...autograd.function import Function
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import wrap_dim


def _memory(root):
    """``root``'s memory as a flat array in address order (a view), or None when its elements do not tile one
    block: a dense array in any dim order (torch's column-major ``x.t() * 1``) is its storage, read in order."""
    if root.flags.c_contiguous or root.size == 0:
        return root.reshape(-1)
    if not backend.is_non_overlapping_and_dense(root):
        return None
    # drop the size-1 dims (any stride), then order the rest by falling stride: a C-contiguous view of the block
    block = root[tuple(0 if n == 1 else slice(None) for n in root.shape)]
    return block.transpose(sorted(range(block.ndim), key=lambda d: -block.strides[d])).reshape(-1)


def _storage(t: Tensor):
    """(storage array flattened, t's own offset in it, t's strides in elements)."""
    base = t._base if t._base is not None else t
    # a base whose geometry changed in place (base.t_(), resize_) keeps the array its storage is in
    root = base._array if base._storage_root is None else base._storage_root
    flat = _memory(root)
    if flat is None:  # (an array with gaps or repeats that no op of torch's would return as a fresh tensor)
        raise NotImplementedError("as_strided: the tensor's storage is not one dense block of memory; call "
                                  ".contiguous() first")
    item = root.itemsize
    own = (backend.data_ptr(t._array) - backend.data_ptr(flat)) // item if root.size else 0
    return flat, own, tuple(s // item for s in t._array.strides)


def _positions(xp, n: int, size, stride, offset: int):
    """The storage index of each element of the (size, stride, offset) geometry, as an int64 array."""
    index = xp.arange(n, dtype=xp.int64)
    return xp.lib.stride_tricks.as_strided(index[offset:], shape=tuple(size), strides=tuple(s * 8 for s in stride))


def _span(size, stride, offset: int) -> int:
    """How many storage elements from the start a (size, stride, offset) geometry reaches (none empty)."""
    return offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))


def _maybe_overlapping(size, stride) -> bool:
    """torch's _maybe_overlapping_memory: with the dims of size > 1 by rising stride, a stride not past all the
    elements the smaller ones reach may show an element twice (an expand's 0 stride does)."""
    reach = 0
    for n, s in sorted(((n, s) for n, s in zip(size, stride) if n != 1), key=lambda d: d[1]):
        if s <= reach:
            return True
        reach += s * (n - 1)
    return False


class AsStrided(Function):
    """out = the storage seen with ``size``, ``stride`` and ``offset`` (a view). Saves nothing; backward sums the
    gradient into a buffer over both geometries' storage, then views that buffer with the input's geometry."""

    node_name, array_forward, is_view = "AsStridedBackward0", True, True

    @staticmethod
    def forward(ctx, a, storage, size, stride, offset, in_geometry):
        if backend.memory_owner(storage) is not backend.memory_owner(a):  # (a capture's traced views: follow bases)
            # a replay of this view on another tensor of the base's shape (a view's regenerated grad_fn replays
            # its view ops on arange(numel) to find its elements): the geometry applies to that tensor's storage
            storage = _memory(backend.memory_owner(a))
        ctx.conf = (size, stride, offset, in_geometry)
        item = storage.itemsize
        return get_array_module(storage).lib.stride_tricks.as_strided(
            storage[offset:], shape=tuple(size), strides=tuple(s * item for s in stride))

    @staticmethod
    def backward(ctx, grad):
        size, stride, offset, (in_size, in_stride, in_offset) = ctx.conf
        if not all(size) or not all(in_size):  # torch: a plain zero gradient of the input's shape (zeros: _version 1)
            out = grad.new_zeros(in_size)
            if out._version_counter is not None:
                out._version_counter.value += 1
            return out, None, None, None, None, None
        # torch's as_strided_backward: a zero buffer from the first element either geometry reaches, the gradient
        # added at the output's elements, divided by how often the input shows each element when it may repeat
        # one, and returned as that buffer seen with the input's geometry: a view made in the backward's grad mode
        # (under no_grad, an in-place write to it with grad mode on is torch's error)
        start = min(offset, in_offset)
        offset, in_offset = offset - start, in_offset - start
        n = max(_span(size, stride, offset), _span(in_size, in_stride, in_offset))
        xp = get_array_module(grad._array)
        count = None
        repeats = _maybe_overlapping(in_size, in_stride)
        if repeats:
            count = xp.zeros(n, dtype=grad._array.dtype)
            in_pos = _positions(xp, n, in_size, in_stride, in_offset).reshape(-1)
            backend.scatter_add(count, in_pos, xp.ones(in_pos.size, dtype=count.dtype))
        buffer = StorageMap.apply(grad, n, _positions(xp, n, size, stride, offset), None, count)
        if buffer._version_counter is not None:  # torch writes it in place: copy_ or index_add_, then div_
            buffer._version_counter.value += 2 if repeats else 1
        out = AsStrided.apply(buffer, buffer._array, in_size, in_stride, in_offset, ((n,), (1,), 0))
        return out, None, None, None, None, None


class StorageMap(Function):
    """out = zeros(n) with g added at the storage positions ``src`` (g itself, flattened, when src is None),
    divided by ``count`` where given, read at the positions ``dst`` (all n when dst is None): the steps of torch's
    as_strided_backward, a node of its own under create_graph (AsStridedBackward0), whose gradient is the same
    map with src and dst swapped. Saves nothing."""

    node_name, array_forward = "AsStridedBackward0", True

    @staticmethod
    def forward(ctx, g, n, src, dst, count=None):
        ctx.conf = (n, src, dst, count)
        xp = get_array_module(g)
        if src is None:
            flat = g.reshape(-1)
        else:
            flat = xp.zeros(n, dtype=g.dtype)
            backend.scatter_add(flat, src.reshape(-1), g.reshape(-1))
        if count is not None:
            with backend.errstate(xp, divide="ignore", invalid="ignore"):  # (elements the input never shows)
                flat = flat / count
        return flat if dst is None else flat[dst]

    @staticmethod
    def backward(ctx, grad):
        n, src, dst, count = ctx.conf
        return StorageMap.apply(grad, n, dst, src, count), None, None, None, None


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


class Unfold(Function):
    """out = every window of ``size`` elements, ``step`` apart, along ``dim`` (a new last dim): a view of a.
    Saves nothing."""

    node_name, array_forward, is_view = "UnfoldBackward0", True, True

    @staticmethod
    def forward(ctx, a, dim, size, step):
        ctx.conf = (a.shape, dim, size, step)
        xp = get_array_module(a)
        if a.ndim == 0:
            return xp.lib.stride_tricks.as_strided(a, (1,), (a.itemsize,))
        n = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (n,) + a.shape[dim + 1:] + (size,)
        strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + (a.strides[dim],)
        return xp.lib.stride_tricks.as_strided(a, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return UnfoldBackward.apply(grad, *ctx.conf), None, None, None


class UnfoldBackward(Function):
    """out = zeros of the input's shape with each window's gradient added back where the window was (torch's
    unfold_backward). Saves nothing; its own gradient is the unfold of the incoming one."""

    node_name, array_forward = "UnfoldBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.conf = (dim, size, step)
        xp = get_array_module(g)
        if not shape:
            return g.reshape(())
        out = xp.zeros(shape, dtype=g.dtype)
        n = g.shape[dim]
        index = [slice(None)] * len(shape)
        for k in range(size):  # window element k of every window: one strided slice of the input
            index[dim] = slice(k, k + step * (n - 1) + 1, step)
            if step >= size:  # windows apart: each element gets one value, copied (a -0.0 stays -0.0, as torch's)
                out[tuple(index)] = g[..., k]
            else:  # overlapping windows: summed from +0.0, as torch's
                out[tuple(index)] += g[..., k]
        return out

    @staticmethod
    def backward(ctx, grad):
        return Unfold.apply(grad, *ctx.conf), None, None, None, None


def tensor_unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: the windows of ``size`` along ``dimension``, ``step`` apart, as a view."""
    dim = wrap_dim(dimension, max(self.ndim, 1))
    length = self.shape[dim] if self.ndim else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(self, dim, int(size), int(step))


def _matrix_view(name: str, batched: bool):
    """x.H (2-D only), x.mH and x.adjoint() (batches too): the transpose of the last two dims, a view (no complex
    dtypes here, so the conjugate changes nothing)."""

    def view(self: Tensor) -> Tensor:
        if (self.ndim != 2) if not batched else (self.ndim < 2):
            what = "matrices (2-D tensors)" if not batched else "matrices or batches of matrices"
            raise RuntimeError(f"tensor.{name} is only supported on {what}. Got {self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    return view


def storage_offset(self: Tensor) -> int:
    """Where self's first element sits in its storage, in elements."""
    base = self._base if self._base is not None else self
    # a base whose geometry changed in place (as_strided_ with an offset) keeps the array its storage is in
    root = base._array if base._storage_root is None else base._storage_root
    if not self._array.size:
        return 0
    flat = _memory(root)
    start = root if flat is None else flat  # (its first element is the storage's first, when dense)
    return (backend.data_ptr(self._array) - backend.data_ptr(start)) // self._array.itemsize


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False):
    """A new uninitialised tensor with the given sizes and strides (in elements) over a storage of its own."""
    size, stride = tuple(size), tuple(stride)
    extent = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = self.new_empty((extent,), dtype=dtype, device=device)
    out = base.as_strided(size, stride) if extent else base.new_empty(size)
    out = out.detach()  # (a fresh tensor, no view history)
    return out.requires_grad_(requires_grad)
