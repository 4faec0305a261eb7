"""CopySlices: the grad_fn a base tensor gets when one of its views is modified in place.

torch/csrc/autograd/functions/tensor.cpp.  ``base[idx].mul_(2)`` runs MulBackward0 on the *view*;
the base's history becomes CopySlices(old base history, that node).  Backward: copy the incoming
base gradient, let the wrapped node turn the slice's gradient into the view's gradient, and write it
back into the slice.  The view's own grad_fn becomes AsStridedBackward0 (as_strided.py) when next read.
"""
from __future__ import annotations

from .. import diagnostics
from ..dtypes import contiguous_format
from . import engine
from .node import Node


class CopySlices(Node):
    """grad_fn of a base whose view was modified in place; wraps the in-place op's node."""

    def __init__(self, base, view_fn, fn, base_edge) -> None:
        super().__init__()
        self._view_fn = view_fn  # base -> the view (replays the view ops)
        self._fn = fn  # the in-place op's node, e.g. MulBackward0
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        self._site = fn._site
        self._grad_dtypes = (base._array.dtype,)
        # torch's result has the base's strides, which its view ops (as_strided) address: kept when not C order
        self._strides = None if base._array.flags.c_contiguous else tuple(base.stride())

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # torch's C++ node: name() is namespaced, the type is not

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self.next_functions)
        if self._fn is None:  # torch's CopySlices drops its wrapped node on release: a second backward is refused
            raise diagnostics.saved_tensor_freed(self)
        if self._strides is None:
            result = grad.clone(memory_format=contiguous_format)
            result._version_counter.bump("copy_")  # torch's result is new_empty_strided(...).copy_(grad): _version 1
        else:
            result = grad.new_empty_strided(tuple(grad.shape), self._strides).copy_(grad)
        grad_slice = self._view_fn(result)
        res = self._fn.apply([grad_slice.clone(memory_format=contiguous_format)])
        base_next = self.next_functions[0][0]
        if base_next is None or not engine.output_needed(base_next):
            # torch computes the base's gradient only when the backward needs it (task_should_compute_output):
            # it then never writes into the slice (which may repeat memory: an expanded view)
            return [None] + list(res[1:])
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return [result] + list(res[1:])

    def release(self) -> None:
        # torch's CopySlices::release_variables drops its wrapped node without releasing it: the node's saved
        # values go with it, unless a graph of backward (create_graph) still reaches the node itself, which
        # then runs on them
        self._fn = None
