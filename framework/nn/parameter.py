"""Parameter: a leaf Tensor that a Module registers and an optimizer updates (torch.nn.Parameter)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter: a leaf with ``requires_grad=True`` by default."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        arr = np.empty(0, dtype=np.float32) if data is None else data._array
        p = object.__new__(cls)
        Tensor._init(p, arr)  # shares data's memory; a fresh leaf with its own history
        if requires_grad:
            p._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require gradients")
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()



class Buffer(Tensor):
    """Marker type accepted by Module.__setattr__ to register a buffer (torch.nn.Buffer)."""

    def __new__(cls, data: Tensor, persistent: bool = True):
        b = Tensor._make(data._array)
        b._buffer_persistent = persistent  # type: ignore[attr-defined]
        return b
