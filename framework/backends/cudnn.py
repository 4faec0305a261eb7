"""torch.backends.cudnn's flags. framework calls no cuDNN (CuPy kernels only), so setting them changes nothing."""
from __future__ import annotations

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True
benchmark_limit: int = 10


def is_available() -> bool:
    """False: framework never calls cuDNN."""
    return False


def version() -> None:
    return None
