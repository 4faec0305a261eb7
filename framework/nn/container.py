"""Containers: Sequential, ModuleList, ModuleDict."""
from __future__ import annotations

from collections import OrderedDict

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
