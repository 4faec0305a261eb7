"""The export tracer: runs a model once and records every framework op (a Function.apply) it calls.

Each Function subclass's ``apply`` is wrapped for the duration of the trace only (the ops' hot paths stay
untouched otherwise). An op called from inside another op's forward is part of that op and is not recorded
again. Modules with a module-level mapping (Linear, MultiheadAttention, LSTM, GRU, RNN) are recorded as one
call: their ops run untraced, and the mapping emits their ONNX nodes. Comparisons and logic make no Function
(their results need no gradient): they are wrapped by name (GRAPH_FREE).
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field

from .. import ops
from ..autograd.function import Function
from ..nn.modules.module import Module
from ..tensor import Tensor

_MISSING = object()

# graph-free functions (comparisons, logic: no Function, as their results never need a gradient) -> the name
# their mapping is registered under; each is wrapped where a model can reach it (Tensor methods, framework.ops)
GRAPH_FREE = {"eq": "eq", "__eq__": "eq", "ne": "ne", "__ne__": "ne", "not_equal": "ne", "lt": "lt", "__lt__": "lt",
              "less": "lt", "le": "le", "__le__": "le", "less_equal": "le", "gt": "gt", "__gt__": "gt",
              "greater": "gt", "ge": "ge", "__ge__": "ge", "greater_equal": "ge", "logical_not": "logical_not",
              "__invert__": "invert", "logical_and": "logical_and", "logical_or": "logical_or",
              "logical_xor": "logical_xor", "bitwise_and": "bitwise_and", "__and__": "bitwise_and",
              "bitwise_or": "bitwise_or", "__or__": "bitwise_or", "bitwise_xor": "bitwise_xor",
              "__xor__": "bitwise_xor", "isnan": "isnan"}


@dataclass
class TracedOp:
    """One recorded call: the op (a Function subclass, a Module mapped whole, or a GRAPH_FREE name), its args and
    keyword args as passed, its outputs (a tuple), and the dotted path of the module that called it."""
    op: object
    args: tuple
    kwargs: dict
    outputs: tuple
    module_path: str


@dataclass
class Trace:
    """What one run of the model recorded, in call order."""
    ops: list = field(default_factory=list)
    module_stack: list = field(default_factory=lambda: ["model"])
    depth: int = 0  # > 0 while inside a recorded op (its inner ops are not recorded)


def _all_functions(cls=Function):
    """Every Function subclass defined so far (the ops a model can call)."""
    seen, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def _wrap_apply(trace: Trace, cls, original):
    """cls.apply as a recording call: the original runs, then the op and its outputs are appended."""

    def apply(_cls, *args, **kwargs):
        if trace.depth:
            return original(*args, **kwargs)
        trace.depth += 1
        try:
            out = original(*args, **kwargs)
        finally:
            trace.depth -= 1
        outputs = out if isinstance(out, tuple) else (out,)
        trace.ops.append(TracedOp(_cls, args, kwargs, outputs, trace.module_stack[-1]))
        return out

    return classmethod(apply)


def _wrap_function(trace: Trace, name: str, original):
    """A graph-free function (a comparison) as a recording call: its op is recorded as the string ``name``."""

    def function(*args, **kwargs):
        out = original(*args, **kwargs)
        if not trace.depth and isinstance(out, Tensor):
            trace.ops.append(TracedOp(name, args, kwargs, (out,), trace.module_stack[-1]))
        return out

    return function


def _wrap_forward(trace: Trace, name: str, module: Module, whole: bool):
    """module.forward that names the module path while it runs; ``whole``: record the module as one op."""
    original = module.forward

    def forward(*args, **kwargs):
        trace.module_stack.append(name)
        record = whole and not trace.depth
        trace.depth += record
        try:
            out = original(*args, **kwargs)
        finally:
            trace.depth -= record
            trace.module_stack.pop()
        if record:
            outputs = out if isinstance(out, tuple) else (out,)
            trace.ops.append(TracedOp(module, args, kwargs, outputs, name))
        return out

    return forward


def _namespaces() -> list:
    """Where a model reaches the graph-free functions: Tensor's methods, and every loaded framework module that
    holds ops' functions under their names (framework.gt is ops.gt)."""
    mine = {id(vars(ops).get(attr)) for attr in GRAPH_FREE if attr in vars(ops)}
    spaces = [Tensor]
    for name, module in list(sys.modules.items()):
        if (name == "framework" or name.startswith("framework.")) and module is not None and any(
                id(vars(module).get(attr)) in mine for attr in GRAPH_FREE):
            spaces.append(module)
    return spaces


@contextlib.contextmanager
def tracing(model: Module, whole_module_types: tuple = ()):
    """Within the block, calls of framework ops (and of ``model``'s submodules) are recorded into the Trace."""
    trace = Trace()
    classes = _all_functions()
    originals = [(cls, cls.__dict__.get("apply", _MISSING), cls.apply) for cls in classes]  # bound before patching
    modules = [(("model" + ("." + n if n else "")), m) for n, m in model.named_modules()]
    functions = [(space, attr, vars(space)[attr]) for space in _namespaces() for attr in GRAPH_FREE
                 if attr in vars(space)]
    meta = type(Function)
    meta_init = meta.__dict__["__init__"]

    def init(cls, name, bases, attrs):  # an op class made during the trace (a cached, lazily built node)
        meta_init(cls, name, bases, attrs)
        originals.append((cls, cls.__dict__.get("apply", _MISSING), cls.apply))
        cls.apply = _wrap_apply(trace, cls, cls.apply)

    try:
        for cls, _, bound in originals:
            cls.apply = _wrap_apply(trace, cls, bound)
        meta.__init__ = init
        for space, attr, original in functions:
            setattr(space, attr, _wrap_function(trace, GRAPH_FREE[attr], original))
        for name, m in modules:
            m.__dict__["forward"] = _wrap_forward(trace, name, m, isinstance(m, whole_module_types))
        yield trace
    finally:
        meta.__init__ = meta_init
        for cls, own, _ in originals:
            if own is _MISSING:
                del cls.apply
            else:
                cls.apply = own
        for _, m in modules:
            m.__dict__.pop("forward", None)
        for space, attr, original in functions:
            setattr(space, attr, original)
