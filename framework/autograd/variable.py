"""torch.autograd.Variable, deprecated since PyTorch 0.4: Variable and Tensor are one class now.

``Variable(t, requires_grad=True)`` gives ``t.detach()`` with that requires_grad (a Tensor sharing t's memory and
version counter), and ``isinstance(x, Variable)`` is True for every tensor, as in torch: old scripts still run.
"""
from __future__ import annotations

import warnings

from ..creation import empty
from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The old wrapper class: calling it returns a detached Tensor (torch's _LegacyVariableBase)."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = False, volatile: bool = False) -> Tensor:
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            tensor = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        else:
            tensor = data.detach()
        if requires_grad and not tensor.is_floating_point():  # (torch's set_requires_grad text, not requires_grad_'s)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return tensor.requires_grad_(requires_grad)
