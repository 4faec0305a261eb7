"""Module (torch.nn.modules.module): parameters, buffers and submodules, train/eval, state_dict, to(), apply, and the hooks' entry points."""
from __future__ import annotations

from collections import OrderedDict
from collections import namedtuple
from typing import Callable
from typing import Iterator

from ...autograd.grad_mode import no_grad
from ... import dtypes
from ...creation import as_tensor, empty_like
from ...tensor import GRAD_HOMES, Tensor
from ..parameter import Parameter
from .module_hooks import call_with_hooks, has_call_hooks, ModuleHooks


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; torch's repr when every key matched."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def zero_grads_(parameters, set_to_none: bool = True) -> None:
    """What Module.zero_grad and Optimizer.zero_grad do: drop each .grad, or zero it in place."""
    homes = {}  # id -> weak reference to a FlatBucket (optim/_flat.py) that holds some of these grads
    for p in parameters:
        if p._grad is None:
            continue
        if set_to_none:
            p._grad = None
            home = GRAD_HOMES.get(id(p)) if GRAD_HOMES else None
            if home is not None:
                homes[id(home[0])] = home[0]
        else:  # torch zeroes the same tensor (code holding p.grad sees the zeros), cut from any graph first
            g = p._grad
            if g.grad_fn is not None:
                if g._base is None:
                    g.detach_()
                else:  # (a view cannot be detached in place: a detached alias takes its place)
                    p._grad = g = g.detach()
            else:
                g.requires_grad_(False)
            g.zero_()
    for ref in homes.values():  # an optimizer's flat gradient whose grads were all dropped: freed now, as torch's are
        bucket = ref()
        if bucket is not None:
            bucket.drop_grad()


class Module(ModuleHooks):
    """Base class for all neural-network modules: subclass it and define ``forward``."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "training", True)

    # ---- registration -------------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        """torch's rules: a Parameter, a Module or a Buffer registers itself (and leaves its name's other
        stores); a name that holds a parameter (a child module) takes only a Parameter (a Module) or None."""
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign attributes before Module.__init__() call")
        params, modules, buffers = self._parameters, self._modules, self._buffers
        if isinstance(value, Parameter):
            _remove_from(name, d, buffers, modules, self._non_persistent)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(framework.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            _remove_from(name, d, params, buffers, self._non_persistent)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(framework.nn.Module or None expected)")
            modules[name] = None
        elif isinstance(value, Tensor) and "_buffer_persistent" in getattr(value, "__dict__", {}):  # nn.Buffer(...)
            self.register_buffer(name, value, persistent=value.__dict__.pop("_buffer_persistent"))
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(framework.nn.Buffer, framework.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "." in name:
            raise KeyError("parameter name can't contain \".\"")
        if name == "":
            raise KeyError("parameter name can't be empty string \"\"")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(framework.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """A tensor that is state but not a parameter (BatchNorm's running_mean); saved in state_dict."""
        if "." in name or name == "":
            raise KeyError(f"buffer name can't contain \".\" or be empty, got: {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(framework.Tensor or None required)")
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path ("encoder.layers.0"); "" is the module itself."""
        mod = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Put ``module`` at a dotted path; the parent must exist (strict: the submodule too)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path ("0.weight")."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path ("bn.running_mean")."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    # ---- calling ----------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if has_call_hooks(self):
            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # ---- traversal --------------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if self in memo and remove_duplicate:
            return
        memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, get, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, v in get(m):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield (f"{mprefix}.{name}" if mprefix else name), v

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """(name, parameter) pairs, own parameters before submodules', each parameter once (remove_duplicate)."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes and bulk changes ------------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads_(self.parameters(), set_to_none)

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self, convert: Callable) -> "Module":
        """Change every parameter and buffer in place (the Parameter objects stay the same)."""
        with no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if p is None:
                        continue
                    p._array = convert(p)._array
                    if p._grad is not None:
                        p._grad = convert(p._grad)
                for name, b in m._buffers.items():
                    if b is not None:
                        m._buffers[name] = convert(b)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Cast floating parameters/buffers to a dtype and/or move everything to a device; memory_format= lays out
        the 4-D and 5-D ones (conv weights) in that format, as torch's."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        memory_format = kwargs.get("memory_format")
        for a in args:
            if isinstance(a, dtypes.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            else:
                device = a
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(dtype=dtype if t.is_floating_point() else None, device=device, memory_format=memory_format)
            return t.to(dtype=dtype if t.is_floating_point() else None, device=device)

        return self._apply_to_tensors(convert)

    def float(self) -> "Module":
        return self.to(dtype=_dt("float32"))

    def double(self) -> "Module":
        return self.to(dtype=_dt("float64"))

    def half(self) -> "Module":
        return self.to(dtype=_dt("float16"))

    def bfloat16(self) -> "Module":
        return self.to(dtype=_dt("bfloat16"))

    def type(self, dst_type) -> "Module":
        """Every parameter and buffer cast to ``dst_type`` (integer tensors too, as torch's Module.type)."""
        return self._apply_to_tensors(lambda t: t.type(dst_type))

    def to_empty(self, *, device=None, recurse: bool = True) -> "Module":
        """Parameters and buffers moved to ``device`` as new uninitialised storage (their values are not copied)."""
        return self._apply_to_tensors(lambda t: empty_like(t, device=device))

    def share_memory(self) -> "Module":
        """Returns the module: its arrays already live in this process's memory (there is no torch.multiprocessing
        here to share them with)."""
        return self

    def cpu(self) -> "Module":
        return self.to(device="cpu")

    def cuda(self, device=None) -> "Module":
        return self.to(device="cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))

    # ---- state ------------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False) -> "OrderedDict":
        """Parameters and persistent buffers by torch's key names (``0.weight``, ``bn.running_mean``)."""
        out = OrderedDict() if destination is None else destination
        for entry in self.__dict__.get("_state_dict_pre_hooks") or ():
            entry.fn(self, prefix, keep_vars)
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(out, prefix + name + ".", keep_vars)
        for entry in self.__dict__.get("_state_dict_hooks") or ():
            res = entry.fn(self, out, prefix, {"version": 1})
            if res is not None:
                if entry.public:
                    raise RuntimeError("state_dict post-hook must return None")
                out = res
        return out

    def _state_tensors(self, prefix: str = "", out: "OrderedDict | None" = None) -> "OrderedDict":
        """What state_dict(keep_vars=True) holds, without running the state_dict hooks."""
        out = OrderedDict() if out is None else out
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[prefix + name] = b
        for name, m in self._modules.items():
            if m is not None:
                m._state_tensors(prefix + name + ".", out)
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values in; with strict, missing/unexpected keys are an error listing them all."""
        own = self._state_tensors()
        errors, missing, unexpected = [], [], []
        state_dict = _run_load_pre_hooks(self, OrderedDict(state_dict), "", strict, missing, unexpected, errors)
        missing += [k for k in own if k not in state_dict]
        unexpected += [k for k in state_dict if k not in own]
        for k, target in own.items():
            if k not in state_dict:
                continue
            value = state_dict[k]
            if not isinstance(value, Tensor):
                value = as_tensor(value)
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {k}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {target.shape}.")
                continue
            with no_grad():
                target.copy_(value)
        keys = _IncompatibleKeys(missing, unexpected)
        for mod in _post_order(self):  # torch: a child's post-hooks run before its parent's
            for entry in mod.__dict__.get("_load_state_dict_post_hooks") or ():
                if entry.fn(mod, keys) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing ---------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        """torch's layout: a one-line extra_repr stays inline; several lines, or children, go one per line."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({n}): " + _indent(repr(m)) for n, m in self._modules.items()]
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        if not extra_lines and not child_lines:
            return f"{self._get_name()}()"
        return f"{self._get_name()}(\n  " + "\n  ".join(extra_lines + child_lines) + "\n)"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules) | set(self._buffers))


def _typename(value) -> str:
    """torch.typename: a tensor's type() ("framework.FloatTensor"), else its class's name."""
    if isinstance(value, Tensor):
        return value.type()
    cls = type(value)
    return cls.__qualname__ if cls.__module__ in (None, "builtins") else f"{cls.__module__}.{cls.__qualname__}"


def _remove_from(name: str, *stores) -> None:
    for store in stores:
        if name in store:
            if isinstance(store, set):
                store.discard(name)
            else:
                del store[name]


def _run_load_pre_hooks(module, state_dict, prefix, strict, missing, unexpected, errors):
    """register_load_state_dict_pre_hook's hooks, parent first, each on the entries under its prefix (as torch's
    recursion hands them); what a hook changes there is what gets loaded."""
    for entry in module.__dict__.get("_load_state_dict_pre_hooks") or ():
        entry.fn(module, state_dict, prefix, {}, strict, missing, unexpected, errors)
    for name, child in module._modules.items():
        if child is None or not _has_load_pre_hooks(child):
            continue
        child_prefix = prefix + name + "."
        local = OrderedDict((k, v) for k, v in state_dict.items() if k.startswith(child_prefix))
        local = _run_load_pre_hooks(child, local, child_prefix, strict, missing, unexpected, errors)
        state_dict = OrderedDict([(k, v) for k, v in state_dict.items() if not k.startswith(child_prefix)]
                                 + list(local.items()))
    return state_dict


def _has_load_pre_hooks(module) -> bool:
    return any(m.__dict__.get("_load_state_dict_pre_hooks") for m in module.modules())


def _post_order(module):
    for child in module._modules.values():
        if child is not None:
            yield from _post_order(child)
    yield module


def _indent(s: str) -> str:
    lines = s.split("\n")
    return lines[0] + "".join("\n  " + line for line in lines[1:])


def _dt(name):
    return dtypes._by_name(name)


__all__ = ["Module"]
