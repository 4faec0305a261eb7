"""framework.autocast: a context manager and decorator for mixed-precision regions (torch/amp/autocast_mode.py)."""
from __future__ import annotations

import functools
import warnings

from .. import backend, dtypes
from . import state as _state


def is_autocast_available(device_type: str) -> bool:
    """True for 'cpu' and 'cuda', the device types whose ops have autocast lists."""
    _state.check_device_type(device_type)
    return True


def autocast_decorator(autocast_instance: "autocast", func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:
    """Run the region's ops in an op-specific dtype: matmuls and convolutions in ``dtype`` (float16), losses,
    reductions and ``exp``/``log`` in float32 (the device type's lists), as torch.autocast.

    ``dtype`` defaults to torch's: float16 for 'cuda', bfloat16 for 'cpu', which a NumPy engine does not have,
    so on the CPU pass ``dtype=framework.float16``.  Nestable; ``enabled=False`` turns autocast off inside.
    """

    def __init__(self, device_type: str, dtype: dtypes.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _state.check_device_type(device_type)
        if dtype is None and device_type == "cpu" and _state.state.cpu_dtype is None:
            if enabled:
                raise RuntimeError(f"autocast('cpu') defaults to torch.bfloat16, but {_state.BFLOAT16_MISSING}: "
                                   "framework.autocast('cpu', dtype=framework.float16)")
            self.fast_dtype = None  # (a disabled region keeps the missing default; no op reads it)
        else:
            self.fast_dtype = _state.get_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = _state.state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda" and not backend.cupy_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype is not dtypes.float16:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of framework.float16 currently (NumPy has no "
                              "bfloat16).", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        s = _state.state
        self.prev_cache_enabled = s.cache_enabled
        self.prev = getattr(s, self.device)
        self.prev_fastdtype = getattr(s, f"{self.device}_dtype")
        _state.set_enabled(self.device, self._enabled)
        _state.set_dtype(self.device, self.fast_dtype)
        s.nesting += 1
        s.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, *exc) -> bool:
        s = _state.state
        s.nesting -= 1
        if s.nesting == 0:  # leaving the outermost region: its cached weight casts must not leak out of it
            _state.clear_cache()
        _state.set_enabled(self.device, self.prev)
        setattr(s, f"{self.device}_dtype", self.prev_fastdtype)
        s.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)"
            )
        return autocast_decorator(self, func)


# ---- torch's functional state API (torch.is_autocast_enabled, torch.set_autocast_dtype, ...) ------------------


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return _state.is_enabled(device_type)


def set_autocast_enabled(device_type, enabled: bool | None = None) -> None:
    """set_autocast_enabled(device_type, enabled), or the old set_autocast_enabled(enabled) for 'cuda'."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _state.set_enabled(device_type, enabled)


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    return _state.get_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype: dtypes.dtype) -> None:
    _state.set_dtype(device_type, dtype)


def is_autocast_cache_enabled() -> bool:
    return _state.state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    _state.clear_cache()


def autocast_increment_nesting() -> int:
    _state.state.nesting += 1
    return _state.state.nesting


def autocast_decrement_nesting() -> int:
    _state.state.nesting -= 1
    return _state.state.nesting


def _deprecated(old: str, new: str, func):
    @functools.wraps(func)
    def wrapper(*args):
        warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                      stacklevel=2)
        return func(*args)
    return wrapper


is_autocast_cpu_enabled = _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')",
                                      lambda: is_autocast_enabled("cpu"))
get_autocast_gpu_dtype = _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')",
                                     lambda: get_autocast_dtype("cuda"))
get_autocast_cpu_dtype = _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')",
                                     lambda: get_autocast_dtype("cpu"))
