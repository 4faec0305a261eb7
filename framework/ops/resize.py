"""resize_, resize_as_ and set_: a tensor's sizes or storage changed in place.

torch's rules: a tensor that requires grad cannot be resized (in any grad mode); the same sizes change nothing
(not even the version); other sizes make the tensor contiguous from its storage offset, keeping the storage when
it holds enough elements (shrinking keeps every element, the first ones are seen) and growing it otherwise (the
old elements kept, the new ones uninitialised).  Our storages are NumPy/CuPy arrays, which cannot grow under the
arrays that view them: growing a view's storage is refused with torch's error for storages that cannot grow, and
a grown base gets a new array (views made of it before no longer share its memory, as they would in torch).
"""
from __future__ import annotations

from .. import dtypes
from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor
from ..creation import zeros
from ._util import shape_args
from .strided import _storage, as_strided
from .views_inplace import _apply


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
