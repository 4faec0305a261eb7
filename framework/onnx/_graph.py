"""GraphBuilder: ONNX nodes, initializers and value names for one export, built with onnx.helper."""
from __future__ import annotations

import itertools

import numpy as np

from .. import backend
from ..tensor import Tensor

INT64_MAX = np.iinfo(np.int64).max


class UnsupportedOp(NotImplementedError):
    """A recorded op (or one of its arguments) that has no ONNX mapping."""


class GraphBuilder:
    """Collects nodes and initializers; names every traced Tensor (by identity) with its ONNX value name."""

    def __init__(self, onnx, opset: int, dynamic: bool) -> None:
        self.onnx, self.helper, self.opset = onnx, onnx.helper, opset
        self.dynamic = dynamic  # some input has a dynamic axis: shapes are computed in the graph, not constants
        self.nodes, self.initializers = [], []
        self._names = {}  # id(Tensor) -> value name
        self._keep = []  # the named Tensors, kept alive so that their ids stay theirs
        self._counter = itertools.count()
        self._shape_of = {}  # value name -> the name of its Shape
        self.factors = {}  # (value name, dim) -> [(size, 1-D dim value name)]: the dims a reshape merged there
        self.unusable = {}  # value name -> why it cannot be used (e.g. max-pool indices)

    # ---- names ---------------------------------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        return f"{hint}_{next(self._counter)}"

    def bind(self, tensor: Tensor, name: str) -> None:
        """``tensor`` is the value ``name`` from now on (an in-place op rebinds its input)."""
        self._names[id(tensor)] = name
        self._keep.append(tensor)

    def known(self, tensor) -> bool:
        return id(tensor) in self._names

    def name_if_known(self, tensor) -> str | None:
        return self._names.get(id(tensor))

    def name(self, x, like=None) -> str:
        """The value name of a Tensor (a constant initializer if it is not traced) or of a Python number
        (a constant of ``like``'s dtype, or of its own kind)."""
        if isinstance(x, Tensor):
            name = self._names.get(id(x))
            if name is None and x.requires_grad:  # computed from the inputs (or parameters), but by no op
                raise UnsupportedOp(f"a tensor of shape {tuple(x._array.shape)} was computed from the inputs "
                                    "outside any recorded op, so the graph cannot compute it")
            if name is None:  # a tensor made outside the traced ops: a constant of the graph
                name = self.constant(backend.to_numpy(x._array), "const")
                self.bind(x, name)
            if name in self.unusable:
                raise UnsupportedOp(self.unusable[name])
            return name
        if isinstance(x, (bool, int, float, np.number)):
            dtype = like._array.dtype if isinstance(like, Tensor) else np.float32 if isinstance(x, float) else np.int64
            return self.constant(np.array(x, dtype=dtype), "scalar")
        raise UnsupportedOp(f"an argument of type {type(x).__name__} cannot be an ONNX value")

    def constant(self, array, hint: str = "const") -> str:
        """A new initializer holding ``array`` (NumPy)."""
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(np.array(array, order="C"), name))  # (0-d stays 0-d)
        return name

    def ints(self, values, hint: str = "ints") -> str:
        return self.constant(np.array(list(values), dtype=np.int64), hint)

    # ---- nodes ---------------------------------------------------------------------------------------
    def node(self, op_type: str, inputs: list, n_out: int = 1, **attrs):
        """Append one node; returns its output name (or a list of names when n_out > 1)."""
        outs = [self.fresh(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def reduce(self, op_type: str, x: str, axes, keepdims: bool) -> str:
        """ReduceMean/ReduceMax/...: axes an attribute before opset 18, an input from it (ReduceSum: from 13)."""
        if axes is None:
            return self.node(op_type, [x], keepdims=int(keepdims))
        if self.opset >= 18 or op_type == "ReduceSum":
            return self.node(op_type, [x, self.ints(axes)], keepdims=int(keepdims))
        return self.node(op_type, [x], axes=list(axes), keepdims=int(keepdims))

    # ---- shapes --------------------------------------------------------------------------------------
    def shape(self, x: str) -> str:
        if x not in self._shape_of:
            self._shape_of[x] = self.node("Shape", [x])
        return self._shape_of[x]

    def dim(self, x: str, i: int) -> str:
        """Dimension ``i`` of value ``x`` as a 1-element int64 tensor (computed in the graph)."""
        return self.node("Gather", [self.shape(x), self.ints([i])], axis=0)

    def reshape(self, x: str, in_shape: tuple, out_shape: tuple) -> str:
        """Reshape ``x`` to ``out_shape``, a shape seen at trace time. With dynamic axes the target is computed
        from x's Shape: runs of dims are matched by their products (a merge multiplies x's dims, a split divides
        x's dim by the other, fixed, parts), so that a batch of another size reshapes the same way."""
        if not self.dynamic or 0 in in_shape or 0 in out_shape:
            return self.node("Reshape", [x, self.ints(out_shape)])
        pieces, factors, out, i, k = [], {}, self.fresh("reshape"), 0, 0
        while k < len(out_shape):
            if i == len(in_shape):  # trailing ones
                pieces.append(self.ints([1]))
                k += 1
                continue
            i0, k0, pi, pk = i, k, in_shape[i], out_shape[k]
            i, k = i + 1, k + 1
            while pi != pk:
                if pi < pk and i < len(in_shape):
                    pi, i = pi * in_shape[i], i + 1
                elif k < len(out_shape):
                    pk, k = pk * out_shape[k], k + 1
                else:
                    break
            ins, outs = list(range(i0, i)), list(out_shape[k0:k])
            if len(outs) == 1:  # one dim (maybe a merge of several)
                if len(ins) == 1:
                    pieces.append(self._dim_piece(x, ins[0]))
                else:  # the product of a run of x's dims (unused Gathers of its factors are pruned at the end)
                    run = self.node("Slice", [self.shape(x), self.ints([ins[0]]), self.ints([ins[-1] + 1])])
                    pieces.append(self.node("ReduceProd", [run], keepdims=1))
                    factors[k0] = [(in_shape[j], self._dim_piece(x, j)) for j in ins]
            elif len(ins) == 1:  # a split of one dim
                known = self.factors.get((x, ins[0]))
                if known and [s for s, _ in known] == outs:  # undoing an earlier merge: its dims as they were
                    pieces.extend(p for _, p in known)
                else:  # the first dim that is not 1 takes what the fixed others leave
                    first = next((j for j, s in enumerate(outs) if s != 1), 0)
                    rest = int(np.prod([s for j, s in enumerate(outs) if j != first]))
                    for j, s in enumerate(outs):
                        pieces.append(self.node("Div", [self._dim_piece(x, ins[0]), self.ints([rest])])
                                      if j == first else self.ints([s]))
            else:  # several dims regrouped otherwise: fixed sizes
                pieces.extend(self.ints([s]) for s in outs)
        target = self.node("Concat", pieces, axis=0) if pieces else self.ints([])
        self.nodes.append(self.helper.make_node("Reshape", [x, target], [out]))
        for k, f in factors.items():
            self.factors[(out, k)] = f
        return out

    def carry_factors(self, inputs: list, outputs: list) -> None:
        """An op that keeps a dim (elementwise maths, a matmul's rows) keeps what an earlier reshape merged into
        it, so that a later reshape can split it into the same dims (both maybe dynamic) again."""
        for t, name in outputs:
            for a in inputs:
                a_name = self.name_if_known(a)
                if a_name is None or a._array.ndim != t._array.ndim:
                    continue
                for d in range(t._array.ndim):
                    known = self.factors.get((a_name, d))
                    if known and a._array.shape[d] == t._array.shape[d]:
                        self.factors.setdefault((name, d), known)

    def _dim_piece(self, x: str, j: int) -> str:
        return self.dim(x, j)
