"""More activation layers (SiLU, ELU, SELU, CELU, Softplus, Hardtanh, ReLU6, Mish, PReLU, Hardswish, Hardsigmoid,
LogSigmoid, Softmin, Softsign, Tanhshrink) and shape/padding layers (Unflatten, ZeroPad2d, ConstantPad2d), with
torch's reprs."""
from __future__ import annotations

import warnings

from .. import creation
from ..ops import activation_more as A
from ..ops import resample as _resample
from ..ops.shape_more import unflatten
from .module import Module
from .parameter import Parameter


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class SiLU(Module):
    """x * sigmoid(x) (also called swish)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return A.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Mish(SiLU):
    """x * tanh(softplus(x))."""

    def forward(self, input):
        return A.mish(input, inplace=self.inplace)


class Hardswish(SiLU):
    """x * relu6(x + 3) / 6."""

    def forward(self, input):
        return A.hardswish(input, inplace=self.inplace)


class Hardsigmoid(SiLU):
    """relu6(x + 3) / 6."""

    def forward(self, input):
        return A.hardsigmoid(input, inplace=self.inplace)


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return A.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class SELU(SiLU):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), torch's fixed alpha and scale."""

    def forward(self, input):
        return A.selu(input, inplace=self.inplace)


class CELU(ELU):
    """x if x > 0 else alpha * (exp(x / alpha) - 1)."""

    def forward(self, input):
        return A.celu(input, self.alpha, self.inplace)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input):
        return A.tanhshrink(input)


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear above threshold."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return A.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:  # the old spellings, still honoured (with torch's warning)
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        if not max_val > min_val:  # torch's assert in Hardtanh.__init__
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return A.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class LogSigmoid(Module):
    def forward(self, input):
        return A.logsigmoid(input)


class Softsign(Module):
    def forward(self, input):
        return A.softsign(input)


class Softmin(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return A.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """x if x > 0 else a * x, with a learned slope a (one, or one per channel), initialised to ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.full((num_parameters,), float(init), dtype=dtype, device=device))

    def reset_parameters(self) -> None:
        self.weight.data.fill_(self.init)

    def forward(self, input):
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (a view)."""

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be tuple of ints, but found type {}".format(
                type(unflattened_size).__name__))
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


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
