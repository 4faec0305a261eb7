"""torch.backends.cudnn's flags. framework calls no cuDNN (CuPy kernels only), so setting them changes nothing.

The defaults are those of a torch without cuDNN (a CPU build): ``benchmark_limit`` and ``version()`` are None.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Iterator

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True
benchmark_limit: int | None = None
fp32_precision: str = "none"


def is_available() -> bool:
    """False: framework never calls cuDNN."""
    return False


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: never here."""
    return False


def version() -> None:
    return None


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True, fp32_precision: str = "none", depthwise_kernel: str = "auto") -> Iterator[None]:
    """Set the flags inside the block and restore them after (torch.backends.cudnn.flags; benchmark_limit and
    depthwise_kernel stay unset, as on a torch without cuDNN)."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32", "fp32_precision")
    saved = {name: getattr(module, name) for name in names}
    for name, value in zip(names, (enabled, benchmark, deterministic, allow_tf32, fp32_precision)):
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
