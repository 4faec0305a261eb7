"""framework.accelerator: torch's device-agnostic API (is_available, current_accelerator, device_count),
backed by the CuPy backend: the accelerator is CUDA when cupy sees a GPU, otherwise there is none."""
from __future__ import annotations

from . import backend, cuda


def is_available() -> bool:
    """True when an accelerator (a CUDA GPU through cupy) can be used."""
    return cuda.is_available()


def device_count() -> int:
    return cuda.device_count()


def current_accelerator(check_available: bool = False) -> backend.device | None:
    """device('cuda') (a str, 'cuda:0', with .type 'cuda') when cupy sees a GPU, else None (as torch)."""
    return backend.device("cuda") if cuda.is_available() else None


def current_device_index() -> int:
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return cuda.current_device()


current_device_idx = current_device_index


def synchronize(device=None) -> None:
    cuda.synchronize()
