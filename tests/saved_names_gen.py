"""Writes framework/autograd/saved_names.py: torch's names for what each node saves, learned from torch itself.

For every op-table row (all inputs requiring grad, then only the first), the graphs of torch and framework are
walked side by side (the same node names at the same places); at each pair of nodes every tensor torch keeps
(``grad_fn._raw_saved_<name>``) is matched by value to a position of the tuple our node saved.  A position gets
a name by a vote of every graph that reached that node class (ties split between equal values).
``tests/test_saved_attrs.py`` then checks the table against torch row by row.
Run: ``python tests/saved_names_gen.py`` (needs torch).
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import framework  # noqa: E402
import torch  # noqa: E402
from framework.autograd.function import BackwardNode  # noqa: E402
from framework.autograd.saved_hooks import HookedSaved  # noqa: E402
from framework.autograd.saved import SavedTensor  # noqa: E402
from op_table import OPS  # noqa: E402

OUT = os.path.join(os.path.dirname(HERE), "framework", "autograd", "saved_names.py")


def class_key(node) -> str:
    """The Function class behind a node, as ``module.Class`` without the leading ``framework.``."""
    cls = node._forward_cls
    return f"{cls.__module__.removeprefix('framework.')}.{cls.__qualname__}"


def torch_tensor_saves(node) -> dict:
    """name -> tensor (or None when not kept this time) for each tensor torch's node saves (lists left out)."""
    out = {}
    for attr in dir(node):
        if attr.startswith("_raw_saved_"):
            name = attr[len("_raw_saved_"):]
            try:
                value = getattr(node, "_saved_" + name)
            except RuntimeError:
                continue
            if value is None or isinstance(value, torch.Tensor):
                out[name] = value
    return out


def our_saves(node) -> list:
    """The arrays our node saved, by position (None for a position holding no array)."""
    out = []
    for s in node._saved or ():
        if isinstance(s, (SavedTensor, HookedSaved)):
            try:
                out.append(s.unpack(node)._array)
            except RuntimeError:
                out.append(None)
        elif isinstance(s, framework.Tensor):
            out.append(s._array)
        elif type(s) in (bool, int, float):  # a Python number operand: torch keeps it as a wrapped 0-d tensor
            out.append(np.array(s))
        else:
            out.append(None)
    return out


def graph_pairs(ours, theirs):
    """(our node, torch's node) over both graphs walked together while their node names agree."""
    stack, seen = [(ours, theirs)], set()
    while stack:
        a, b = stack.pop()
        if a is None or b is None or id(a) in seen or a.name() != b.name():
            continue
        seen.add(id(a))
        yield a, b
        for (na, _), (nb, _) in zip(a.next_functions, b.next_functions):
            stack.append((na, nb))


def build(case, m, arrays, which):
    xs = [m.tensor(a, dtype=m.float64, requires_grad=(i in which)) for i, a in enumerate(arrays)]
    out = case.fn(m, *xs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o.grad_fn for o in outs if isinstance(o, (m.Tensor,)) and o.grad_fn is not None]


def candidates(ours_node, torch_node) -> dict:
    """name -> set of our positions whose array equals torch's saved tensor of that name (this graph)."""
    arrays = our_saves(ours_node)
    out = {}
    for name, value in torch_tensor_saves(torch_node).items():
        if value is None:
            continue
        v = value.detach().numpy()
        out[name] = {i for i, a in enumerate(arrays) if a is not None and a.shape == v.shape
                     and a.dtype.kind == v.dtype.kind and np.allclose(a, v, equal_nan=True)}
    return out


def learn() -> dict:
    votes: dict = {}  # class key -> {(name, position): weight}
    for case in OPS:
        rng = np.random.default_rng(0)
        lo, hi = case.domain
        arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]
        for which in (range(len(arrays)), (0,)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours, theirs = build(case, framework, arrays, which), build(case, torch, arrays, which)
            except Exception:  # noqa: BLE001 - a row that needs its inputs requiring grad differently
                continue
            for root_a, root_b in zip(ours, theirs):
                for a, b in graph_pairs(root_a, root_b):
                    if not isinstance(a, BackwardNode):
                        continue
                    tally = votes.setdefault(class_key(a), {})
                    for name, positions in candidates(a, b).items():
                        for i in positions:  # equal values (x * x) split their vote
                            tally[name, i] = tally.get((name, i), 0.0) + 1.0 / len(positions)
    table = {}
    for key, tally in votes.items():
        fixed: dict = {}
        # the best-supported (name, position) pairs first; each name and each position is given once (a graph
        # where ours keeps the operands in another order than torch is outvoted, and the test reports it)
        for (name, i), _ in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])):
            if name not in fixed and i not in fixed.values():
                fixed[name] = i
        if fixed:
            by_pos = [None] * (max(fixed.values()) + 1)
            for name, i in fixed.items():
                by_pos[i] = name
            table[key] = tuple(by_pos)
    return table


def write(table: dict) -> None:
    lines = ['"""torch\'s names for the tensors each op saves, by position in its ``save_for_backward`` tuple.',
             "",
             "``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>`` (framework/autograd/saved_attrs.py) read",
             "them.",
             "Generated by tests/saved_names_gen.py from torch's own nodes (every op-table graph walked beside",
             "torch's); tests/test_saved_attrs.py checks them against torch.  Do not edit by hand: run the script.",
             '"""',
             "SAVED_NAMES: dict[str, tuple] = {"]
    for key in sorted(table):
        lines.append(f"    {key!r}: {table[key]!r},")
    lines.append("}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    t = learn()
    write(t)
    print(f"{len(t)} node classes named -> {os.path.relpath(OUT)}")
