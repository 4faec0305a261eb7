"""framework.cpu.amp: torch.cpu.amp's deprecated autocast and GradScaler, which warn and use framework.amp's.

torch.cpu.amp.autocast defaults to bfloat16, as framework.autocast('cpu') does.
"""
from __future__ import annotations

from .. import dtypes
from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler
from ..amp.state import deprecation_warning


class autocast(_autocast_mode.autocast):
    """``framework.autocast('cpu', ...)`` under torch.cpu.amp's old name (a FutureWarning says so)."""

    def __init__(self, enabled: bool = True, dtype: dtypes.dtype | None = None, cache_enabled: bool = True):
        deprecation_warning("cpu", "autocast")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``framework.amp.GradScaler('cpu', ...)`` under torch.cpu.amp's old name (a FutureWarning says so)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        deprecation_warning("cpu", "GradScaler")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
