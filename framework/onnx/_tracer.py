"""The export tracer: runs a model once and records every framework op (a Function.apply) it calls.

Each Function subclass's ``apply`` is wrapped for the duration of the trace only (the ops' hot paths stay
untouched otherwise). An op called from inside another op's forward is part of that op and is not recorded
again. Modules with a module-level mapping (LSTM, GRU, MultiheadAttention) are recorded as one node: their
ops run untraced, and the mapping emits their ONNX nodes.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from ..autograd.function import Function
from ..nn.module import Module
from ..tensor import Tensor

_MISSING = object()


@dataclass
class TracedOp:
    """One recorded call: the op (a Function subclass, or a Module for a module-level mapping), its args and
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


@contextlib.contextmanager
def tracing(model: Module, whole_module_types: tuple = ()):
    """Within the block, calls of framework ops (and of ``model``'s submodules) are recorded into the Trace."""
    trace = Trace()
    classes = _all_functions()
    originals = [(cls, cls.__dict__.get("apply", _MISSING), cls.apply) for cls in classes]  # bound before patching
    modules = [(("model" + ("." + n if n else "")), m) for n, m in model.named_modules()]
    try:
        for cls, _, bound in originals:
            cls.apply = _wrap_apply(trace, cls, bound)
        for name, m in modules:
            m.__dict__["forward"] = _wrap_forward(trace, name, m, isinstance(m, whole_module_types))
        yield trace
    finally:
        for cls, own, _ in originals:
            if own is _MISSING:
                del cls.apply
            else:
                cls.apply = own
        for _, m in modules:
            m.__dict__.pop("forward", None)
