"""Padding layers (torch.nn.modules.padding): constant, zero, reflection, replication and circular padding in 1, 2 and 3 dims."""
from __future__ import annotations

from ...ops.vision import padding as _resample
from ...tensor import Tensor
from .module import Module


__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


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


class ReflectionPad3d(_PadNd):
    """Pad the last three dims with their reflection (the edge values not repeated)."""

    _dims, _mode = 3, "reflect"


class ReplicationPad3d(_PadNd):
    """Pad the last three dims by repeating their edge values."""

    _dims, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._dims + 1, self._dims + 2):  # torch's _check_input_dim
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        return _resample.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim with its own values wrapped around."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims with their own values wrapped around."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims with their own values wrapped around."""

    _dims = 3


class _ConstantPadNd(Module):
    """Pad the last ``_dims`` dims with ``value`` (an int pads every side; else (left, right[, top, ...]))."""

    _dims = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return _resample.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim by (left, right) with ``value``."""

    _dims = 1


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims by (left, right, top, bottom, front, back) with ``value``."""

    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim by (left, right) with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _quadruple(padding) -> tuple:
    return (padding,) * 4 if isinstance(padding, int) else tuple(padding)


class ConstantPad2d(Module):
    """Pad the last two dims by (left, right, top, bottom) with ``value``."""

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding, self.value = _quadruple(padding), value

    def forward(self, input):
        return _resample.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims by (left, right, top, bottom) with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
