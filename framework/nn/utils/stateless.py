"""torch.nn.utils.stateless: call a module with other tensors in place of its parameters and buffers.

The tensors are swapped into the module (by dotted name) for the call and the originals swapped back afterwards,
even when the call raises. framework.func.functional_call is the public entry; this module's functional_call is
torch's deprecated alias.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any

from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING: Any = object()  # "the module had no such attribute": restoring deletes it


def _owner(module: Module, name: str) -> tuple[Module, str]:
    """(the submodule that holds dotted ``name``, the attribute's own name)."""
    prefix, _, attr = name.rpartition(".")
    owner = module
    for part in prefix.split(".") if prefix else ():
        try:
            owner = getattr(owner, part)
        except AttributeError as ex:
            raise AttributeError(f"{owner._get_name()} has no attribute `{part}`") from ex
        if not isinstance(owner, Module):
            raise TypeError(f"submodule `{prefix}`: {owner} is not an instance of torch.nn.Module")
    return owner, attr


def _swap_tensor(module: Module, name: str, tensor) -> Any:
    """Put ``tensor`` at dotted ``name`` (a parameter or buffer slot keeps its kind); return what was there."""
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    owner, attr = _owner(module, name)
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            orig = store[attr]
            if tensor is _MISSING:
                del store[attr]
            else:
                store[attr] = tensor
            return orig
    orig = getattr(owner, attr) if hasattr(owner, attr) else _MISSING
    if orig is not _MISSING and not isinstance(orig, Tensor) and orig is not None:
        raise TypeError(f"attribute `{attr}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(owner, attr, tensor)
    elif hasattr(owner, attr):
        delattr(owner, attr)
    return orig


def _swap_tensors_dict(module: Module, named_tensors: dict) -> dict:
    """Swap each of ``named_tensors`` in; return the originals (all swapped back if one swap fails)."""
    originals: dict = {}
    try:
        for name, tensor in named_tensors.items():
            originals[name] = _swap_tensor(module, name, tensor)
    except Exception:
        for name, orig in originals.items():
            _swap_tensor(module, name, orig)
        raise
    return originals


def _untie_named_tensors_map(module: Module, parameters_and_buffers: dict) -> dict:
    """``parameters_and_buffers`` plus, for each given name of a tied tensor, the same value under its other names."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of: dict = {}  # id(tensor) -> the names it has in the module
    for name, tensor in named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given_tied = [name for name in parameters_and_buffers if name in tied]
    for name in given_tied:
        names = tied[name]
        given = [n for n in names if n in parameters_and_buffers]
        if len(given) > 1 and len({id(parameters_and_buffers[n]) for n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


def _check_keys(module: Module, keys) -> None:
    """strict=True: torch's error naming the unexpected and the missing keys."""
    valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(valid - set(keys)), sorted(set(keys) - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(errors)))


@contextlib.contextmanager
def _reparametrize_module(module: Module, parameters_and_buffers: dict, tie_weights: bool = False,
                          strict: bool = False):
    """Within the block, ``module`` holds ``parameters_and_buffers``; afterwards its own tensors again. A tensor
    the module replaced during the call (``self.foo = self.foo + 1``) is written back into the given dict."""
    untied = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_keys(module, untied)
    originals: dict = {}
    try:
        originals = _swap_tensors_dict(module, untied)
        yield
    finally:
        new = _swap_tensors_dict(module, originals)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module: Module, parameters_and_buffers: dict, args=None, kwargs: dict | None = None, *,
                     tie_weights: bool = True, strict: bool = False):
    """module(*args, **kwargs) with ``parameters_and_buffers`` in place of its own tensors."""
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module: Module, parameters_and_buffers: dict, args=None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Deprecated alias of framework.func.functional_call (torch's FutureWarning, then the same call)."""
    warnings.warn("`framework.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `framework.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
