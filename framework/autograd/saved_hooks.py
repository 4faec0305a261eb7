"""Saved-tensor hooks: the thread-local stack of (pack, unpack) pairs and what a node keeps when one is active.

Mirrors torch/csrc/autograd/saved_variable.cpp with default hooks (SavedTensorDefaultHooks): when a pair is on
the stack as an op records a saved tensor, the node keeps ``pack_hook(tensor)`` instead of the tensor and calls
``unpack_hook(packed)`` each time backward (or ``ctx.saved_tensors``) reads it.  As in torch: only the innermost
pair applies, pack runs under no_grad, the version-counter check is skipped for hooked tensors (the hooks own the
value), and the unpacked tensor gets the saved tensor's history (its grad_fn, or its leaf's grad accumulator).
"""
from __future__ import annotations

import threading
import weakref

from .. import backend
from ..tensor import Tensor
from .grad_mode import no_grad
from .node import AccumulateGrad
from .saved import _NO_HISTORY, SavedTensor


class _HooksState(threading.local):
    # class-level defaults: every thread starts with no hooks and hooks enabled (torch's TLS is per thread too)
    stack: tuple = ()  # ((pack, unpack), ...), innermost last; a tuple so that `if _state.stack:` is one read
    disabled_message: str | None = None


_state = _HooksState()


class _Active:
    """How many pairs are pushed, all threads together: what an op that saves reads first (a plain attribute, about
    half the cost of a thread-local one); only when it is non-zero is this thread's stack looked at."""

    count = 0


_active = _Active()
_lock = threading.Lock()


def push_hooks(pack_hook, unpack_hook) -> None:
    """torch._C._autograd._push_saved_tensors_default_hooks: refused while disable_saved_tensors_hooks is on."""
    if _state.disabled_message is not None:
        raise RuntimeError(_state.disabled_message)
    _state.stack = _state.stack + ((pack_hook, unpack_hook),)
    with _lock:
        _active.count += 1


def pop_hooks() -> None:
    _state.stack = _state.stack[:-1]
    with _lock:
        _active.count -= 1


def disable(message: str) -> None:
    """torch's _saved_tensors_hooks_disable: refused at once when a pair is already active."""
    _state.disabled_message = message
    if _state.stack:
        raise RuntimeError(message)


def enable() -> None:
    _state.disabled_message = None


class HookedSaved:
    """A saved tensor kept as what pack_hook returned, with the history to give the tensor unpack_hook returns.

    edge: (node, output_nr) of the saved tensor, or None for an op's own output (its node is the owner: not kept,
    which would be a cycle); _NO_EDGE's (None, 0) for a tensor without history.
    """

    __slots__ = ("packed", "unpack_hook", "edge", "output_nr")

    def __init__(self, packed, unpack_hook, edge, output_nr: int) -> None:
        self.packed, self.unpack_hook, self.edge, self.output_nr = packed, unpack_hook, edge, output_nr

    def unpack(self, owner) -> Tensor:
        """unpack_hook(packed), checked to be a Tensor, as a new tensor with the saved tensor's history."""
        backend.hook_called(self.unpack_hook)  # framework.compile: a Python hook breaks the capture
        res = self.unpack_hook(self.packed)
        if not isinstance(res, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(res).__name__}\n\nunpack_hook must return the tensor pack_hook was given (or "
                            "one of the same values, shape and dtype).")
        node, nr = (owner, self.output_nr) if self.edge is None else self.edge
        t = Tensor._make(res._array, res._version_counter)  # torch: a new variable sharing the unpacked data
        if isinstance(node, AccumulateGrad):  # a leaf that requires grad: the same grad accumulator
            t._rg = True
            t._acc_ref = weakref.ref(node)
        elif node is not None:
            t._rg, t._grad_fn, t._output_nr = True, node, nr
        return t

    def unpack_array(self, owner):
        return self.unpack(owner)._array


def pack_saved(saved: tuple, args: tuple, outputs) -> tuple:
    """Replace each saved tensor of a node just recorded by pack_hook's result (the innermost pair's).

    saved: the node's SavedTensor tuple; args/outputs: the op's inputs and output Tensors (pack receives the very
    tensor objects, as torch's does); raw values (numbers, shapes) are kept as they are.  Called when some thread has
    hooks on: with none on in this one, ``saved`` is kept as it is.
    """
    if not _state.stack:
        return saved
    pack_hook, unpack_hook = _state.stack[-1]
    backend.hook_called(pack_hook)  # framework.compile: a Python hook breaks the capture (unless array_only)
    out = []
    with no_grad():
        for s in saved:
            if type(s) is SavedTensor:
                tensor, array, _, _, output_nr, grad_fn = s
                if tensor is not None:  # an input (or a tensor a user Function made)
                    given, edge = tensor, tensor._edge()
                elif s[2] is None:  # an in-place op's copy of its input from before its write
                    given = s.unpack(None)
                    edge = (None, 0) if grad_fn is _NO_HISTORY else (grad_fn, output_nr)
                else:  # one of the op's outputs: the output tensor itself (its node, the owner, is not kept)
                    given = next((o for o in outputs if isinstance(o, Tensor) and o._array is array), None)
                    if given is None:
                        given = Tensor._make(array, s[2])
                    edge = (None, 0) if grad_fn is _NO_HISTORY else None
            elif isinstance(s, Tensor):  # an array the op saved (a mask, an intermediate): no history
                given, edge, output_nr = s, (None, 0), 0
            else:
                out.append(s)
                continue
            out.append(HookedSaved(pack_checked(pack_hook, given), unpack_hook, edge, output_nr))
    return tuple(out)


def pack_checked(pack_hook, given: Tensor):
    """pack_hook(given) (the caller holds no_grad), refused as torch's when the hook changed its input in place."""
    counter = given._version_counter
    version = counter.value if counter is not None else 0
    packed = pack_hook(given)
    if counter is not None and counter.value != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
            "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
            "Please open an issue if you need to perform in-place operations on the input to a pack hook.")
    return packed
