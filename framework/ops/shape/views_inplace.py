"""In-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_) and storage changes (resize_, resize_as_, set_)."""
from __future__ import annotations

from ...autograd.function import Function
from ... import dtypes
from ...backend import get_array_module
from ...creation import zeros
from ...tensor import Tensor
from .._util import normalize_dims, shape_args, wrap_dim
from .strided import _storage, as_strided, as_strided_args, AsStrided
from .views import Squeeze, SqueezeAll, SqueezeDims, T, Transpose, Unsqueeze


class Resize(Function):
    """a becomes ``shape`` elements of its storage from its offset (grown if short). Never recorded: a tensor
    that requires grad cannot be resized."""

    node_name, array_forward, inplace, inplace_view = "ResizeBackward0", True, True, True
    checks_internal_overlap = checks_overlap = False  # no element is written

    @staticmethod
    def forward(ctx, a, storage, offset, shape, can_grow):
        n = 1
        for s in shape:
            n *= s
        if offset + n > storage.size:
            if not can_grow:
                raise RuntimeError(
                    "Trying to resize storage that is not resizable\n\nThis tensor shares its memory with its base "
                    f"(a view): growing it to {list(shape)} would need a bigger storage, and an array cannot grow "
                    "under the arrays that view it. Resize a clone (`t = t.clone()`) or the base instead.")
            grown = get_array_module(storage).empty(offset + n, dtype=storage.dtype)
            grown[:storage.size] = storage
            storage = grown
        return storage[offset:offset + n].reshape(shape)

    @staticmethod
    def backward(ctx, grad):  # never recorded (see the class docstring)
        raise RuntimeError("cannot resize variables that require grad")


def resize_(input: Tensor, *sizes, memory_format=None) -> Tensor:
    """input resized in place to ``sizes`` (contiguous from its storage offset); the same sizes: unchanged."""
    shape = tuple(int(s) for s in shape_args(sizes))
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad\n\nresize_ changes how many elements the "
                           "tensor has, which no gradient can follow: resize `t.detach()` (or a clone), or build "
                           "the new tensor with out-of-place ops (`t.reshape`, `framework.cat`).")
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow\n\n"
                           f"resize_ was given a negative size: {list(shape)}.")
    if memory_format not in (None, dtypes.contiguous_format, dtypes.preserve_format):
        raise NotImplementedError(f"resize_: memory_format={memory_format} is not supported (only "
                                  "framework.contiguous_format)")
    if shape == tuple(input.shape):
        return input
    try:
        storage, offset, _ = _storage(input)
    except NotImplementedError:  # a base whose array is not contiguous memory of its own: resize a copy of it
        if input._base is not None:
            raise
        storage, offset = input._array.reshape(-1), 0
    strides = tuple(_contiguous_strides(shape))
    _apply(Resize, input, (storage, offset, shape, input._base is None),
           lambda b: as_strided(b, shape, strides, offset), None)
    if input._base is None and offset + input._array.size > storage.size:
        input._storage_root = input._array.base  # the grown storage (the new array is a view of it)
    return input


def _contiguous_strides(shape: tuple):
    stride = 1
    out = []
    for s in reversed(shape):
        out.append(stride)
        stride *= max(s, 1)
    return reversed(out)


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """input resized in place to the_template's sizes."""
    return resize_(input, tuple(the_template.shape), memory_format=memory_format)


# torch's C++ type names, which its set_ error prints
_C_TYPES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


class SetSource(Function):
    """a takes source's memory, sizes and strides (torch's set_); autograd cannot follow that, as torch's: its
    node is torch's NotImplemented, whose backward raises. Saves nothing."""

    node_name, array_forward, inplace, inplace_view = "torch::autograd::NotImplemented", True, True, True
    checks_internal_overlap = checks_overlap = False  # no element is written

    @staticmethod
    def forward(ctx, a, source):
        if source.dtype != a.dtype:
            raise RuntimeError(f"Could not set tensor of type {_C_TYPES.get(source.dtype.name, source.dtype.name)} to "
                               f"a tensor of type {_C_TYPES.get(a.dtype.name, a.dtype.name)}")
        return source

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for set_ is not implemented\n\nset_() swapped the tensor's memory for "
                           "another's: no gradient can flow through it. Use out-of-place ops (`t = source`) instead.")


def set_(input: Tensor, source: Tensor | None = None) -> Tensor:
    """input shares source's memory, sizes and strides from now on (no source: an empty tensor); its version is bumped,
    source's is not."""
    if source is None:
        source = zeros(0, dtype=input.dtype, device=input.device)
    SetSource.apply(input, source)
    input._view_fn = None  # its memory is no longer its base's: in-place ops give it a history of its own
    if input._base is None:  # as_strided_ and resize_ address source's storage from now on
        owner = source if source._base is None else source._base
        input._storage_root = owner._array if owner._storage_root is None else owner._storage_root
        input._geometry_inverses = ()
    return input


class TInplace(T):
    """a becomes a.t() in place (the same memory). Saves nothing."""

    node_name, inplace, inplace_view, is_view = "TBackward1", True, True, False
    checks_internal_overlap = checks_overlap = False  # no element is written

    @staticmethod
    def forward(ctx, a):
        if a.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
        return a.T


class TransposeInplace(Transpose):
    """a becomes a.transpose(d0, d1) in place. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "TransposeBackward1", True, True, False
    checks_internal_overlap = checks_overlap = False


class SqueezeAllInplace(SqueezeAll):
    """a loses its size-1 dims in place. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "SqueezeBackward3", True, True, False
    checks_internal_overlap = checks_overlap = False


class SqueezeInplace(Squeeze):
    """a loses dim ``dim`` in place if it has size 1. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "SqueezeBackward4", True, True, False
    checks_internal_overlap = checks_overlap = False


class SqueezeDimsInplace(SqueezeDims):
    """a loses those of ``dims`` that have size 1, in place. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "SqueezeBackward5", True, True, False
    checks_internal_overlap = checks_overlap = False


class UnsqueezeInplace(Unsqueeze):
    """a gets a new size-1 dim at ``dim`` in place. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "UnsqueezeBackward1", True, True, False
    checks_internal_overlap = checks_overlap = False


class AsStridedInplace(AsStrided):
    """a becomes its storage seen with new sizes, strides and offset, in place. Saves nothing."""

    node_name, inplace, inplace_view, is_view = "AsStridedBackward1", True, True, False
    checks_internal_overlap = checks_overlap = False


def _apply(cls, t: Tensor, args: tuple, redo, undo) -> Tensor:
    """Run the in-place view op ``cls`` on t, then keep the view replays in step with t's new geometry: a view
    replays ``redo`` after its own view ops; a base remembers ``undo`` (None: no view op undoes it) for the views
    made before the change, and the array its storage is in (as_strided_ and resize_ address the storage)."""
    before = t._array
    cls.apply(t, *args)
    if t._base is not None:
        old = t._view_fn
        if old is not None:
            t._view_fn = lambda b: redo(old(b))
    else:
        if t._storage_root is None:
            t._storage_root = before
        if type(t._geometry_inverses) is not list:  # its own list (the class default is an empty tuple)
            t._geometry_inverses = []
        t._geometry_inverses.append(undo)  # one small closure per change, kept with the base
    return t


def t_(input: Tensor) -> Tensor:
    """input.t() in place."""
    return _apply(TInplace, input, (), T.apply, T.apply)


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """input.transpose(dim0, dim1) in place."""
    d0, d1 = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    swap = lambda b: Transpose.apply(b, d0, d1)  # noqa: E731  (its own inverse)
    return _apply(TransposeInplace, input, (d0, d1), swap, swap)


swapdims_ = swapaxes_ = transpose_


def squeeze_(input: Tensor, dim=None) -> Tensor:
    """input.squeeze(dim) in place (dim: None for every size-1 dim, an int, or a tuple of dims)."""
    shape = tuple(input.shape)
    if dim is None:
        cls, args = SqueezeAllInplace, ()
    else:
        cls, args = (SqueezeDimsInplace if isinstance(dim, (tuple, list)) else SqueezeInplace), (dim,)
    wanted = normalize_dims(dim, len(shape))
    removed = [d for d in range(len(shape)) if shape[d] == 1 and d in wanted]

    def redo(b):
        return SqueezeAll.apply(b) if dim is None else \
            (SqueezeDims if isinstance(dim, (tuple, list)) else Squeeze).apply(b, dim)

    def undo(b):
        for d in removed:  # increasing: each unsqueeze puts a dim back at its place in the old shape
            b = Unsqueeze.apply(b, d)
        return b
    return _apply(cls, input, args, redo, undo)


def unsqueeze_(input: Tensor, dim: int) -> Tensor:
    """input.unsqueeze(dim) in place."""
    d = dim % (input.ndim + 1) if -input.ndim - 1 <= dim <= input.ndim else dim  # (out of range: forward says so)
    return _apply(UnsqueezeInplace, input, (dim,), lambda b: Unsqueeze.apply(b, d), lambda b: Squeeze.apply(b, d))


def as_strided_(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """input.as_strided(size, stride, storage_offset) in place; views of input made before it cannot follow."""
    size, stride, offset = tuple(int(s) for s in size), tuple(int(s) for s in stride), storage_offset
    return _apply(AsStridedInplace, input, as_strided_args(input, size, stride, storage_offset),
                  lambda b: as_strided(b, size, stride, offset), None)
