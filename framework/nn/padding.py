"""Reflection and replication padding layers (torch.nn.modules.padding), over F.pad's 'reflect'/'replicate'."""
from __future__ import annotations

from ..ops import resample as _resample
from ..tensor import Tensor
from .module import Module


class _PadNd(Module):
    """Pad the last ``_dims`` dims by ``padding`` (an int for every side, or (left, right[, top, bottom]))."""

    _dims: int = 2
    _mode: str = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return _resample.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the edge value not repeated)."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dims with their reflection (the edge values not repeated)."""

    _dims, _mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge value."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dims by repeating their edge values."""

    _dims, _mode = 2, "replicate"
