"""SavedTensor: what a graph node keeps for backward, checked against in-place changes on unpack.

Mirrors torch/csrc/autograd/saved_variable.cpp.  An input is kept as the Tensor itself; an output is
kept as its array (keeping the Tensor would make a cycle tensor -> grad_fn -> saved -> tensor) and
rebuilt on unpack.  Either way the version seen at save time is compared with the counter's value now.
A SavedTensor is a plain tuple underneath (built in C, no __init__ frame: saving is on every op's path);
the names below are read-only views of its fields, for unpacking and for the error messages.
"""
from __future__ import annotations

from .. import diagnostics, dtypes
from ..tensor import Tensor
from .grad_mode import is_grad_enabled

_tuple_new = tuple.__new__
_NO_HISTORY = object()  # of_original's grad_fn field for a copy that needs no history


class SavedTensor(tuple):
    """(tensor or None, array or None, version counter, version at save time, output_nr, grad_fn)."""

    __slots__ = ()
    released = False  # a node frees its saved values by dropping them all (node._saved = None)

    @staticmethod
    def of_input(t, before_write: bool = False) -> "SavedTensor":
        """Keep an input tensor itself (its grad_fn is another node: no cycle).

        before_write: the op has just bumped t's counter (an in-place op reading an alias of what it wrote):
        t is saved at the version it had when the op read it.
        """
        c = t._version_counter
        if c is None or t._detached_inference:
            raise diagnostics.inference_tensor_saved(t)
        version = c.value - 1 if before_write else c.value
        return _tuple_new(SavedTensor, (t, None, c, version, t._output_nr, t._grad_fn))

    @staticmethod
    def of_output(t) -> "SavedTensor":
        """Keep an output as its array: its grad_fn is the owner node (rebuilt on unpack, not stored)."""
        c = t._version_counter
        # a non-differentiable output (max's indices) has no history: it unpacks without one, and torch's version
        # error names no node for it
        fn = _NO_HISTORY if t._grad_fn is None else None
        return _tuple_new(SavedTensor, (None, t._array, c, c.value if c is not None else 0, t._output_nr, fn))

    @staticmethod
    def of_original(array, edge: tuple) -> "SavedTensor":
        """Keep the copy an in-place op made of its input before writing it, with that input's edge
        ``(node, output_nr)`` from before the write as its history (None: it needed no gradient)."""
        return _tuple_new(SavedTensor, (None, array, None, 0, edge[1], edge[0] or _NO_HISTORY))

    tensor = property(lambda self: self[0])
    array = property(lambda self: self[1])
    counter = property(lambda self: self[2])
    version = property(lambda self: self[3])
    output_nr = property(lambda self: self[4])
    grad_fn = property(lambda self: self[5])
    shape = property(lambda self: (self[1] if self[0] is None else self[0]._array).shape)
    dtype = property(lambda self: dtypes.from_numpy_dtype((self[1] if self[0] is None else self[0]._array).dtype))

    def unpack(self, owner):
        """The saved tensor, or torch's error when it was modified (or detached) in place since saving."""
        tensor, array, counter, version, output_nr, grad_fn = self
        if tensor is not None and grad_fn is not None and tensor._grad_fn is None:
            raise diagnostics.saved_tensor_detached(self, owner)  # a non-leaf input, detach_()'ed since saving
        if counter is not None and counter.value != version:
            raise diagnostics.inplace_modified(self, owner)
        if tensor is not None:
            return tensor
        original_fn = self[5]
        if original_fn is not None:  # an in-place op's copy of its input from before the write
            if original_fn is _NO_HISTORY:
                return Tensor._make(array)
            before = Tensor._from_saved_output(array, None, original_fn, output_nr)
            # torch saved original_self = self.clone(): a graph of backward (create_graph) goes through its
            # CloneBackward0 node; with grad mode off no graph is built, so no copy is made
            return before.clone() if is_grad_enabled() else before
        return Tensor._from_saved_output(array, counter, owner, output_nr)

    def unpack_array(self, owner):
        """Like unpack(), but the raw array (the engine's fast path when no graph of backward is built)."""
        tensor, counter = self[0], self[2]
        if tensor is not None and self[5] is not None and tensor._grad_fn is None:
            raise diagnostics.saved_tensor_detached(self, owner)
        if counter is not None and counter.value != self[3]:
            raise diagnostics.inplace_modified(self, owner)
        return self[1] if tensor is None else tensor._array

