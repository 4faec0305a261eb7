"""SavedTensor: what a graph node keeps for backward, checked against in-place changes on unpack.

Mirrors torch/csrc/autograd/saved_variable.cpp.  An input is kept as the Tensor itself; an output is
kept as its array (keeping the Tensor would make a cycle tensor -> grad_fn -> saved -> tensor) and
rebuilt on unpack.  Either way the version seen at save time is compared with the counter's value now.
"""
from __future__ import annotations

from .. import diagnostics
from ..tensor import Tensor


class SavedTensor:
    """One saved value: tensor (or array), its version counter and the version it had when saved."""

    __slots__ = ("tensor", "array", "counter", "version", "output_nr", "grad_fn", "released", "shape",
                 "dtype")

    def __init__(self, tensor, is_output: bool, owner) -> None:
        self.counter = tensor._version_counter
        self.version = self.counter.value if self.counter is not None else 0
        self.released = False
        self.shape = tensor._array.shape
        self.dtype = tensor.dtype
        if is_output:
            self.tensor = None
            self.array = tensor._array
            self.output_nr = tensor._output_nr
            self.grad_fn = None  # it is the owner node; not stored (cycle)
        else:
            self.tensor = tensor
            self.array = None
            self.output_nr = tensor._output_nr
            self.grad_fn = tensor._grad_fn

    def unpack(self, owner):
        """The saved tensor, or torch's error when it was freed or modified in place since saving."""
        if self.released:
            raise diagnostics.saved_tensor_freed(owner)
        if self.counter is not None and self.counter.value != self.version:
            raise diagnostics.inplace_modified(self, owner)
        if self.tensor is not None:
            return self.tensor

        return Tensor._from_saved_output(self.array, self.counter, owner, self.output_nr)

    def unpack_array(self, owner):
        """Like unpack(), but the raw array (the engine's fast path when no graph of backward is built)."""
        if self.released:
            raise diagnostics.saved_tensor_freed(owner)
        if self.counter is not None and self.counter.value != self.version:
            raise diagnostics.inplace_modified(self, owner)
        return self.tensor._array if self.tensor is not None else self.array

    def release(self) -> None:
        self.tensor = None
        self.array = None
        self.released = True
