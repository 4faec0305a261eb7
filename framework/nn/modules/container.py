"""Containers (torch.nn.modules.container): Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from __future__ import annotations

from collections import OrderedDict

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module


class Sequential(Module):
    """Modules applied in order; index, slice, len and append like a list."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return mods[idx]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input


class ModuleList(Module):
    """A list of modules, registered so their parameters are found."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        for m in modules or []:
            self.append(m)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(idx % len(self)), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self


class ModuleDict(Module):
    """A dict of modules, registered so their parameters are found."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        for k, m in (modules or {}).items():
            self.add_module(k, m)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


def _as_parameter(value):
    """A plain tensor put into a parameter container becomes a Parameter, as in torch."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(p, legacy: bool = False) -> str:
    """torch's one-line entry: 'Parameter containing: [torch.float32 of size 3x4]' (ParameterDict names the
    legacy type: 'torch.FloatTensor')."""
    if not isinstance(p, Tensor):
        return f"Object of type: {type(p).__name__}"
    size = "x".join(str(s) for s in p.shape)
    device = "" if p.device == "cpu" else f" ({p.device})"
    kind = p.dtype.legacy if legacy else p.dtype.name
    return f"Parameter containing: [framework.{kind} of size {size}{device}]"


def _repr(module) -> str:
    """torch's Module repr for a multi-line extra_repr: one line stays inline, more go one per line."""
    lines = module.extra_repr().split("\n")
    if len(lines) == 1:
        return f"{module._get_name()}({lines[0]})"
    return f"{module._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


class ParameterList(Module):
    """A list of parameters, registered under the names '0', '1', ..."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _key(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % self._size)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, param) -> None:
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value) -> "ParameterList":
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values) -> "ParameterList":
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p)}" for i, p in enumerate(self))

    def __repr__(self) -> str:
        return _repr(self)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters, registered under their keys (insertion order kept)."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters) -> None:
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self[k] = v

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, legacy=True)}" for k, p in self.items())

    def __repr__(self) -> str:
        return _repr(self)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")


__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
