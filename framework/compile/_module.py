"""OptimizedModule: what ``framework.compile(module)`` returns, as torch.compile does for a Module."""
from __future__ import annotations

import warnings

from ..autograd.grad_mode import is_grad_enabled
from ..nn.modules.module import Module
from ..tensor import Tensor


class OptimizedModule(Module):
    """The module under ``_orig_mod`` (its parameters, and state_dict keys ``_orig_mod.*`` as torch's), called
    through a CompiledFunction when no graph is needed (under no_grad: evaluation and inference replay); a call
    that builds a graph for a later backward runs eagerly, since a replay gives tensors without one."""

    def __init__(self, mod: Module, compiled) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)  # a callable, not a submodule
        object.__setattr__(self, "_warned", False)

    def forward(self, *args, **kwargs):
        if is_grad_enabled() and (any(p.requires_grad for p in self._orig_mod.parameters()) or
                                  any(isinstance(a, Tensor) and a.requires_grad for a in args)):
            if not self._warned:
                object.__setattr__(self, "_warned", True)
                warnings.warn("framework.compile: a compiled module called with grad enabled builds the graph that "
                              "backward needs, which a replay does not: it runs eagerly. Compile the whole training "
                              "step (forward, loss.backward(), optimizer.step()) to replay it; calls under "
                              "framework.no_grad() are replayed.", stacklevel=3)
            return self._orig_mod(*args, **kwargs)
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)  # torch's OptimizedModule forwards to the module
