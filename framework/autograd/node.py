"""Graph nodes (torch's ``grad_fn`` objects): Node, AccumulateGrad, and hook handles.

A Node maps the gradients of a forward op's outputs to the gradients of its inputs.  Its
``next_functions`` are the edges ``(node, input_nr)`` towards the inputs, as in torch; leaves that
require grad end in an ``AccumulateGrad`` node that adds into ``tensor.grad``.
"""
from __future__ import annotations

import itertools
from typing import Callable

from .grad_mode import is_grad_enabled

_sequence = itertools.count()


class RemovableHandle:
    """Returned by register_hook(); ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list, fn: Callable) -> None:
        self._hooks, self._fn = hooks, fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:  # `with module.register_forward_hook(h):` removes the hook on exit
        self.remove()


class Node:
    """Base of every grad_fn: edges to the inputs' nodes, hooks, and ``apply(grads) -> grads``."""

    # Class-level defaults keep node creation cheap: most nodes never get hooks.
    _n_outputs = 1  # how many gradients flow *into* this node (= outputs of its forward op)
    # numpy dtype of each forward output (None: unknown); the engine casts incoming gradients to it,
    # as torch's validate_outputs does: a gradient always has its tensor's dtype
    _grad_dtypes: tuple | None = None
    next_functions: tuple = ()  # ((node, input_nr), ...) towards the inputs
    _tensor_pre_hooks: dict | None = None  # output_nr -> [hook(grad)], from Tensor.register_hook
    _retain_grad_hooks: dict | None = None  # output_nr -> hook, from Tensor.retain_grad
    _pre_hooks: list | tuple = ()
    _post_hooks: list | tuple = ()
    _site = None  # user source line of the forward op (diagnostics, explain)
    _anomaly_stack = None  # full forward stack, under detect_anomaly()

    def __init__(self) -> None:
        # The engine runs ready nodes newest-first, as torch's CPU engine orders by sequence number.
        self._seq = next(_sequence)

    @property
    def metadata(self) -> dict:
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        """torch's sequence number: the order nodes were made in (the engine runs newer ones first)."""
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"  # torch: the class (NotImplemented)

    def apply(self, grads: list) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def release(self) -> None:
        """Free saved values (after a backward without retain_graph)."""

    def __call__(self, *grads):
        out = self.apply(list(grads))  # torch: the gradient for a node of one input edge, else a tuple of them
        return out[0] if len(out) == 1 else tuple(out)

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) runs after this node; may return replacement grad_inputs."""
        if not isinstance(self._post_hooks, list):
            self._post_hooks = []
        self._post_hooks.append(fn)
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) runs before this node; may return replacement grad_outputs."""
        if not isinstance(self._pre_hooks, list):
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return RemovableHandle(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: adds the incoming gradient into ``variable.grad``."""

    def __init__(self, variable) -> None:
        super().__init__()
        self.variable = variable
        self._seq = float("inf")  # torch: accumulate as soon as a leaf's gradient is ready

    @property
    def _grad_dtypes(self) -> tuple:
        return (self.variable._array.dtype,)

    @property
    def _tensor_pre_hooks(self):
        hooks = self.variable._hooks
        return {0: hooks} if hooks else None

    @_tensor_pre_hooks.setter
    def _tensor_pre_hooks(self, value) -> None:
        pass  # a leaf keeps its hooks on the tensor itself

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # torch's C++ node: name() is namespaced, the type is not

    def apply(self, grads: list) -> list:
        # requires_grad turned off (or detach_()) since the graph was built: torch skips only the accumulation
        if self.variable._rg:
            self.variable._accumulate_grad(grads[0], keep_graph=is_grad_enabled())
        for hook in self.variable._post_accumulate_grad_hooks or ():
            hook(self.variable)
        return []
