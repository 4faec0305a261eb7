"""Reductions into indexed positions: scatter_reduce, index_reduce, and scatter(..., reduce='add'|'multiply').

scatter_reduce/index_reduce fold ``src`` into ``self`` with sum/prod/mean/amax/amin (optionally leaving self's
own values out). Their backwards are torch's scatter_reduce_backward/index_reduce_backward (FunctionsManual.cpp),
written with differentiable ops, including their handling of zeros (prod) and ties (amax/amin: the gradient is
shared evenly by every element equal to the result). scatter(reduce=...) has no derivative in torch: its node is
``torch::autograd::NotImplemented`` and backward raises."""
from __future__ import annotations

import warnings

import numpy as np

from ...autograd.function import Function
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import iterator_layout
from .._twin import inplace_twin
from .._util import scalar_type_name, wrap_dim
from ..pointwise import where
from .gather_scatter import (_along, _check_range, _check_src_dtype, _index_arg, _scatter_plain, Gather, IndexSelect,
                             Scatter, ScatterAdd, ScatterValue)
from .index_write import index_arg, IndexAdd, IndexFill


_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _identity(reduce: str, dtype):
    """The value that leaves a reduction unchanged: where self's own values are left out, they start from it."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    lo, hi = (-np.inf, np.inf) if dtype.kind in "fV" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    return lo if reduce == "amax" else hi


def _reduce_into(a, idx, values, reduce: str, include_self: bool):
    """A copy of ``a`` with ``values`` folded in at the full advanced index ``idx`` (repeats fold in turn)."""
    xp = get_array_module(a)
    out = a.copy()
    if not include_self:
        out[idx] = _identity(reduce, a.dtype)
    backend.scatter_reduce(out, idx, values, _UFUNC[reduce])
    if reduce == "mean":
        count = xp.ones(a.shape, a.dtype) if include_self else xp.zeros(a.shape, a.dtype)
        backend.scatter_reduce(count, idx, xp.ones(values.shape, a.dtype), "add")
        count[count == 0] = 1
        out = out / count if a.dtype.kind in "fV" else out // count  # torch: floor division for integers
    return out.astype(a.dtype, copy=False)


def _full_index(shape: tuple, dim: int, index):
    """The advanced index of ``a[..., index[k], ...]`` for a block of ``shape`` (index along dim): grids elsewhere."""
    xp = get_array_module(index)
    grids = list(xp.ogrid[tuple(slice(0, s) for s in shape)])
    grids[dim] = index.reshape((1,) * dim + (-1,) + (1,) * (len(shape) - dim - 1))
    return tuple(grids)


def _check_reduce(reduce: str) -> str:
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # torch still takes the old names
    if reduce not in _UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return reduce


class ScatterReduce(Function):
    """out = a with src[i][j] folded into a[index[i][j]][j] (dim=0) by sum/prod/mean/amax/amin. Saves a, the
    index, src and out (as torch's, for every reduction)."""

    node_name, array_forward, index_args = "ScatterReduceBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src, reduce, include_self=True):
        if src.dtype != a.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if index.ndim != a.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
        if any(n > s and (k != dim) for k, (n, s) in enumerate(zip(index.shape, a.shape))) or \
                any(n > s for n, s in zip(index.shape, src.shape)):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} apart "
                               f"from dimension {dim} and to be no larger size than src {list(src.shape)}")
        _check_range(index, a.shape[dim] if a.ndim else 1, dim)
        ctx.dim, ctx.reduce, ctx.include_self, ctx.src_shape = dim, reduce, include_self, src.shape
        values = src[tuple(slice(0, s) for s in index.shape)]
        out = _reduce_into(a, _along(index, dim), values, reduce, include_self)
        ctx.save_for_backward(index, a, src, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        index, *rest = ctx.saved_tensors  # torch's error if any was changed in place since forward
        dim, reduce, needs = ctx.dim, ctx.reduce, ctx.needs_input_grad
        if needs[3] and tuple(index.shape) != tuple(ctx.src_shape):
            raise RuntimeError(f"Function ScatterReduceBackward0 returned an invalid gradient at index 1 - got "
                               f"{list(index.shape)} but expected shape compatible with {list(ctx.src_shape)}")
        ops = _Ops(dim, index, gather=lambda t: Gather.apply(t, dim, index),
                   add=lambda t, v: ScatterAdd.apply(t, dim, index, v),
                   reduce=lambda s, v: ScatterReduce.apply(s, dim, index, v, reduce, ctx.include_self),
                   clear=lambda t: ScatterValue.apply(t, dim, index, 0.0))
        if reduce != "sum":
            ga, gs = _reduce_backward(ops, grad, reduce, ctx.include_self, *rest)
        else:
            ga = grad if ctx.include_self else ops.clear(grad)
            gs = ops.gather(grad) if needs[3] else None
        return (ga if needs[0] else None), None, None, (gs if needs[3] else None), None, None


class IndexReduce(Function):
    """out = a with src.select(dim, k) folded into a.select(dim, index[k]) by prod/mean/amax/amin. Saves a, the
    index, src and out."""

    node_name, array_forward, index_args = "IndexReduceBackward0", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src, reduce, include_self=True):
        if index.ndim > 1:
            raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
                             f"type: {scalar_type_name(index.dtype)} and size: {list(index.shape)}")
        if index.dtype.kind not in "iu":
            raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                               f"{scalar_type_name(index.dtype)}")
        if src.dtype != a.dtype:
            raise RuntimeError(f"index_reduce_(): self ({scalar_type_name(a.dtype)}) and source "
                               f"({scalar_type_name(src.dtype)}) must have the same scalar type")
        a1, s1 = a.reshape(a.shape or (1,)), src.reshape(src.shape or (1,))
        if s1.ndim == a1.ndim and s1.shape[dim] != index.size:
            raise RuntimeError(f"index_reduce_(): Number of indices ({index.size}) should be equal to "
                               f"source.size(dim): ({s1.shape[dim]}), for dim: {dim}")
        if s1.shape[:dim] + s1.shape[dim + 1:] != a1.shape[:dim] + a1.shape[dim + 1:]:
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(a.shape)} source.shape = {list(src.shape)}")
        with backend.input_check():  # torch's index_reduce checks the range with index_select's text
            out_of_range = index.size and bool(((index < 0) | (index >= a1.shape[dim])).any())
        if out_of_range:
            raise IndexError("index out of range in self")
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        out = _reduce_into(a1, _full_index(s1.shape, dim, index), s1, reduce, include_self).reshape(a.shape)
        ctx.save_for_backward(index, a, src, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        index, a, src, out = ctx.saved_tensors
        dim, reduce, needs = ctx.dim, ctx.reduce, ctx.needs_input_grad
        ops = _Ops(dim, index, gather=lambda t: IndexSelect.apply(t, dim, index),
                   add=lambda t, v: IndexAdd.apply(t, dim, index, v, 1),
                   reduce=lambda s, v: IndexReduce.apply(s, dim, index, v, reduce, ctx.include_self),
                   clear=lambda t: IndexFill.apply(t, dim, index, 0.0))
        ga, gs = _reduce_backward(ops, grad, reduce, ctx.include_self, a, src, out)
        return (ga if needs[0] else None), None, None, (gs if needs[3] else None), None, None


class _Ops:
    """The four index operations a reduction's backward is written with: scatter_reduce's (gather, scatter_add,
    scatter_reduce, scatter of 0) or index_reduce's (index_select, index_add, index_reduce, index_fill of 0)."""

    def __init__(self, dim, index, gather, add, reduce, clear) -> None:
        self.dim, self.index, self.gather, self.add, self.reduce, self.clear = dim, index, gather, add, reduce, clear


def _const(array) -> Tensor:
    return Tensor._make(array)


def _reduce_backward(ops: _Ops, grad: Tensor, reduce: str, include_self: bool, a: Tensor, src: Tensor,
                     out: Tensor) -> tuple:
    """torch's scatter_reduce_backward / index_reduce_backward: (grad_self, grad_src)."""
    xp = get_array_module(grad._array)
    dt = grad._array.dtype
    if reduce == "prod":
        # the exclusive product of each element: divide the result by it, with zeros handled apart
        masked_self = a.masked_fill(_const(a._array == 0), 1.0)
        grad_self = grad * ops.reduce(masked_self, src) / masked_self
        src_zero = src._array == 0
        zeros_at = ops.add(_const(xp.zeros(a.shape, dt)), _const(src_zero.astype(dt)))
        counted = ops.gather(zeros_at)._array == 1
        # the only zero folded into its position (laid out as torch's bitwise_and: src_zero's layout first)
        single_zero = iterator_layout(src_zero & counted, (src_zero, counted))
        masked_src_result = ops.reduce(a, src.masked_fill(_const(single_zero), 1.0))
        grad_src = _where(single_zero, ops.gather(grad * masked_src_result),
                          ops.gather(grad * out) / src.masked_fill(_const(src_zero), 1.0))
    elif reduce == "mean":
        count = xp.ones(grad.shape, dt) if include_self else xp.zeros(grad.shape, dt)
        count = ops.add(_const(count), _const(xp.ones(src.shape, dt)))._array
        count = xp.where(count == 0, xp.ones((), dt), count)
        grad_self = grad / _const(count)
        grad_src = ops.gather(grad) / ops.gather(_const(count))
    else:  # amax, amin: the gradient is shared evenly by the elements equal to the result
        value = ops.gather(out)._array
        # (comparisons laid out as torch's TensorIterator: the first operand's layout first)
        self_is = iterator_layout(a._array == out._array, (a._array, out._array)).astype(dt)
        src_is = iterator_layout(src._array == value, (src._array, value)).astype(dt)
        share = grad / ops.add(_const(self_is), _const(src_is))
        grad_self = _const(self_is) * share
        grad_src = _const(src_is) * ops.gather(share)
    if not include_self:
        grad_self = ops.clear(grad_self)
    return grad_self, grad_src


def _where(cond, a: Tensor, b: Tensor) -> Tensor:
    return where(_const(cond), a, b)


class ScatterLegacyReduce(Function):
    """out = a with src (a tensor or a number) added or multiplied in at a[index[i][j]][j] (dim=0): the deprecated
    scatter(reduce=...). No derivative in torch: backward raises. Saves nothing."""

    node_name, array_forward, index_args = "torch::autograd::NotImplemented", True, (2,)

    @staticmethod
    def forward(ctx, a, dim, index, src, reduce):
        _check_range(index, a.shape[dim] if a.ndim else 1, dim)
        out = a.copy()
        if hasattr(src, "shape"):
            src = src[tuple(slice(0, s) for s in index.shape)]
        else:
            src = get_array_module(a).full(index.shape, src, a.dtype)
        backend.scatter_reduce(out, _along(index, dim), src.astype(a.dtype, copy=False),
                               "add" if reduce == "add" else "multiply")
        return out

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"derivative for aten::{'scatter_' if ctx._forward_cls.inplace else 'scatter'} is not "
                           "implemented")


ScatterInplace = inplace_twin(Scatter)


ScatterValueInplace = inplace_twin(ScatterValue)


ScatterAddInplace = inplace_twin(ScatterAdd)


ScatterReduceInplace = inplace_twin(ScatterReduce)


IndexReduceInplace = inplace_twin(IndexReduce)


ScatterLegacyReduceInplace = inplace_twin(ScatterLegacyReduce)


def _reduce_args(input: Tensor, dim: int, index, src: Tensor, reduce: str, include_self: bool, fn: str) -> tuple:
    if not isinstance(include_self, bool):
        raise TypeError(f"{fn}(): argument 'include_self' must be bool, not {type(include_self).__name__}")
    return input, wrap_dim(dim, input.ndim), index, src, reduce, include_self


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """input with src folded into input at index along dim by reduce (sum, prod, mean, amax or amin)."""
    reduce = _check_reduce(reduce)
    return ScatterReduce.apply(*_reduce_args(input, dim, _index_arg(index, "scatter"), src, reduce, include_self,
                                             "scatter_reduce"))


def scatter_reduce_(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    reduce = _check_reduce(reduce)
    return ScatterReduceInplace.apply(*_reduce_args(input, dim, _index_arg(index, "scatter"), src, reduce,
                                                    include_self, "scatter_reduce_"))


_warned = set()


def _warn_once(key: str, text: str) -> None:
    """torch's TORCH_WARN_ONCE: the warning on the first call in the process only."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(text, UserWarning, stacklevel=4)


def _check_index_reduce(reduce: str) -> None:
    _warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time.")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """input with source.select(dim, k) folded into input.select(dim, index[k]) by prod, mean, amax or amin."""
    _check_index_reduce(reduce)
    return IndexReduce.apply(*_reduce_args(input, dim, index_arg(index), source, reduce,
                                           include_self, "index_reduce"))


def index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    _check_index_reduce(reduce)
    return IndexReduceInplace.apply(*_reduce_args(input, dim, index_arg(index), source, reduce,
                                                  include_self, "index_reduce_"))


def scatter_with_reduce(input: Tensor, dim: int, index, src, reduce: str, inplace: bool = False) -> Tensor:
    """scatter(dim, index, src or value, reduce='add'|'multiply'), torch's deprecated form."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        _check_src_dtype(input, src)
        _warn_once("scatter", "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                              "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                              "reduction options.")
    cls = ScatterLegacyReduceInplace if inplace else ScatterLegacyReduce
    return cls.apply(input, wrap_dim(dim, input.ndim), _index_arg(index, "scatter"), src, reduce)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """input with `input[index[i][j]][j] = src[i][j]` (dim=0), or the value; with reduce='add'|'multiply' folded in
    (torch's deprecated form, with no derivative)."""
    if reduce is not None:
        return scatter_with_reduce(input, dim, index, value if src is None else src, reduce)
    return _scatter_plain(input, dim, index, src, value=value)


def scatter_(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """In place: input[index[i][j]][j] = src[i][j] (dim=0), or the value; torch's node (ScatterBackward0/1)."""
    if reduce is not None:
        return scatter_with_reduce(input, dim, index, value if src is None else src, reduce, inplace=True)
    _check_src_dtype(input, src)
    dim, index = wrap_dim(dim, input.ndim), _index_arg(index, "scatter")
    src = value if src is None else src
    if isinstance(src, Tensor):
        return ScatterInplace.apply(input, dim, index, src)
    return ScatterValueInplace.apply(input, dim, index, float(src) if input._array.dtype.kind in "fV" else src)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In place: input[index[i][j]][j] += src[i][j] (dim=0), repeats accumulating."""
    return ScatterAddInplace.apply(input, wrap_dim(dim, input.ndim), _index_arg(index, "scatter"), src)
