"""Parametrizations (torch.nn.utils.parametrize): a parameter that is computed from another on every access.

``register_parametrization(module, "weight", P)`` moves the Parameter to ``module.parametrizations.weight.original``
and gives the module's class a ``weight`` property that returns ``P(original)``: ``module.forward`` reads
``self.weight`` as before and gets the parametrized tensor, while the optimizer trains ``original``.  As in torch,
the property lives on a subclass made for this one module (``ParametrizedLinear``), so other Linears are untouched.
"""
from __future__ import annotations

import contextlib
import copy
import copyreg
from typing import Iterator

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

_cache_enabled = 0
_cache: dict = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside it, each parametrized tensor is computed once and reused (e.g. an RNN's weight over time steps)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module: Module, name: str, x: Tensor) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """dest takes src's values and keeps its identity (torch: ``dest.set_(src)``), so optimizers need no update."""
    if src is dest:
        return
    with no_grad():
        if tuple(dest.shape) == tuple(src.shape):
            dest.copy_(src)
        else:  # an unsafe parametrization may change the shape: rebind the storage as set_ does
            dest.data = src.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original``; ``right_inverse`` sets ``original``."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():  # the value the parametrization should reproduce: right_inverse(original)
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass  # no right inverse: assume the identity, as torch does
        if isinstance(new, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            _maybe_set(original, new)  # keep the Parameter object, so an optimizer built before still trains it
            _register_parameter_or_buffer(self, "original", original)
        elif isinstance(new, (list, tuple)):
            # several originals (weight_norm's g and v): new Parameters, which the user hands to the optimizer
            self.is_tensor, self.ntensors = False, len(new)
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                                     f"tuple...). Got element {i} of the sequence with type {type(part).__name__}.")
                part = part.detach().clone()
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        else:
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        if not self.unsafe:
            z = self()  # torch runs the parametrization once here too (spectral_norm: one power iteration)
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if tuple(z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {tuple(z.shape)}")

    def right_inverse(self, value: Tensor) -> None:
        """``module.weight = value``: set ``original`` so that the parametrization gives back ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if not self.is_tensor:
                if not isinstance(value, (list, tuple)):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, part in enumerate(value):
                    _maybe_set(getattr(self, f"original{i}"), part)
                return
            if not isinstance(value, Tensor):
                raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
            if value.dtype != self.original.dtype:
                raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` "
                                 f"has dtype {self.original.dtype}")
            _maybe_set(self.original, value)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own (``Parametrized<Cls>``) to hold the properties."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        # the __getstate__ below would stop copy.deepcopy, which goes through __reduce_ex__: copy by hand
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        # object's setattr: Module.__setattr__ refuses anything before _parameters exists
        object.__setattr__(replica, "__dict__", copy.deepcopy(self.__dict__, memo))
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                           "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                           "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    """A property ``tensor_name`` on the module's own class: get = run the parametrizations, set = right_inverse."""
    assert not hasattr(module, tensor_name)

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = _cache[key] = parametrization()
            return tensor
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module,
                             *, unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` return ``parametrization(original)``; a second call chains another one."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if tuple(x.shape) != tuple(y.shape):
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.shape: {tuple(y.shape)}\n"
                                 f"parametrization(module.{tensor_name}).shape: {tuple(x.shape)}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe  # one unsafe parametrization makes the list unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)  # checks come first
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, or on anything when None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo register_parametrization: the tensor becomes a plain Parameter again, holding the parametrized value
    (``leave_parametrized=True``) or ``original``; the Parameter object is the same one the optimizer knows."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if not parametrizations.is_tensor:  # g and v (weight_norm): a new Parameter holding the parametrized value
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = parametrizations.original0
        original = Parameter(t.detach().clone(), first.requires_grad) if isinstance(first, Parameter) else t
    else:
        original = parametrizations.original
    if leave_parametrized and parametrizations.is_tensor:
        with no_grad():
            t = getattr(module, tensor_name)
        _maybe_set(original, t)
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before register_parametrization gave it ``Parametrized<Cls>``."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)

