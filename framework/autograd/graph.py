"""framework.autograd.graph: saved-tensor hooks, graph nodes and edges, multi-tensor gradient hooks.

Mirrors torch/autograd/graph.py: ``saved_tensors_hooks`` / ``save_on_cpu`` / ``disable_saved_tensors_hooks``
(the stack itself is in saved_hooks.py, read by every op that saves a tensor), ``Node`` (the base of every
grad_fn), ``GradientEdge`` / ``get_gradient_edge``, ``register_multi_grad_hook`` and ``increment_version``.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from collections import defaultdict
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from ..tensor import Tensor
from . import engine, saved_hooks
from .node import Node, RemovableHandle

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "allow_mutation_on_saved_tensors", "Node", "GradientEdge", "get_gradient_edge", "increment_version"]


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed in the graph: (node, output_nr), as torch's."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def _grad_fn_or_acc(t) -> Node:
    """The node a tensor's gradient flows into: its grad_fn, or its leaf's AccumulateGrad (torch's helper)."""
    if isinstance(t, GradientEdge):
        return t.node
    node = t._edge()[0]
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge of ``tensor``: ``autograd.grad(loss, get_gradient_edge(x))`` equals ``autograd.grad(loss, x)``."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, nr = tensor._edge()  # a leaf's edge is its AccumulateGrad's input 0
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return GradientEdge(node, nr)


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Bump the version counter(s), as an in-place op would (for writes autograd cannot see); inference tensors,
    which have none, are skipped."""
    for t in ((tensor,) if isinstance(tensor, Tensor) else tensor):
        if t._version_counter is not None:
            t._version_counter.bump("increment_version")


class saved_tensors_hooks:
    """Within this context, every tensor an op saves for backward is kept as ``pack_hook(tensor)``, and
    ``unpack_hook(packed)`` gives it back when backward reads it.  Nested: only the innermost pair applies."""

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        saved_hooks.pop_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the host (``tensor.cpu()``) and moved back to their device for backward.

    pin_memory and device_type are accepted as torch's; the copy is a plain one (no pinned staging buffer).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor) -> tuple:
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed: tuple) -> Tensor:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Within this context, setting saved-tensor hooks raises RuntimeError(error_message) (so does entering it
    while a pair is active)."""
    previous = saved_hooks._state.disabled_message
    try:
        saved_hooks.disable(error_message)
        yield
    finally:
        if previous is None:
            saved_hooks.enable()
        else:
            saved_hooks._state.disabled_message = previous


class _MultiHandle(RemovableHandle):
    """One handle for the per-tensor hooks of register_multi_grad_hook."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all") -> RemovableHandle:
    """mode="all": ``fn(grads)`` once the gradients of all of ``tensors`` that this backward computes are ready
    (None for the others); mode="any": ``fn(grad)`` with the first of them computed."""
    supported_modes = ("all", "any")
    lock = threading.Lock()
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")

    if mode == "all":
        count: dict = {}
        nb_calls = None
        buffer: dict = {}
        grad_fns = list(map(_grad_fn_or_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx: int) -> Callable:
            def inner_hook(grad: Tensor) -> None:
                nonlocal nb_calls
                gid = engine.current_graph_task_id()
                if gid == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                count[gid] = count.get(gid, 0)
                buffer[gid] = buffer.get(gid, [None] * len_tensors)
                with lock:
                    curr_count, count[gid] = count[gid], count[gid] + 1
                    if curr_count == 0:  # the first call: how many of the hooks this backward will fire
                        nb_calls = sum(map(engine.will_engine_execute_node, grad_fns))
                buffer[gid][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[gid])
                    del count[gid]
                    del buffer[gid]
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook: dict = defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad: Tensor) -> None:
            gid = engine.current_graph_task_id()
            if gid == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            with lock:
                prev, ran_hook[gid] = ran_hook[gid], True
            if prev:
                return
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


_allow_mutation_on_saved_tensors_enabled: bool = False


class _AllowMutationOnSavedContext:
    """The state of an allow_mutation_on_saved_tensors block: the copies its saved tensors were kept as."""

    def __init__(self) -> None:
        self.original: dict = {}  # handle -> the copy kept for backward

    def clear(self) -> None:
        self.original.clear()


class _Handle:
    pass


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Within this context, tensors saved for backward may be modified in place afterwards: backward uses the values
    they had when saved.  Forward and backward must both run inside it.

    torch copies a saved tensor only when it is about to be modified; here each saved tensor is copied when saved
    (the same values and gradients, at the memory cost of one copy per saved tensor while the block lasts).
    """
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()

    def pack_hook(tensor: Tensor) -> _Handle:
        handle = _Handle()
        ctx.original[handle] = tensor.detach().clone()
        return handle

    def unpack_hook(handle: _Handle) -> Tensor:
        error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                     "in which the graph was originally recorded.")
        if not _allow_mutation_on_saved_tensors_enabled:
            raise AssertionError(error_msg)
        if handle not in ctx.original:
            raise AssertionError(error_msg)
        return ctx.original[handle]

    with saved_tensors_hooks(pack_hook, unpack_hook):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False
