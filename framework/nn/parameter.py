"""Parameter: a leaf Tensor that a Module registers and an optimizer updates (torch.nn.Parameter)."""
from __future__ import annotations

import numpy as np

from .. import creation
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


_UNINITIALIZED = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                  "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                  "`forward` to initialize the parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (a lazy module's, until its first forward)."""

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        p = Parameter.__new__(cls, creation.empty(0, dtype=dtype, device=device), requires_grad)
        return p

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED)

    def size(self, dim=None):
        raise RuntimeError(_UNINITIALIZED)

    def numel(self):
        raise RuntimeError(_UNINITIALIZED)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    def materialize(self, shape: tuple, device=None, dtype=None) -> Parameter:
        """A real Parameter of that shape (the lazy module assigns it in place of this one)."""
        arr = creation.empty(*shape, dtype=dtype or self.dtype, device=device or self.device)
        return Parameter(arr, self.requires_grad)


def is_lazy(param) -> bool:
    return isinstance(param, UninitializedParameter)
