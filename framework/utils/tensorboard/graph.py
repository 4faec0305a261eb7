"""add_graph's GraphDef: the autograd graph of one forward pass (framework.viz walks it), as TensorBoard nodes.

Parameters and inputs are the graph's sources (named by their module paths, ``Net/fc1/weight``), each backward
node of the forward pass is an op named for its class (``AddmmBackward0``), and each output is a sink.
"""
from __future__ import annotations

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.versions_pb2 import VersionDef

from ...autograd.grad_mode import enable_grad
from ...tensor import Tensor
from ...viz import graph_items


def _as_tuple(value) -> tuple:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def graph_def(model, input_to_model=None) -> GraphDef:
    """Run ``model`` once on ``input_to_model`` (a Tensor or a tuple of them) and describe its graph."""
    inputs = []
    for x in _as_tuple(input_to_model):
        # a leaf copy that requires grad, so that the graph shows where each input enters
        inputs.append(x.detach().requires_grad_(True) if isinstance(x, Tensor) and x.is_floating_point() else x)
    with enable_grad():
        outputs = [o for o in _as_tuple(model(*inputs)) if isinstance(o, Tensor)]
    prefix = type(model).__name__
    named = {prefix: model, **{f"input/{i}": x for i, x in enumerate(inputs) if isinstance(x, Tensor)}}
    names: dict = {}  # viz's node id -> a unique TensorBoard node name
    used: set = set()
    nodes, inputs_of = [], {}
    for k, out in enumerate(outputs):
        items, edges = graph_items(out, named, show_saved=False)
        for nid, (label, style) in items.items():
            if nid in names:
                continue
            if style == "output":
                name, op, shape = f"output/{k}", "Output", label.partition(" ")[2]
            elif style == "leaf":
                path, _, shape = label.partition("\n")
                name, op = path.replace(".", "/"), ("Input" if path.startswith("input/") else "Parameter")
            else:
                name, op, shape = f"{label}_{len(names)}", label, ""
            if name in used:  # two unnamed leaves
                name = f"{name}_{len(names)}"
            used.add(name)
            names[nid] = name
            nodes.append((nid, name, op, shape))
        for src, dst in edges:
            inputs_of.setdefault(dst, []).append(src)
    graph = GraphDef(versions=VersionDef(producer=22))
    for nid, name, op, shape in nodes:
        attr = {"shape": AttrValue(s=shape.encode())} if shape else {}
        graph.node.append(NodeDef(name=name, op=op, input=[names[s] for s in inputs_of.get(nid, [])], attr=attr))
    return graph
