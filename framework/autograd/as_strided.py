"""AsStridedBackward0: the grad_fn a view gets back after an in-place change to it, its base or another view.

torch/csrc/autograd/variable.cpp (VariableHooks::grad_fn).  Once the storage a view shares has been written in
place, the op that made the view no longer describes its history: torch regenerates the view's grad_fn as
``base.as_strided(view.size(), view.stride(), view.storage_offset())``, whose next function is the base's
*current* history (CopySlices, an in-place op's node, or its AccumulateGrad).  Backward puts the view's gradient
into a zero gradient of the base's shape at the base elements the view shows (torch's as_strided_backward);
elements a view repeats (expand) accumulate.  We name those elements by an index map, the view's ops replayed on
``arange(base.numel())``, instead of by strides: NumPy arrays and torch tensors need not share strides.
"""
from __future__ import annotations

from .node import Node


class AsStridedBackward0(Node):
    """grad_fn of a view regenerated after an in-place change; ``index`` maps the view's elements to the base's."""

    def __init__(self, base_edge: tuple, index, base_shape: tuple, dtype, repeats: bool, order=None) -> None:
        super().__init__()
        self.next_functions = (base_edge,)
        self._index = index  # integer array of the view's shape: flat positions in the base
        self._base_shape = base_shape
        self._repeats = repeats  # some base element shows more than once (an expand): gradients accumulate
        self._order = order  # a dense base's dim order (outermost first), None for C order: the gradient's layout
        self._grad_dtypes = (dtype,)

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None or self.next_functions[0][0] is None:
            return [None]
        # an op (bound as a Tensor method by the ops floor), so that create_graph=True differentiates it
        out = grad._as_strided_backward(self._index, self._base_shape, self._repeats, self._order)
        out._version_counter.bump("copy_")  # torch's as_strided_backward writes grad into zeros in place: _version 1
        return [out]
