"""framework.compile: capture a whole training step once, replay its array calls at the speed of plain NumPy.

``step = framework.compile(step)`` (or ``@framework.compile``): the first call for a guard key runs ``step``
eagerly while every array call it makes (forward, the engine's backward, optimizer updates, ``zero_grad``, in-place
writes, random draws) is recorded; later calls with the same key replay those numpy calls on the same buffers,
creating no Tensor, node or saved tensor.  Per-step scalars (lr, Adam's step) are read at every replay.  A read of
a value on the host inside the step (``.item()``, printing, a boolean mask) is a graph break: that step runs
eagerly, with one warning naming the user's line (``fullgraph=True``: an error).  See ``explain``.
"""
from __future__ import annotations

import inspect
import sys
import types
from typing import Callable

from ..nn.modules.module import Module
from ._compiled import CompiledFunction
from ._explain import explain
from ._module import OptimizedModule
from ._record import GraphBreak


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: str | Callable | None = None, mode: str | None = None, options: dict | None = None,
            name: str | None = None, disable: bool = False, recompile_limit: int | None = None,
            isolate_recompiles: bool = False, shapes_spec=None, cache_size_limit: int = 8):
    """A callable that captures ``model`` once per guard key and replays it (usable as ``@compile`` or
    ``@compile(fullgraph=True)``).  ``disable=True`` returns ``model`` itself; ``recompile_limit`` bounds the guard
    keys kept (as ``cache_size_limit``).  torch's code-generation choices (``dynamic``, ``backend``, ``mode``,
    ``options``, ``name``, ``isolate_recompiles``, ``shapes_spec``) steer its compiler, which this one does not
    have: they are accepted and change nothing (the replay is the same numpy calls whatever they say)."""
    if recompile_limit is not None:
        cache_size_limit = recompile_limit
    if model is None:
        return lambda f: compile(f, fullgraph=fullgraph, disable=disable, cache_size_limit=cache_size_limit)
    if disable:
        return model
    compiled = CompiledFunction(model, fullgraph=fullgraph, cache_size_limit=cache_size_limit)
    return OptimizedModule(model, compiled) if isinstance(model, Module) else compiled


def array_only(hook: Callable) -> Callable:
    """Mark a hook as doing array work only (no Python side effects): a captured step records it, no graph break."""
    hook._array_only = True
    return hook


compile.explain = explain
compile.array_only = array_only
compile.GraphBreak = GraphBreak


class _CallableModule(types.ModuleType):
    """``framework.compile`` is this package *and* the function (``framework.compile(fn)``, ``.explain``)."""

    def __call__(self, model: Callable | None = None, **options):
        return compile(model, **options)


__signature__ = inspect.signature(compile)  # what framework.compile(...) takes: compile's parameters


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["compile", "explain", "array_only", "CompiledFunction", "GraphBreak", "OptimizedModule"]
