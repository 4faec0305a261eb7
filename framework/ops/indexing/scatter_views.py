"""The out-of-place writes into a view: diagonal_scatter, select_scatter, slice_scatter.

Each returns a copy of ``input`` whose diagonal/select/slice view holds ``src``. Backward: ``input`` gets the
gradient with that view zeroed (the same op with zeros), ``src`` the gradient's view (torch's derivatives.yaml)."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from ..shape.diagonals import _check_diagonal_dims, _set_diagonal
from ...memory_layout import copy_preserving_layout
from .._util import wrap_dim
from ..shape import Diagonal
from .subscript import Select, Slice


def _check_src(view_shape: tuple, src) -> None:
    if tuple(view_shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view_shape)}")


class _ViewScatter(Function):
    """out = a copy of a with view(out) = src. Saves nothing."""

    array_forward = True

    @classmethod
    def forward(cls, ctx, a, src, *args):
        ctx.args, ctx.src_meta = args, (src.shape, src.dtype)
        out = copy_preserving_layout(a)  # torch's *_scatter keep a transposed input's layout
        cls._write(get_array_module(a), out, src.astype(a.dtype, copy=False), *args)
        return out

    @classmethod
    def backward(cls, ctx, grad):
        needs = ctx.needs_input_grad
        ga = gs = None
        if needs[0]:
            zeros = Tensor._make(get_array_module(grad._array).zeros(ctx.src_meta[0], grad._array.dtype))
            ga = cls.apply(grad, zeros, *ctx.args)
        if needs[1]:
            gs = cls._view(grad, *ctx.args)
            if gs.dtype.np != ctx.src_meta[1]:
                gs = gs.to(ctx.src_meta[1])
        return (ga, gs) + (None,) * len(ctx.args)


class DiagonalScatter(_ViewScatter):
    """out = a copy of a with its ``offset`` diagonal over d1, d2 = src. Saves nothing."""

    node_name = "DiagonalScatterBackward0"

    @staticmethod
    def _write(xp, out, src, offset, d1, d2):
        view_shape = Diagonal.forward(_Meta(), out, offset, d1, d2).shape
        _check_src(view_shape, src)
        _set_diagonal(xp, out, src, offset, d1, d2)

    @staticmethod
    def _view(grad, offset, d1, d2):
        return Diagonal.apply(grad, offset, d1, d2)


class SelectScatter(_ViewScatter):
    """out = a copy of a with a.select(dim, index) = src. Saves nothing."""

    node_name = "SelectScatterBackward0"

    @staticmethod
    def _write(xp, out, src, dim, index):
        view = Select.forward(_Meta(), out, dim, index)
        _check_src(view.shape, src)
        view[...] = src

    @staticmethod
    def _view(grad, dim, index):
        return Select.apply(grad, dim, index)


class SliceScatter(_ViewScatter):
    """out = a copy of a with a[start:end:step] along dim = src. Saves nothing."""

    node_name = "SliceScatterBackward0"

    @staticmethod
    def _write(xp, out, src, dim, sl):
        view = Slice.forward(_Meta(), out, dim, sl)
        _check_src(view.shape, src)
        view[...] = src

    @staticmethod
    def _view(grad, dim, sl):
        return Slice.apply(grad, dim, sl)


class _Meta:
    """A stand-in ctx for calling a view op's forward on arrays (it only sets attributes)."""


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """input with its ``offset`` diagonal over dim1, dim2 replaced by src (a copy)."""
    d1, d2 = _check_diagonal_dims(input.ndim, dim1, dim2)
    return DiagonalScatter.apply(input, src, int(offset), d1, d2)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """input with input.select(dim, index) replaced by src (a copy)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    return SelectScatter.apply(input, src, wrap_dim(dim, input.ndim), int(index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """input with input[start:end:step] along dim replaced by src (a copy)."""
    return SliceScatter.apply(input, src, wrap_dim(dim, input.ndim), slice(start, end, step))
