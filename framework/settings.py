"""torch's global switches: intra-op and inter-op threads, deterministic algorithms (and their debug mode), float32
matmul precision, anomaly mode, warn-always, denormal flushing, the legacy default tensor type (re-exported at the
top level)."""
from __future__ import annotations

import importlib
import os
import warnings

from .autograd import anomaly
from . import dtypes


_state = {"threads": None, "deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "interop_threads": None, "warn_always": False}


def get_num_threads() -> int:
    """The threads the array library uses (what set_num_threads set, else the CPU count)."""
    return _state["threads"] or os.cpu_count() or 1


def set_num_threads(n: int) -> None:
    """Limit the BLAS/OpenMP threads NumPy uses (through threadpoolctl when installed: `pip install
    threadpoolctl`; without it the limit only applies to processes started afterwards, via OMP_NUM_THREADS)."""
    if int(n) <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _state["threads"] = int(n)
    os.environ["OMP_NUM_THREADS"] = str(int(n))
    try:
        import threadpoolctl  # optional (the bench extra installs it)
    except ImportError:
        return
    threadpoolctl.threadpool_limits(int(n))


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded for are_deterministic_algorithms_enabled(): every framework op is deterministic already."""
    _state["deterministic"], _state["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: NumPy and CuPy compute float32 matmuls in full float32 ("highest") here."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}; expected 'highest', 'high' or 'medium'")
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Anomaly mode on or off from now on (torch.set_anomaly_enabled; autograd.set_detect_anomaly as a call)."""
    anomaly.set_detect_anomaly(enabled, check_nan)


def get_num_interop_threads() -> int:
    """The inter-op thread count torch would use (what set_num_interop_threads set, else the CPU count); framework
    runs ops one after another, so it is recorded only."""
    return _state["interop_threads"] or os.cpu_count() or 1


def set_num_interop_threads(n: int) -> None:
    """Record the inter-op thread count; as torch, only once, and only a positive number."""
    if int(n) <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop_threads"] = int(n)


def set_flush_denormal(mode: bool) -> bool:
    """Whether the denormal mode asked for is in effect: NumPy and CuPy keep denormal numbers and cannot be told to
    flush them, so turning flushing off succeeds (True, as torch on an SSE3 CPU) and turning it on does not (False,
    as torch where the CPU lacks the feature)."""
    return not mode


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


def set_warn_always(b: bool, /) -> None:
    """torch's switch for the warnings it gives once per process (warn_once below): on, they warn every time."""
    _state["warn_always"] = bool(b)


_warned: set = set()


def warn_once(message: str, category: type = UserWarning, stacklevel: int = 3) -> None:
    """torch's TORCH_WARN_ONCE: the first time in the process, or every time under set_warn_always(True)."""
    if _state["warn_always"] or message not in _warned:
        _warned.add(message)
        warnings.warn(message, category, stacklevel=stacklevel)


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """0/'default': deterministic algorithms off; 1/'warn': on, warn only; 2/'error': on (torch's mapping onto
    use_deterministic_algorithms)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_default_tensor_type(t, /) -> None:
    """Deprecated in torch (with its warning): FloatTensor / DoubleTensor (or 'torch.FloatTensor'...) make float32 /
    float64 the default dtype."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        if ".cuda." in t:
            raise NotImplementedError(f"set_default_tensor_type({t!r}) is not supported; use "
                                      "set_default_device('cuda') and set_default_dtype()")
        # the legacy classes by torch's dotted name, from the package (loaded by now: this is its function)
        t = getattr(importlib.import_module(__package__), t.rpartition(".")[2])
    legacy = getattr(t, "_legacy_dtype", None) if isinstance(t, type) else None
    if legacy is None:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if legacy not in (dtypes.float32, dtypes.float64):
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.default_float = legacy
