"""Rounding: floor, ceil, round (with decimals), trunc/fix, frac."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import scalar_type_name
from .unary_inplace import _inplace


class _Rounding(Function):
    """out = a rounded (floor, ceil, round, trunc); integers are copied. Saves nothing: the gradient is zero."""

    array_forward = True
    kernel = ""  # torch's kernel name, for its error on bool tensors
    f = None

    @staticmethod
    def forward(ctx, a, *args):
        fwd = ctx._forward_cls
        if a.dtype.kind == "b":
            raise NotImplementedError(f"\"{fwd.kernel}\" not implemented for 'Bool'")
        if a.dtype.kind in "iu":
            return a.copy()
        return fwd.f(get_array_module(a), a, *args).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        # torch's zeros_like(grad): not grad * 0, which is nan for an infinite gradient
        zero = Tensor._make(get_array_module(grad._array).zeros_like(grad._array))
        return (zero,) + (None,) * (len(ctx.needs_input_grad) - 1)


class Floor(_Rounding):
    """out = floor(a). Saves nothing."""

    node_name, kernel = "FloorBackward0", "floor_vml_cpu"
    f = staticmethod(lambda xp, a: xp.floor(a))


class Ceil(_Rounding):
    """out = ceil(a). Saves nothing."""

    node_name, kernel = "CeilBackward0", "ceil_vml_cpu"
    f = staticmethod(lambda xp, a: xp.ceil(a))


class Round(_Rounding):
    """out = a rounded half to even. Saves nothing."""

    node_name, kernel = "RoundBackward0", "round_vml_cpu"
    f = staticmethod(lambda xp, a: xp.round(a))


class RoundDecimals(_Rounding):
    """out = a rounded half to even to ``decimals`` digits. Saves nothing."""

    node_name, kernel = "RoundBackward1", "round_vml_cpu"

    @staticmethod
    def f(xp, a, decimals):
        # torch: nearbyint(a * 10**d) / 10**d (for d < 0: a / 10**-d, rounded, times 10**-d)
        if decimals >= 0:
            scale = a.dtype.type(10.0 ** decimals)
            return xp.round(a * scale) / scale
        scale = a.dtype.type(10.0 ** -decimals)
        return xp.round(a / scale) * scale


class Trunc(_Rounding):
    """out = a rounded toward zero. Saves nothing."""

    node_name, kernel = "TruncBackward0", "trunc_vml_cpu"
    f = staticmethod(lambda xp, a: xp.trunc(a))


class Frac(Function):
    """out = a - trunc(a). Saves nothing: the gradient passes through."""

    node_name, array_forward = "FracBackward0", True

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind not in "fV":
            raise NotImplementedError(f"\"frac_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
        return a - get_array_module(a).trunc(a)

    @staticmethod
    def backward(ctx, grad):
        return grad


FloorInplace = _inplace(Floor, "FloorInplace")


CeilInplace = _inplace(Ceil, "CeilInplace")


RoundInplace = _inplace(Round, "RoundInplace")


RoundDecimalsInplace = _inplace(RoundDecimals, "RoundDecimalsInplace")


TruncInplace = _inplace(Trunc, "TruncInplace")


FracInplace = _inplace(Frac, "FracInplace")


def floor(input: Tensor) -> Tensor:
    return Floor.apply(input)


def ceil(input: Tensor) -> Tensor:
    return Ceil.apply(input)


def round(input: Tensor, *, decimals: int | None = None) -> Tensor:
    # torch: an explicit decimals (even 0) selects the round.decimals overload, RoundBackward1
    if decimals is not None:
        return RoundDecimals.apply(input, int(decimals))
    return Round.apply(input)


def trunc(input: Tensor) -> Tensor:
    return Trunc.apply(input)


def frac(input: Tensor) -> Tensor:
    return Frac.apply(input)


def floor_(input):
    return FloorInplace.apply(input)


def ceil_(input):
    return CeilInplace.apply(input)


def round_(input, *, decimals: int | None = None):
    if decimals is not None:  # as round: an explicit decimals is the decimals overload
        return RoundDecimalsInplace.apply(input, int(decimals))
    return RoundInplace.apply(input)


def trunc_(input):
    return TruncInplace.apply(input)


def frac_(input):
    return FracInplace.apply(input)


fix, fix_ = trunc, trunc_
