"""The op-level mapping, continued: shapes, views and indexing, and the graph-free functions (comparisons
and logic, recorded by name); ``_symbolic.py`` holds the registry and the arithmetic, activation, product,
convolution, pooling, normalization and reduction mappings."""
from __future__ import annotations

import numpy as np

from ..ops.shape import Cat, Stack
from ..ops.pointwise import MaskedFill, Where
from ..ops.conversion import ToCopy
from ..ops.sparse import Embedding
from ..ops.shape import Tril, Triu
from ..ops.indexing import Index, Select, Slice, Split, SplitWithSizes, Unbind
from ..ops.vision import ConstantPad
from ..ops.shape import (Expand, Permute, ReshapeAlias, ReshapeCopy, Squeeze, SqueezeAll, SqueezeDims, T, Transpose,
                         Unsqueeze, View)
from ..tensor import Tensor
from ._graph import INT64_MAX, UnsupportedOp
from ._symbolic import SYMBOLIC, _axis, _dims, _shape, _unary, maps


# ---- shapes, views and indexing ---------------------------------------------------------------------

@maps(View, ReshapeAlias, ReshapeCopy)
def _view(g, call):
    x0, out = call.args[0], call.outputs[0]
    if _shape(x0) == _shape(out):
        return [g.node("Identity", [g.name(x0)])]
    return [g.reshape(g.name(x0), _shape(x0), _shape(out))]


@maps(Expand)
def _expand(g, call):
    x0, out = call.args[0], call.outputs[0]
    ins, outs = _shape(x0), _shape(out)
    if ins == outs:
        return [g.node("Identity", [g.name(x0)])]
    aligned = (None,) * (len(outs) - len(ins)) + ins
    # Expand broadcasts both ways: a 1 keeps the input's own size (which may be dynamic)
    target = [1 if i == o else o for i, o in zip(aligned, outs)]
    return [g.node("Expand", [g.name(x0), g.ints(target)])]


@maps(Transpose)
def _transpose(g, call):
    x0, d0, d1 = call.args
    rank = x0._array.ndim
    perm = list(range(rank))
    a, b = _axis(d0, rank), _axis(d1, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return [g.node("Transpose", [g.name(x0)], perm=perm)]


@maps(T)
def _t(g, call):
    x0 = call.args[0]
    perm = list(range(x0._array.ndim))[::-1]
    return [g.node("Transpose", [g.name(x0)], perm=perm)]


@maps(Permute)
def _permute(g, call):
    x0, dims = call.args
    return [g.node("Transpose", [g.name(x0)], perm=[_axis(d, x0._array.ndim) for d in dims])]


@maps(Squeeze, SqueezeDims, SqueezeAll)
def _squeeze(g, call):
    x0, shape = call.args[0], _shape(call.args[0])
    dims = range(len(shape)) if len(call.args) == 1 else _dims(call.args[1], len(shape))
    axes = [d for d in dims if shape[d] == 1]  # torch leaves a dim that is not 1 as it is
    if not axes:
        return [g.node("Identity", [g.name(x0)])]
    return [g.node("Squeeze", [g.name(x0), g.ints(axes)])]


@maps(Unsqueeze)
def _unsqueeze(g, call):
    x0, dim = call.args
    return [g.node("Unsqueeze", [g.name(x0), g.ints([_axis(dim, x0._array.ndim + 1)])])]


@maps(Cat)
def _cat(g, call):
    dim, *tensors = call.args
    tensors = [t for t in tensors if not (t._array.ndim == 1 and t._array.shape[0] == 0)]  # torch skips empty 1-D
    rank = tensors[0]._array.ndim
    return [g.node("Concat", [g.name(t) for t in tensors], axis=_axis(dim, rank))]


@maps(Stack)
def _stack(g, call):
    dim, *tensors = call.args
    axis = g.ints([_axis(dim, tensors[0]._array.ndim + 1)])
    return [g.node("Concat", [g.node("Unsqueeze", [g.name(t), axis]) for t in tensors], axis=_axis(
        dim, tensors[0]._array.ndim + 1))]


@maps(Split, SplitWithSizes)
def _split(g, call):
    x0, dim, sizes = call.args
    return list(g.node("Split", [g.name(x0), g.ints(sizes)], n_out=len(sizes), axis=_axis(dim, x0._array.ndim))) \
        if len(sizes) > 1 else [g.node("Identity", [g.name(x0)])]


@maps(Unbind)
def _unbind(g, call):
    x0, dim = call.args
    axis = _axis(dim, x0._array.ndim)
    n = _shape(x0)[axis]
    parts = g.node("Split", [g.name(x0), g.ints([1] * n)], n_out=n, axis=axis) if n > 1 else [g.name(x0)]
    return [g.node("Squeeze", [p, g.ints([axis])]) for p in parts]


@maps(Select)
def _select(g, call):
    x0, dim, i = call.args
    return [g.node("Gather", [g.name(x0), g.constant(np.array(int(i), np.int64), "index")],
                   axis=_axis(dim, x0._array.ndim))]


@maps(Slice)
def _slice(g, call):
    x0, dim, sl = call.args
    start = 0 if sl.start is None else sl.start
    stop = INT64_MAX if sl.stop is None else sl.stop
    step = 1 if sl.step is None else sl.step
    return [g.node("Slice", [g.name(x0), g.ints([start]), g.ints([stop]), g.ints([_axis(dim, x0._array.ndim)]),
                             g.ints([step])])]


@maps(ConstantPad)
def _constant_pad(g, call):
    x0, pads, value = call.args  # pads: (before, after) per dim; negative crops, as ONNX's Pad
    begins, ends = [int(lo) for lo, _ in pads], [int(hi) for _, hi in pads]
    return [g.node("Pad", [g.name(x0), g.ints(begins + ends), g.name(value, x0)])]


@maps(Index)
def _index(g, call):
    """a[..., idx, ...] with one integer index tensor after full slices (the common advanced index)."""
    x0, *parts = call.args
    tensors = [i for i, p in enumerate(parts) if isinstance(p, Tensor)]
    full = all(isinstance(p, slice) and p == slice(None) for i, p in enumerate(parts) if i not in tensors)
    if len(tensors) != 1 or not full or parts[tensors[0]]._array.dtype.kind not in "iu":
        raise UnsupportedOp("only an index by one integer tensor (after full slices) has a mapping")
    return [g.node("Gather", [g.name(x0), g.name(parts[tensors[0]])], axis=tensors[0])]


@maps(ToCopy)
def _to_copy(g, call):
    x0, np_dtype = call.args[:2]
    if np_dtype is None or np.dtype(np_dtype) == x0._array.dtype:
        return [g.node("Identity", [g.name(x0)])]
    return [g.node("Cast", [g.name(x0)], to=g.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype)))]


@maps(Where)
def _where(g, call):
    cond, a, b = call.args
    like = a if isinstance(a, Tensor) else b
    return [g.node("Where", [g.name(cond), g.name(a, like), g.name(b, like)])]


@maps(MaskedFill)
def _masked_fill(g, call):
    x0, mask, value = call.args
    return [g.node("Where", [g.name(mask), g.name(value, x0), g.name(x0)])]


@maps(Embedding)
def _embedding(g, call):
    weight, idx = call.args[:2]
    return [g.node("Gather", [g.name(weight), g.name(idx)], axis=0)]


@maps(Tril, Triu)
def _trilu(g, call):
    x0, diagonal = call.args[:2]
    return [g.node("Trilu", [g.name(x0), g.constant(np.array(int(diagonal), np.int64))],
                   upper=int(call.op is Triu))]


# ---- graph-free functions (comparisons and logic; recorded by name, see _tracer.GRAPH_FREE) ---------------

def _common(g, a, b) -> tuple:
    """Both operands' value names in one dtype (torch compares an int tensor with a float in floating point)."""
    ta, tb = (a if isinstance(a, Tensor) else None), (b if isinstance(b, Tensor) else None)
    kinds = [t._array.dtype for t in (ta, tb) if t is not None]
    dtype = np.result_type(*kinds)
    if any(isinstance(v, float) for v in (a, b)) and dtype.kind in "biu":
        dtype = np.dtype(np.float32)
    names = []
    for v in (a, b):
        if isinstance(v, Tensor):
            name = g.name(v)
            if v._array.dtype != dtype:
                name = g.node("Cast", [name], to=g.helper.np_dtype_to_tensor_dtype(dtype))
            names.append(name)
        else:
            names.append(g.constant(np.array(v, dtype=dtype), "scalar"))
    return names


def _compare(op_type, negate=False):
    def mapping(g, call):
        out = g.node(op_type, _common(g, *call.args[:2]))
        return [g.node("Not", [out]) if negate else out]
    return mapping


for _name, _op, _neg in [("eq", "Equal", False), ("ne", "Equal", True), ("lt", "Less", False),
                         ("le", "LessOrEqual", False), ("gt", "Greater", False), ("ge", "GreaterOrEqual", False)]:
    SYMBOLIC[_name] = _compare(_op, _neg)


def _logic(op_type):
    def mapping(g, call):
        if any(isinstance(a, Tensor) and a._array.dtype.kind != "b" for a in call.args[:2]):
            raise UnsupportedOp("bitwise logic on integers has no mapping (bool tensors only)")
        a, b = call.args[:2]
        like = a if isinstance(a, Tensor) else b
        return [g.node(op_type, [g.name(a, like), g.name(b, like)])]
    return mapping


for _name, _op in [("logical_and", "And"), ("logical_or", "Or"), ("logical_xor", "Xor"), ("bitwise_and", "And"),
                   ("bitwise_or", "Or"), ("bitwise_xor", "Xor")]:
    SYMBOLIC[_name] = _logic(_op)


def _logical_not(g, call):
    x0 = call.args[0]
    x = g.name(x0)
    if x0._array.dtype.kind != "b":
        if call.op == "invert":
            raise UnsupportedOp("~ on integers (bitwise not) has no mapping (bool tensors only)")
        x = g.node("Cast", [x], to=g.helper.np_dtype_to_tensor_dtype(np.dtype(bool)))
    return [g.node("Not", [x])]


SYMBOLIC["logical_not"] = SYMBOLIC["invert"] = _logical_not
SYMBOLIC["isnan"] = _unary("IsNaN")
