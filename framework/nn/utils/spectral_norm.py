"""The hook-based spectral normalisation (torch.nn.utils.spectral_norm, deprecated in favour of
parametrizations.spectral_norm, but what most published GAN code calls).

``spectral_norm(module)`` moves the weight to ``weight_orig`` (the trained Parameter), keeps the power
iteration's vectors as the buffers ``weight_u`` and ``weight_v``, and a forward pre-hook recomputes the plain
attribute ``module.weight = weight_orig / sigma`` before every forward, refining u and v in place by
``n_power_iterations`` steps (v first, then u: the opposite order of the parametrization) in training mode.
"""
from __future__ import annotations

from typing import Any

from ... import ops
from ...autograd.grad_mode import no_grad
from ...creation import as_tensor
from ...tensor import Tensor
from ..modules.conv import ConvTranspose1d, ConvTranspose3d
from ..functional.normalization import normalize
from ..modules.conv import ConvTranspose2d
from ..parameter import UninitializedParameter
from ..modules.module import Module
from ..modules.module_hooks import HookEntry, add_hook
from ..parameter import Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook: ``module.<name> = <name>_orig / sigma``, sigma = u . (W v) with W the weight as a
    matrix (the ``dim`` axis first)."""

    _version: int = 1  # what the state_dict metadata records (the version whose state dicts hold <name>_v)

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        weight_mat = weight
        if self.dim != 0:  # the output dimension first
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """weight_orig / sigma; in training, first refine u and v in place (they are constants for the graph)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # torch writes F.normalize(..., out=v): in place, so the buffers' versions move
                    v.copy_(normalize(ops.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(normalize(ops.mv(weight_mat, v), dim=0, eps=self.eps))
                # clones: the next forward changes the buffers in place, and this graph's backward needs today's
                u, v = u.clone(), v.clone()
        sigma = ops.dot(u, ops.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        """The v with u . (W v) = target_sigma, for state dicts older than version 1 (which had no <name>_v)."""
        v = weight_mat.t().mm(weight_mat).pinverse().mm(weight_mat.t()).mm(u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / ops.dot(u, ops.mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        for entry in module.__dict__.get("_forward_pre_hooks") or ():
            if isinstance(entry.fn, SpectralNorm) and entry.fn.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # torch draws u, then v, from the global generator, and runs no power iteration yet
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())  # a plain attribute (torch: weight.data) until the first forward
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        add_hook(module, "_load_state_dict_pre_hooks", HookEntry(SpectralNormLoadStateDictPreHook(fn)))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads state dicts of before version 1 (``weight``, ``weight_orig``, ``weight_u`` but no ``weight_v``):
    v is solved from them so that sigma comes out as it was saved."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")) \
                    and weight_key not in state_dict:
                return  # the current layout (our state dicts carry no metadata: recognised by their keys)
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = _tensor(state_dict[weight_key + "_orig"])
                weight = _tensor(state_dict.pop(weight_key))
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = _tensor(state_dict[weight_key + "_u"])
                state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


def _tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else as_tensor(value)


class SpectralNormStateDictHook:
    """Records ``spectral_norm[<name>.version]`` in the state dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Spectral-normalise ``module.<name>`` with a forward pre-hook (the trained Parameter is ``<name>_orig``).

    Args:
        module: the layer (Linear, Conv, ConvTranspose, ...).
        name: the parameter to normalise.
        n_power_iterations: power-iteration steps per training-mode forward.
        eps: floor of the norms in the power iteration.
        dim: the output dimension of the weight (default 0, or 1 for the ConvTranspose layers).

    Returns:
        The same module, with ``<name>_orig``, ``<name>_u``, ``<name>_v`` and the hook.
    """
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo spectral_norm: ``module.<name>`` becomes a Parameter holding the current weight / sigma."""
    pre_hooks = module.__dict__.get("_forward_pre_hooks") or []
    for entry in pre_hooks:
        if isinstance(entry.fn, SpectralNorm) and entry.fn.name == name:
            entry.fn.remove(module)
            pre_hooks.remove(entry)
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for attr, kind in (("_state_dict_hooks", SpectralNormStateDictHook),
                       ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook)):
        hooks = module.__dict__.get(attr) or []
        for entry in hooks:
            if isinstance(entry.fn, kind) and entry.fn.fn.name == name:
                hooks.remove(entry)
                break
    return module
