"""detect_anomaly / set_detect_anomaly: record forward stacks on nodes, check backward for NaN."""
from __future__ import annotations

import functools
import threading
import traceback

from .callsite import _FRAMEWORK_DIR

class _State(threading.local):
    enabled = False
    check_nan = True


_state = _State()


def is_anomaly_enabled() -> bool:
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


def record_stack() -> list[str]:
    """The forward stack, formatted, without the framework's own frames at the end."""
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_FRAMEWORK_DIR)]
    return traceback.format_list(frames)


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns anomaly mode on now; as a context manager, restores on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _state.enabled, _state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.check_nan = self.prev


class detect_anomaly:
    """Context manager/decorator: nodes remember their forward stack; NaN/Inf in backward raises."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self.prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _state.enabled, _state.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.check_nan = self.prev

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper
