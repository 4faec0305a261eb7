"""A recorded node's edges: which input each gradient flows into, and what a built-in op's backward computes."""
from __future__ import annotations

from ..tensor import Tensor

_NO_EDGE = (None, 0)  # the edge of an input that needs no gradient
_NUMBERS = (int, float)  # Python numbers that get a (None, 0) edge under scalar_edges


def _edge_positions(cls, args) -> tuple:
    """Positions of the args that have an edge: tensors (but index_args), and Python numbers when cls.scalar_edges."""
    return tuple([i for i, a in enumerate(args) if (isinstance(a, Tensor) and i not in cls.index_args) or (
        cls.scalar_edges and isinstance(a, _NUMBERS)) or (a is None and cls.none_edges)])


def _collect_edges(cls, args, needs) -> tuple:
    """(positions of the args that have an edge, their edges): tensors (but index_args), numbers under scalar_edges,
    None under none_edges."""
    edge_args, edges = [], []
    scalar_edges = cls.scalar_edges
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and i not in cls.index_args:
            edge_args.append(i)
            edges.append(a._edge() if needs[i] else _NO_EDGE)
        elif (scalar_edges and isinstance(a, (int, float))) or (a is None and cls.none_edges):
            edge_args.append(i)
            edges.append(_NO_EDGE)
    return tuple(edge_args), tuple(edges)


def computed_outputs(needs: tuple, args, edges: tuple) -> tuple:
    """needs_input_grad as a built-in's backward reads it (torch's should_compute_output: the edge exists): False for
    an input that requires grad without an edge, a view made under no_grad of a leaf, which has no grad accumulator,
    so torch's op neither computes its gradient nor saves what that needs (fuzz seed 4804693)."""
    if all(not n or a._rg for n, a in zip(needs, args)):
        return needs  # the usual case: every input that requires grad has its history
    out = list(needs)
    for i, (fn, _) in zip(*edges):
        if fn is None:
            out[i] = False
    return tuple(out)
