"""Draw the computation graph behind a tensor: DOT text with no dependency, Graphviz objects and PNGs
when the ``graphviz`` package and the ``dot`` program are installed.

Leaves that require grad are blue boxes (labelled with their module path when ``params`` names them),
nodes are grey, saved tensors are listed on their node, and a saved tensor modified in place since it
was saved (backward would reject it) is shown in red as STALE.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .autograd.node import AccumulateGrad
from .autograd.saved import SavedTensor
from .tensor import Tensor


def _param_names(params) -> dict:
    """{id(version counter): name} for a dict of tensors or modules (module paths like 'D.0.weight')."""
    names = {}
    for prefix, obj in (params or {}).items():
        if isinstance(obj, Tensor):
            names[id(obj._version_counter)] = prefix
        elif hasattr(obj, "named_parameters"):
            for n, p in obj.named_parameters():
                names[id(p._version_counter)] = f"{prefix}.{n}"
    return names


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def graph_items(t: Tensor, params=None, show_saved: bool = True):
    """(nodes, edges): nodes = {id: (label, style)}, edges = [(from_id, to_id)], walking iteratively."""
    names = _param_names(params)
    nodes, edges = {}, []
    out_id = f"out{id(t)}"
    nodes[out_id] = (f"output {tuple(t.shape)}", "output")
    root = t.grad_fn
    if root is None:
        return nodes, edges
    edges.append((str(id(root)), out_id))
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            v = node.variable
            label = names.get(id(v._version_counter), "leaf")
            nodes[str(id(node))] = (f"{label}\n{tuple(v.shape)}", "leaf")
            continue
        label, style = type(node).__name__, "node"  # torch's C++ nodes without their namespace
        if show_saved:
            for s in getattr(node, "_saved", None) or ():
                if not isinstance(s, SavedTensor):
                    continue
                if s.released:
                    label += "\nsaved: freed"
                    continue
                now = s.counter.value if s.counter is not None else s.version
                stale = now != s.version
                who = names.get(id(s.counter), "")
                label += f"\nsaved {who} {tuple(s.shape)} v{s.version}" + (f" STALE (now v{now})" if stale else "")
                if stale:
                    style = "stale"
        nodes[str(id(node))] = (label, style)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                edges.append((str(id(nxt)), str(id(node))))
                stack.append(nxt)
    return nodes, edges


_STYLES = {"leaf": 'shape=box, style=filled, fillcolor="lightblue"',
           "node": 'shape=box, style=filled, fillcolor="lightgrey"',
           "stale": 'shape=box, style=filled, fillcolor="#ff9999", color=red',
           "output": 'shape=box, style=filled, fillcolor="darkolivegreen1"'}


def to_dot(t: Tensor, params=None, show_saved: bool = True) -> str:
    """The graph as Graphviz DOT source text (no dependency needed)."""
    nodes, edges = graph_items(t, params, show_saved)
    lines = ["digraph {", '  graph [rankdir=BT]', '  node [fontname="monospace", fontsize=10]']
    for nid, (label, style) in nodes.items():
        lines.append(f'  "{nid}" [label="{_esc(label)}", {_STYLES[style]}]')
    for a, b in edges:
        lines.append(f'  "{a}" -> "{b}"')
    lines.append("}")
    return "\n".join(lines)


def make_dot(t: Tensor, params=None, show_saved: bool = True):
    """A ``graphviz.Digraph`` of the graph (pip install graphviz); ``.render()`` needs the ``dot`` program."""
    try:
        import graphviz  # optional dependency (pip install graphviz): only make_dot needs it
    except ImportError:
        raise ImportError("make_dot needs the graphviz Python package: pip install graphviz "
                          "(to_dot() returns the DOT text without it)") from None
    class _Graph(graphviz.Source):
        def render(self, *args, **kwargs):
            try:
                return super().render(*args, **kwargs)
            except graphviz.ExecutableNotFound:
                raise RuntimeError("rendering needs Graphviz's `dot` program: apt-get install graphviz (Debian/"
                                   "Ubuntu), brew install graphviz (macOS), or conda install graphviz; "
                                   "framework.viz.to_dot() gives the DOT text without it") from None

    return _Graph(to_dot(t, params, show_saved))


def save_graph(t: Tensor, path_without_ext: str, params=None, show_saved: bool = True) -> str:
    """Write ``<path>.dot``; also ``<path>.png`` when Graphviz's ``dot`` is installed. Returns the path written."""
    dot_path = path_without_ext + ".dot"
    os.makedirs(os.path.dirname(os.path.abspath(dot_path)), exist_ok=True)
    with open(dot_path, "w") as f:
        f.write(to_dot(t, params, show_saved))
    exe = shutil.which("dot")
    if exe is None:
        return dot_path  # no Graphviz: the DOT file can be rendered elsewhere (apt-get install graphviz)
    png = path_without_ext + ".png"
    subprocess.run([exe, "-Tpng", dot_path, "-o", png], check=True, capture_output=True)
    return png
