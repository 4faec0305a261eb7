"""torch's global switches: intra-op threads, deterministic algorithms, float32 matmul precision, anomaly mode (re-exported at the top level)."""
from __future__ import annotations

import os

from .autograd import anomaly


_state = {"threads": None, "deterministic": False, "warn_only": False, "matmul_precision": "highest"}


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
