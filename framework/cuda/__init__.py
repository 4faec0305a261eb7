"""framework.cuda: is_available, device_count, synchronize, manual_seed_all (through backend's cupy)."""
from __future__ import annotations

import importlib

from .. import backend


def is_available() -> bool:
    """True when cupy imports and sees a CUDA device."""
    return backend.cupy_available()


def device_count() -> int:
    if not is_available():
        return 0
    return backend._import_cupy().cuda.runtime.getDeviceCount()


def synchronize() -> None:
    if is_available():
        backend._import_cupy().cuda.Device().synchronize()


def manual_seed_all(seed: int) -> None:
    if is_available():
        backend._import_cupy().random.seed(seed)


def current_device() -> int:
    if not is_available():
        raise RuntimeError("No CUDA GPUs are available (framework needs cupy and an NVIDIA GPU)")
    return backend._import_cupy().cuda.Device().id


def __getattr__(name: str):
    # framework.cuda.amp sits a floor above (it builds on autograd's state), so it is loaded on first use
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'framework.cuda' has no attribute '{name}'")
