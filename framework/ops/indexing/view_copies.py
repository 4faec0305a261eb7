"""torch's ``*_copy`` functions (view_copy, permute_copy, select_copy, split_copy...): a view op's result as a
fresh C-contiguous tensor, recorded as one node named after the view's (``ViewBackward0_copy``).

One helper serves them all: the public view function runs on a leaf that shares the input's array, and the view
node it records (its ctx) is kept as the copy node's; the copy's backward is the view's own backward on that ctx.
So each ``*_copy`` takes its view's arguments, errors and gradient, and none is written twice."""
from __future__ import annotations

from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, is_grad_enabled
from ...backend import get_array_module
from ...tensor import Tensor
from ..shape import Alias, as_strided, diagonal, expand, permute, squeeze, t, tensor_unfold, transpose, unsqueeze, view
from .slicing import narrow, select, split, unbind
from .subscript import getitem


def _fresh(a):
    """A new C-ordered array holding ``a`` (an empty array written into: one spelling every array backend agrees on)."""
    out = get_array_module(a).empty(a.shape, dtype=a.dtype)
    out[...] = a
    return out


class _ViewCopy(Function):
    """The copy of a view's result(s): forward gets the view's arrays and copies them; backward is the view's.
    Saves the view's node (its ctx)."""

    array_forward = True

    @staticmethod
    def forward(ctx, a, arrays, view_ctx):
        ctx.view_ctx = view_ctx
        copies = tuple(_fresh(v) for v in arrays)
        return copies if len(copies) > 1 or view_ctx._forward_cls.multi_view else copies[0]

    @staticmethod
    def backward(ctx, *grads):
        view_ctx = ctx.view_ctx
        g = view_ctx._forward_cls.backward(view_ctx, *grads)
        return (g[0] if isinstance(g, tuple) else g), None, None  # (a one-input view may return its grad bare)


_COPY_CLASSES: dict = {}


def _copy_class(view_cls: type, node_name: str | None) -> type:
    """The copy Function of a view op (made once, cached): its node name is the view's plus ``_copy``."""
    name = node_name or f"{view_cls.node_name}_copy"
    if name not in _COPY_CLASSES:
        _COPY_CLASSES[name] = type(f"{view_cls.__name__}Copy", (_ViewCopy,), {
            "node_name": name, "__module__": __name__, "__doc__": f"{name}: a copy of {view_cls.__name__}'s view."})
    return _COPY_CLASSES[name]


def view_copy_of(view_fn, input: Tensor, *args, node_name: str | None = None):
    """``view_fn(input, *args)`` as new memory: one node named for the view (``<its node>_copy``), as torch's."""
    if not isinstance(input, Tensor):
        return view_fn(input, *args)  # the view's own TypeError
    probe = Tensor._make(input._array)
    records = is_grad_enabled() and input.requires_grad and input._array.dtype.kind in "fV"
    if records:
        probe.requires_grad_(True)
    with enable_grad():
        out = view_fn(probe, *args)
    many = isinstance(out, (tuple, list))
    outs = tuple(out) if many else (out,)
    if not records or not outs or outs[0].grad_fn is None:
        copies = tuple(Tensor._make(_fresh(o._array)) for o in outs)
        return copies if many else copies[0]
    view_ctx = outs[0].grad_fn
    result = _copy_class(view_ctx._forward_cls, node_name).apply(input, tuple(o._array for o in outs), view_ctx)
    return tuple(result) if many else result


def view_copy(input: Tensor, *size) -> Tensor:
    return view_copy_of(view, input, *size)


def permute_copy(input: Tensor, dims) -> Tensor:
    return view_copy_of(permute, input, dims)


def t_copy(input: Tensor) -> Tensor:
    return view_copy_of(t, input)


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return view_copy_of(transpose, input, dim0, dim1)


def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return view_copy_of(squeeze, input, dim)


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return view_copy_of(unsqueeze, input, dim)


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return view_copy_of(expand, input, size)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return view_copy_of(diagonal, input, offset, dim1, dim2)


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return view_copy_of(select, input, dim, index)


def _slice(input: Tensor, dim: int, start, end, step: int) -> Tensor:
    dim = dim + input.ndim if dim < 0 else dim
    return getitem(input, (slice(None),) * dim + (slice(start, end, step),))


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
               step: int = 1) -> Tensor:
    return view_copy_of(_slice, input, dim, start, end, step)


def alias_copy(input: Tensor) -> Tensor:
    return view_copy_of(Alias.apply, input)


def unbind_copy(input: Tensor, dim: int = 0) -> tuple:
    return view_copy_of(unbind, input, dim)


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    return view_copy_of(split, input, split_size, dim)


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return view_copy_of(split, input, list(split_sizes), dim)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """narrow as new memory: torch names its node NarrowCopyBackward0 (not SliceBackward0_copy)."""
    return view_copy_of(narrow, input, dim, start, length, node_name="NarrowCopyBackward0")


def as_strided_copy(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    return view_copy_of(as_strided, input, size, stride, storage_offset)


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return view_copy_of(tensor_unfold, input, dimension, size, step)


class DetachCopy(Function):
    """torch.detach_copy: a copy whose node has no derivative (torch's NotImplemented node). Saves nothing."""

    node_name, array_forward = "torch::autograd::NotImplemented", True

    @staticmethod
    def forward(ctx, a):
        return _fresh(a)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::detach_copy is not implemented")


def detach_copy(input: Tensor) -> Tensor:
    return DetachCopy.apply(input)
