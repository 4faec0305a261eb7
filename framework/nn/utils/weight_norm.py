"""Weight normalisation (Salimans & Kingma 2016): w = g * v / ||v||, magnitude g and direction v trained apart.

``parametrizations.weight_norm`` is torch's current form (``module.parametrizations.weight.original0`` is g,
``original1`` is v); ``weight_norm`` / ``remove_weight_norm`` are the older hook-based one (``weight_g`` and
``weight_v`` parameters, the weight recomputed before each forward), deprecated in torch and here alike.
"""
from __future__ import annotations

import warnings

from ...ops.normalization import norm_except_dim, weight_norm as _weight_norm
from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter
from .parametrize import register_parametrization



class _WeightNorm(Module):
    """The parametrization: (g, v) -> g * v / ||v||; right_inverse splits a weight into its norm and itself."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return norm_except_dim(weight, 2, self.dim), weight


def parametrized_weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """torch.nn.utils.parametrizations.weight_norm: ``module.<name>`` becomes g * v / ||v||."""
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class WeightNorm:
    """The hook of the old weight_norm: recompute ``module.<name>`` from <name>_g and <name>_v before forward."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for entry in module.__dict__.get("_forward_pre_hooks") or ():
            if isinstance(entry.fn, WeightNorm) and entry.fn.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        fn.handle = module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """The deprecated hook-based weight normalisation (use parametrizations.weight_norm)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    for entry in list(module.__dict__.get("_forward_pre_hooks") or ()):
        if isinstance(entry.fn, WeightNorm) and entry.fn.name == name:
            entry.fn.remove(module)
            entry.fn.handle.remove()
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
