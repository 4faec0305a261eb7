"""torch.nn.utils.prune: pruning a module's tensor by reparametrizing it as ``<name>_orig * <name>_mask``.

As torch's (torch/nn/utils/prune.py): pruning moves the parameter to ``<name>_orig``, registers the mask as
the buffer ``<name>_mask``, sets ``<name>`` to their product, and registers the method as a forward pre-hook
that recomputes the product before each forward. Pruning the same tensor again combines the methods in a
PruningContainer, which computes the new method's mask on the entries (or channels) still unpruned.
``remove`` makes the pruning permanent. Random methods draw from framework's generator.
"""
from __future__ import annotations

import importlib
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import backend, dtypes, ops
from ...creation import ones_like, rand, rand_like, tensor, zeros_like
from ...tensor import Tensor
from ..modules.module import Module
from ._cpu_topk import topk_indices
from .clip_grad import parameters_to_vector


def _pruning_hooks(module: Module):
    """(entry, method) for each pruning method among module's forward pre-hooks (a list of HookEntry here,
    where torch keeps an OrderedDict)."""
    return [(e, e.fn) for e in (module.__dict__.get("_forward_pre_hooks") or ()) if isinstance(e.fn, BasePruningMethod)]


class BasePruningMethod(ABC):
    """Abstract base class for the creation of new pruning techniques: subclasses implement compute_mask."""

    _tensor_name: str

    def __call__(self, module: Module, inputs) -> None:
        """The forward pre-hook: recompute ``<name> = <name>_orig * <name>_mask`` before forward."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for t, given the mask of previous prunings (default_mask)."""

    def apply_mask(self, module: Module) -> Tensor:
        """The pruned tensor: the mask times the unpruned parameter (a graph through ``<name>_orig``)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args, importance_scores=None, **kwargs):
        """Prune module's tensor ``name`` with this method (combined with earlier ones in a PruningContainer)."""

        def _get_composite_method(cls, module, name, *args, **kwargs):
            old_method, found = None, 0
            hooks_to_remove = []
            for entry, hook in _pruning_hooks(module):
                if hook._tensor_name == name:
                    old_method = hook
                    hooks_to_remove.append(entry)
                    found += 1
            if found > 1:
                raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                     f"{module}. Use a PruningContainer.")
            for entry in hooks_to_remove:
                module._forward_pre_hooks.remove(entry)
            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old_method is not None:
                if isinstance(old_method, PruningContainer):
                    old_method.add_pruning_method(method)
                    method = old_method
                elif isinstance(old_method, BasePruningMethod):
                    container = PruningContainer(old_method)
                    container.add_pruning_method(method)
                    method = container
            return method

        method = _get_composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):  # first pruning: move the parameter to <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=dtypes.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception as e:
            if not isinstance(method, PruningContainer):  # undo the move
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise e
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None) -> Tensor:
        """t pruned by this method's mask (computed on importance_scores, t's own values by default)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a Parameter holding the pruned values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one tensor: each new mask is computed on what the earlier left."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if not isinstance(args, Iterable):  # (kept from torch: *args is always a tuple)
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append a pruning method acting on the same tensor."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on "
                             f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                             + f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask computed on the entries (unstructured) or channels (structured) of t that
        default_mask keeps, written into a copy of default_mask."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
        elif method.PRUNING_TYPE == "global":
            slc = [slice(None)] * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        if isinstance(slc, list):
            slc = tuple(slc)
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Utility pruning method that does not prune any units but generates the pruning parametrization."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str):  # type: ignore[override]
        return super().apply(module, name)


def _zero_at(mask: Tensor, flat_indices) -> Tensor:
    """Zero mask's entries at the given flat indices (mask is contiguous)."""
    if len(flat_indices):
        mask.view(-1)[tensor(flat_indices, device=mask.device)] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prune (currently unpruned) units in a tensor at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=dtypes.contiguous_format)
        if nparams_toprune != 0:
            prob = rand_like(t)
            topk = ops.topk(prob.view(-1), k=nparams_toprune)
            mask.view(-1)[topk.indices] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount):  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune (currently unpruned) units in a tensor by zeroing out the ones with the lowest L1-norm."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=dtypes.contiguous_format)
        if nparams_toprune != 0:
            # torch.topk(abs(t), k, largest=False), whose choice among tied magnitudes is its CPU kernel's
            scores = backend.to_numpy(ops.abs(t.detach()).reshape(-1)._array)
            _zero_at(mask, topk_indices(scores, nparams_toprune, largest=False))
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, importance_scores=None):  # type: ignore[override]
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prune entire (currently unpruned) channels in a tensor at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = rand(tensor_size, device=t.device)
        threshold = ops.kthvalue(prob, k=nparams_toprune).values
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = prob > threshold
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, dim: int = -1):  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune entire (currently unpruned) channels in a tensor based on their L``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t.detach(), self.n, self.dim)
        # torch.topk(norm, nparams_tokeep, largest=True): tied norms broken as its CPU kernel does
        keep = topk_indices(backend.to_numpy(norm._array), nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = tensor(keep, device=t.device)
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, n, dim, importance_scores=None):  # type: ignore[override]
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune by a given mask."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor):  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    """Apply the pruning reparametrization without pruning any units."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount) -> Module:
    """Prune ``amount`` of the (currently unpruned) units of module's tensor ``name`` at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount, importance_scores=None) -> Module:
    """Prune ``amount`` of the (currently unpruned) units of module's tensor ``name`` with the lowest |value|."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount, dim: int) -> Module:
    """Prune ``amount`` of the (currently unpruned) channels along dim at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount, n, dim: int, importance_scores=None) -> Module:
    """Prune ``amount`` of the (currently unpruned) channels along dim with the lowest L``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the (module, name) tensors together, as one flattened vector, by an unstructured method."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for (module, name) in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer:pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune module's tensor ``name`` by the given mask."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of module's tensor ``name`` permanent and drop its reparametrization and hook."""
    for entry, hook in _pruning_hooks(module):
        if hook._tensor_name == name:
            hook.remove(module)
            module._forward_pre_hooks.remove(entry)
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether module or any of its submodules has a pruning pre-hook."""
    for _, submodule in module.named_modules():
        if _pruning_hooks(submodule):
            return True
    return False


def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n, dim: int) -> Tensor:
    """torch.norm(t, p=n) over all dims but dim."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    if isinstance(n, str):  # 'fro' / 'nuc' dispatch as torch.norm, a floor above (looked up when called)
        return importlib.import_module("...", __package__).norm(t, p=n, dim=dims)
    return ops.norm(t, p=n, dim=dims)
