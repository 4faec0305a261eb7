"""``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>``: what a node saved, under torch's names.

torch generates these attributes for each node (``y = x.pow(2); y.grad_fn._saved_self is x``); ours come from
saved_names.py, torch's name for each position of an op's ``save_for_backward`` tuple.  As torch's:
- ``_saved_<name>`` unpacks: an input comes back as the very tensor that was saved, an output as a new tensor
  with the node as its grad_fn; a value not kept (its gradient was not needed) is None; reading it after it was
  changed in place raises the in-place error, after backward freed it the "backward through the graph a second
  time" error;
- ``_raw_saved_<name>`` is a handle whose ``register_hooks(pack_hook, unpack_hook)`` swaps the saved value for
  ``pack_hook(value)`` now and calls ``unpack_hook`` whenever backward reads it (a per-tensor
  ``saved_tensors_hooks``).
"""
from __future__ import annotations

import numpy as np

from .. import diagnostics
from ..tensor import Tensor
from .grad_mode import no_grad
from .saved import _NO_HISTORY, SavedTensor
from .saved_hooks import HookedSaved, pack_checked


def saved_properties(names: tuple) -> dict:
    """``{"_saved_<name>": property, "_raw_saved_<name>": property}`` for a node class whose op saves, at each
    position of its ``save_for_backward`` tuple, the tensor torch calls ``names[position]`` (None: no name)."""
    props = {}
    for position, name in enumerate(names):
        if name is not None:
            props[f"_saved_{name}"] = property(lambda node, i=position: unpack_saved(node, i))
            props[f"_raw_saved_{name}"] = property(lambda node, i=position: SavedTensorHandle(node, i))
    return props


def unpack_saved(node, position: int):
    """The saved value at ``position``: a Tensor, or None when the op did not keep one there."""
    saved = node._saved
    if saved is None:
        raise diagnostics.saved_tensor_freed(node)
    s = saved[position] if position < len(saved) else None
    if isinstance(s, (SavedTensor, HookedSaved)):
        return s.unpack(node)
    if type(s) in (bool, int, float):  # a Python number operand (x * 2): torch's wrapped-number tensor, 0-d on the
        return Tensor._make(np.array(s))  # host as int64/float64/bool (its saved `other` is tensor(2))
    return s if isinstance(s, Tensor) else None


_INCOMPATIBLE = ("register_hooks(): incompatible function arguments. The following argument types are "
                 "supported:\n    1. (self: SavedTensor, arg0: Callable, arg1: Callable) -> None\n\n")


class SavedTensorHandle:
    """torch._C._autograd.SavedTensor: one saved value of a node, to put a pack/unpack hook pair on."""

    __slots__ = ("_node", "_position")

    def __init__(self, node, position: int) -> None:
        self._node, self._position = node, position

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Keep ``pack_hook(value)`` instead of the value (now, under no_grad); backward reads
        ``unpack_hook(packed)``.  The version check is then the hooks' business, as with saved_tensors_hooks."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(_INCOMPATIBLE + "Invoked with: "
                            f"{type(pack_hook).__name__}, {type(unpack_hook).__name__}: pass two callables, "
                            "pack_hook(tensor) -> anything and unpack_hook(packed) -> tensor.")
        node, i = self._node, self._position
        saved = node._saved
        if saved is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                "to backward through the graph a second time or if you need to access saved variables after calling "
                f"backward.\n\n{node.name()} already ran in a backward that freed what it saved: register the hooks "
                "before calling backward.")
        s = saved[i] if i < len(saved) else None
        if isinstance(s, HookedSaved):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: "
                               "only one pair of hooks is allowed at a time.")
        if not isinstance(s, (SavedTensor, Tensor)):
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden\n\n"
                               f"{node.name()} did not keep this value (its gradient was not needed), so there is "
                               "nothing to pack.")
        if isinstance(s, Tensor):  # an array the op kept (a mask, an intermediate): no history
            given, edge, output_nr = s, (None, 0), 0
        else:
            tensor, array, counter, _, output_nr, grad_fn = s
            if tensor is not None:  # an input: pack sees it detached (torch: data.detach()), unpack gets its history
                given = tensor.detach()
                edge = tensor._edge() if grad_fn is None else (grad_fn, output_nr)
            elif counter is None:  # an in-place op's copy of its input from before its write
                given = s.unpack(None)
                edge = (None, 0) if grad_fn is _NO_HISTORY else (grad_fn, output_nr)
            else:  # one of the node's outputs, without its history (the node itself is the owner)
                given = Tensor._make(array, counter)
                edge = (None, 0) if grad_fn is _NO_HISTORY else None
        with no_grad():
            packed = pack_checked(pack_hook, given)
        node._saved = saved[:i] + (HookedSaved(packed, unpack_hook, edge, output_nr),) + saved[i + 1:]
