"""framework.amp: automatic mixed precision, as torch.amp: ``autocast`` regions and the ``GradScaler``.

Floor 3: the state and the casts (state.py) are read by the ops above; the scaler acts on Tensors only.
"""
from __future__ import annotations

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
