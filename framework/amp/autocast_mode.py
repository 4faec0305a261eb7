"""framework.autocast: a context manager and decorator for mixed-precision regions (torch/amp/autocast_mode.py)."""
from __future__ import annotations

import functools
import warnings
from collections import abc

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

    ``dtype`` defaults to torch's: float16 for 'cuda', bfloat16 for 'cpu' (CuPy has no bfloat16, so on the GPU
    only float16).  Nestable; ``enabled=False`` turns autocast off inside.
    """

    def __init__(self, device_type: str, dtype: dtypes.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _state.check_device_type(device_type)
        self.fast_dtype = _state.get_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = _state.state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda" and not backend.cupy_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif device_type == "cuda" and self.fast_dtype is dtypes.bfloat16:  # CuPy has no bfloat16
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of framework.bfloat16, framework.float16 "
                              "currently.", stacklevel=2)
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


# ---- custom autograd Functions under autocast (torch.amp.custom_fwd / custom_bwd) ----------------------------


def _cast(value, device_type: str, dtype: dtypes.dtype):
    """value with its floating tensors on device_type (not float64) cast to dtype, through lists, tuples, dicts."""
    if hasattr(value, "_array") and hasattr(value, "grad_fn"):
        eligible = (value.is_floating_point() and backend.device(value.device).type == device_type
                    and value.dtype is not dtypes.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or hasattr(value, "__array_interface__"):
        return value
    if isinstance(value, abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: dtypes.dtype | None = None):
    """Decorate a custom Function's ``forward``: remember the autocast state for ``custom_bwd``; with
    ``cast_inputs``, inside an autocast region cast floating inputs to it and run forward with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = getattr(_state.state, f"{device_type}_dtype")  # (None: the CPU's missing bfloat16)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate a custom Function's ``backward``: run it under the autocast state its forward ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
