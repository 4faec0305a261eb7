"""Optimizer hooks as torch's (torch/optim/optimizer.py): step pre/post hooks, per optimizer and global, and the
state_dict / load_state_dict pre/post hooks, each registration returning a RemovableHandle.

``step`` is wrapped once per class that defines it (torch patches ``type(opt).step`` the same way).  The wrapper's
hot path, with no hook registered anywhere, costs one attribute read (``self._step_hooks``) and one module
global read before it calls the real step.
"""
from __future__ import annotations

import functools
from typing import Callable

from ..autograd.node import RemovableHandle

__all__ = ["register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _Hook:
    """One registered hook (its own object, so that a handle removes just this registration)."""

    __slots__ = ("fn", "post")

    def __init__(self, fn: Callable, post: bool) -> None:
        self.fn, self.post = fn, post


# the global step hooks of every optimizer, pre and post in registration order (torch keeps two OrderedDicts)
_global_step_hooks: list = []


def _register(owner, attr: str, entry, prepend: bool = False) -> RemovableHandle:
    """Put ``entry`` in ``owner``'s hook list ``attr`` (made on first use: most optimizers have no hooks)."""
    hooks = owner.__dict__.get(attr)
    if hooks is None:
        hooks = []
        setattr(owner, attr, hooks)
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return RemovableHandle(hooks, entry)


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` before every optimizer's step."""
    entry = _Hook(hook, False)
    _global_step_hooks.append(entry)
    return RemovableHandle(_global_step_hooks, entry)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None`` after every optimizer's step."""
    entry = _Hook(hook, True)
    _global_step_hooks.append(entry)
    return RemovableHandle(_global_step_hooks, entry)


def _step_name(func: Callable, opt) -> str:
    """torch's repr of the hooked step function: our optimizers inherit Optimizer.step where torch's define their
    own, so name the optimizer's class as torch's repr would."""
    qualname = func.__qualname__
    if qualname == "Optimizer.step":
        qualname = f"{type(opt).__qualname__}.step"
    return f"<function {qualname} at {hex(id(func))}>"


def _hooked_step(func: Callable, self, args: tuple, kwargs: dict):
    """Run the pre-hooks (global first), the step, then the post-hooks (the optimizer's first), as torch does.

    As in torch the hooks receive ``args`` with the optimizer itself first.  A step that calls ``super().step()``
    runs the hooks once, not twice (the inner call finds ``_running_step_hooks`` set).
    """
    if self.__dict__.get("_running_step_hooks"):
        return func(self, *args, **kwargs)
    own = list(self._step_hooks)
    glob = list(_global_step_hooks)
    args = (self, *args)
    for h in [h for h in glob if not h.post] + [h for h in own if not h.post]:
        result = h.fn(self, args, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                args, kwargs = result
            else:
                raise RuntimeError(f"{_step_name(func, self)} must return None or a tuple of (new_args, new_kwargs), "
                                   f"but got {result}.")
    self._running_step_hooks = True
    try:
        out = func(*args, **kwargs)
    finally:
        del self._running_step_hooks
    for h in [h for h in own if h.post] + [h for h in glob if h.post]:
        h.fn(self, args, kwargs)
    return out


def hook_step(func: Callable) -> Callable:
    """Wrap an optimizer class's ``step`` so that it runs the step hooks (a no-op check when there are none)."""
    if getattr(func, "hooked", False):
        return func

    @functools.wraps(func)
    def step(self, *args, **kwargs):
        if self._step_hooks or _global_step_hooks:
            return _hooked_step(func, self, args, kwargs)
        return func(self, *args, **kwargs)
    step.hooked = True
    return step


_HOOK_ATTRS = ("_step_hooks", "_running_step_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")


class OptimizerHooks:
    """The hook registrations of Optimizer (a mixin: the lists live on the instance, made on first use)."""

    _step_hooks: list | tuple = ()
    _optimizer_state_dict_pre_hooks: list | tuple = ()
    _optimizer_state_dict_post_hooks: list | tuple = ()
    _optimizer_load_state_dict_pre_hooks: list | tuple = ()
    _optimizer_load_state_dict_post_hooks: list | tuple = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = hook_step(cls.__dict__["step"])

    def __getstate__(self) -> dict:
        """Pickles and deep copies leave the hooks behind, as torch's (whose __getstate__ keeps only defaults,
        state and param_groups): a copy of an optimizer starts without hooks."""
        state = self.__dict__.copy()
        for attr in _HOOK_ATTRS:
            state.pop(attr, None)
        return state

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run before step()."""
        return _register(self, "_step_hooks", _Hook(hook, False))

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None``, run after step()."""
        return _register(self, "_step_hooks", _Hook(hook, True))

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None``, run before state_dict() builds the dict."""
        return _register(self, "_optimizer_state_dict_pre_hooks", _Hook(hook, False), prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict or None``, run on state_dict()'s result."""
        return _register(self, "_optimizer_state_dict_post_hooks", _Hook(hook, True), prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict or None``, run on a shallow copy of the dict
        load_state_dict() was given; a returned dict is loaded instead."""
        return _register(self, "_optimizer_load_state_dict_pre_hooks", _Hook(hook, False), prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None``, run after load_state_dict() loaded the state."""
        return _register(self, "_optimizer_load_state_dict_post_hooks", _Hook(hook, True), prepend)
