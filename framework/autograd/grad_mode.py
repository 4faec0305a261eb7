"""Thread-local grad mode: no_grad / enable_grad / set_grad_enabled / inference_mode (torch/autograd/grad_mode.py)."""
from __future__ import annotations

import functools
import threading

class _State(threading.local):
    grad = True  # class-level defaults: every thread starts with grad mode on, inference mode off
    inference = False


_state = _State()


def is_grad_enabled() -> bool:
    """True when ops record a graph for tensors that require grad."""
    return _state.grad


def is_inference_mode_enabled() -> bool:
    return _state.inference


def _set_enabled(mode: bool) -> None:
    _state.grad = bool(mode)


class _DecoratorContextManager:
    """Usable as ``with no_grad():`` and as ``@no_grad()`` (also bare ``@no_grad``)."""

    def __new__(cls, orig_func=None, *args, **kwargs):
        if cls in (no_grad, enable_grad) and callable(orig_func):  # bare @no_grad
            return cls()(orig_func)
        return super().__new__(cls)

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Context manager/decorator: ops inside record no graph; results have requires_grad=False."""

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        _set_enabled(False)

    def __exit__(self, *exc) -> None:
        _set_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Context manager/decorator that turns graph recording back on (e.g. inside no_grad)."""

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        _set_enabled(True)

    def __exit__(self, *exc) -> None:
        _set_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off; takes effect immediately, and as a context manager restores on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_enabled(self.prev)

    def __call__(self, func):
        # as torch: `@set_grad_enabled(False)` already switched the mode when it was built; a decorator only
        # applies it inside the call, so the mode from before comes back here
        _set_enabled(self.prev)
        return super().__call__(func)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are inference tensors: no version counter, no graph ever."""

    def __new__(cls, mode=True):
        if callable(mode):  # bare @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (is_grad_enabled(), is_inference_mode_enabled())
        # as torch's C++ InferenceMode(mode): grad mode is set to `not mode` (inference_mode(False) turns grad
        # mode on, even inside no_grad) and inference mode to `mode`
        _state.grad = not self.mode
        _state.inference = self.mode

    def __exit__(self, *exc) -> None:
        _state.grad, _state.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
