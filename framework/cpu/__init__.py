"""framework.cpu: the CPU device module, as torch.cpu (its ``amp`` holds the deprecated autocast and GradScaler)."""
from __future__ import annotations

import importlib


def is_available() -> bool:
    """Always True: the CPU is always there."""
    return True


def device_count() -> int:
    return 1


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU ops finish before they return."""


def __getattr__(name: str):
    # framework.cpu.amp sits a floor above (it builds on autograd's state), so it is loaded on first use
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'framework.cpu' has no attribute '{name}'")
