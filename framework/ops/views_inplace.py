"""In-place view ops: t_, transpose_ (swapdims_, swapaxes_), squeeze_, unsqueeze_, as_strided_.

Each changes only its tensor's geometry (shape, strides): the memory stays, the version counter is bumped and
the tensor's history becomes the op's node, named as torch's in-place overloads (TBackward1, TransposeBackward1,
SqueezeBackward3/4/5, UnsqueezeBackward1, AsStridedBackward1).  As torch's generated code (set_history, not
rebase_history), a view changed this way stays a view of its base with the node as its grad_fn, no CopySlices.
Our views find their elements by replaying view ops on their base, so the op also keeps that replay in step:
a view's replay gets the op appended; a base records the op's inverse for the views made before it.
"""
from __future__ import annotations

from ..tensor import Tensor
from ._util import normalize_dims, wrap_dim
from .strided import AsStrided, as_strided, as_strided_args
from .views import SqueezeAll, Squeeze, SqueezeDims, T, Transpose, Unsqueeze


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
