"""More elementwise functions: square, floor/ceil/round/trunc/frac, log1p/expm1/log2/log10, tan/sinh/cosh,
asin/acos/atan, erf, nan_to_num; and their in-place twins (square_, floor_, ...).

Each docstring says what the op saves, which is what torch's saves (expm1 and tan keep their *output*, the
others their input, and the rounding ops nothing), so in-place changes raise when torch's do.
"""
from __future__ import annotations

import math

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend, dtypes
from ..autograd.function import Function
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ..tensor import Tensor
from .arithmetic import PowScalar
from .arithmetic_inplace import PowScalarInplace
from .scalar_ops import AddScalar, MulScalar
from ._util import check_inplace_cast, scalar_type_name
from .unary import Abs, Rsqrt, _float
from .unary_inplace import _inplace


class _Elementwise(Function):
    """out = f(a), computed by the class's ``f(xp, a)``; ``saves`` says whether a ("input") or out ("output")
    is kept, and ``d(grad, saved)`` is the backward formula on tensors (so double backward works)."""

    array_forward = True
    saves = "input"
    f = None
    d = None

    @staticmethod
    def forward(ctx, a):
        fwd = ctx._forward_cls
        xp = get_array_module(a)
        with _errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
            out = fwd.f(xp, _float(a))
        ctx.save_for_backward(a if fwd.saves == "input" else out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (saved,) = ctx.saved_tensors
        return ctx._forward_cls.d(grad, saved)


_LN2, _LN10 = math.log(2.0), math.log(10.0)


class Log1p(_Elementwise):
    """out = ln(1 + a). Saves a."""

    node_name = "Log1PBackward0"
    f = staticmethod(lambda xp, a: xp.log1p(a))
    d = staticmethod(lambda grad, a: grad / AddScalar.apply(a, 1))  # torch's log1p_backward


class Expm1(_Elementwise):
    """out = e**a - 1. Saves out."""

    node_name, saves = "Expm1Backward0", "output"
    f = staticmethod(lambda xp, a: xp.expm1(a))
    d = staticmethod(lambda grad, out: grad * AddScalar.apply(out, 1))


class Log2(_Elementwise):
    """out = log2(a). Saves a."""

    node_name = "Log2Backward0"
    f = staticmethod(lambda xp, a: xp.log2(a))
    d = staticmethod(lambda grad, a: grad / MulScalar.apply(a, _LN2))


class Log10(_Elementwise):
    """out = log10(a). Saves a."""

    node_name = "Log10Backward0"
    f = staticmethod(lambda xp, a: xp.log10(a))
    d = staticmethod(lambda grad, a: grad / MulScalar.apply(a, _LN10))


class Tan(_Elementwise):
    """out = tan(a). Saves out."""

    node_name, saves = "TanBackward0", "output"
    f = staticmethod(lambda xp, a: xp.tan(a))
    d = staticmethod(lambda grad, out: grad * AddScalar.apply(out.pow(2), 1))  # torch: grad * (1 + result.pow(2))


class Sinh(_Elementwise):
    """out = sinh(a). Saves a."""

    node_name = "SinhBackward0"
    f = staticmethod(lambda xp, a: xp.sinh(a))
    d = staticmethod(lambda grad, a: grad * Cosh.apply(a))


class Cosh(_Elementwise):
    """out = cosh(a). Saves a."""

    node_name = "CoshBackward0"
    f = staticmethod(lambda xp, a: xp.cosh(a))
    d = staticmethod(lambda grad, a: grad * Sinh.apply(a))


class Asin(_Elementwise):
    """out = asin(a). Saves a."""

    node_name = "AsinBackward0"
    f = staticmethod(lambda xp, a: xp.arcsin(a))
    d = staticmethod(lambda grad, a: grad * Rsqrt.apply(AddScalar.apply(-a * a, 1)))


class Acos(_Elementwise):
    """out = acos(a). Saves a."""

    node_name = "AcosBackward0"
    f = staticmethod(lambda xp, a: xp.arccos(a))
    d = staticmethod(lambda grad, a: grad * -Rsqrt.apply(AddScalar.apply(-a * a, 1)))


class Atan(_Elementwise):
    """out = atan(a). Saves a."""

    node_name = "AtanBackward0"
    f = staticmethod(lambda xp, a: xp.arctan(a))
    d = staticmethod(lambda grad, a: grad / AddScalar.apply(a * a, 1))  # torch's + 1: the Scalar add


class Erf(_Elementwise):
    """out = erf(a). Saves a."""

    node_name = "ErfBackward0"
    f = staticmethod(lambda xp, a: backend.erf(a))
    # torch's 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    d = staticmethod(lambda grad, a: MulScalar.apply((-(a.pow(2))).exp(), 2.0 / math.sqrt(math.pi)) * grad)


class Erfc(_Elementwise):
    """out = erfc(a) = 1 - erf(a) (accurate where erf(a) is near 1). Saves a."""

    node_name = "ErfcBackward0"
    f = staticmethod(lambda xp, a: backend.erfc(a))
    # torch's -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    d = staticmethod(lambda grad, a: MulScalar.apply((-(a.pow(2))).exp(), -2.0 / math.sqrt(math.pi)) * grad)


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


class NanToNum(Function):
    """out = a with nan, +inf, -inf replaced by numbers. Saves a (the gradient is zero where a is not finite)."""

    node_name, array_forward = "NanToNumBackward0", True

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.save_for_backward(a)
        if a.dtype.kind not in "fV":
            return a.copy()
        return get_array_module(a).nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        finite = get_array_module(a._array).isfinite(a._array)
        return grad * Tensor._make(finite), None, None, None


# ---- in-place twins -------------------------------------------------------------------------------------

def _inplace_float(base, name, save_input_copy=False):
    """_inplace for a function whose result is floating: an integer tensor can't hold it, with torch's message
    ('Long', not the C++ name _inplace's cast check uses for clamp_)."""
    cls = _inplace(base, name, save_input_copy)
    inner = cls.forward

    def forward(ctx, a, *args):
        if a.dtype.kind not in "fV":
            check_inplace_cast(dtypes.default_float.np, a.dtype)
        return inner(ctx, a, *args)

    cls.forward = staticmethod(forward)
    return cls


Log1pInplace = _inplace_float(Log1p, "Log1pInplace", save_input_copy=True)
Expm1Inplace = _inplace_float(Expm1, "Expm1Inplace")
Log2Inplace = _inplace_float(Log2, "Log2Inplace", save_input_copy=True)
Log10Inplace = _inplace_float(Log10, "Log10Inplace", save_input_copy=True)
TanInplace = _inplace_float(Tan, "TanInplace")
SinhInplace = _inplace_float(Sinh, "SinhInplace", save_input_copy=True)
CoshInplace = _inplace_float(Cosh, "CoshInplace", save_input_copy=True)
AsinInplace = _inplace_float(Asin, "AsinInplace", save_input_copy=True)
AcosInplace = _inplace_float(Acos, "AcosInplace", save_input_copy=True)
AtanInplace = _inplace_float(Atan, "AtanInplace", save_input_copy=True)
ErfInplace = _inplace_float(Erf, "ErfInplace", save_input_copy=True)
ErfcInplace = _inplace_float(Erfc, "ErfcInplace", save_input_copy=True)
FloorInplace = _inplace(Floor, "FloorInplace")
CeilInplace = _inplace(Ceil, "CeilInplace")
RoundInplace = _inplace(Round, "RoundInplace")
RoundDecimalsInplace = _inplace(RoundDecimals, "RoundDecimalsInplace")
TruncInplace = _inplace(Trunc, "TruncInplace")
FracInplace = _inplace(Frac, "FracInplace")
NanToNumInplace = _inplace(NanToNum, "NanToNumInplace", save_input_copy=True)


# ---- functional API ---------------------------------------------------------------------------------

def square(input: Tensor) -> Tensor:
    """input * input, as torch: pow(input, 2) (PowBackward0); bool gives int64."""
    if input._array.dtype.kind == "b":
        input = input.to(dtype=dtypes.int64)
    return PowScalar.apply(input, 2)


def square_(input: Tensor) -> Tensor:
    return PowScalarInplace.apply(input, 2)


def log1p(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("log1p", input):
        return autocast_run("log1p", log1p, input)
    return Log1p.apply(input)


def expm1(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("expm1", input):
        return autocast_run("expm1", expm1, input)
    return Expm1.apply(input)


def log2(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("log2", input):
        return autocast_run("log2", log2, input)
    return Log2.apply(input)


def log10(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("log10", input):
        return autocast_run("log10", log10, input)
    return Log10.apply(input)


def tan(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("tan", input):
        return autocast_run("tan", tan, input)
    return Tan.apply(input)


def sinh(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("sinh", input):
        return autocast_run("sinh", sinh, input)
    return Sinh.apply(input)


def cosh(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("cosh", input):
        return autocast_run("cosh", cosh, input)
    return Cosh.apply(input)


def asin(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("asin", input):
        return autocast_run("asin", asin, input)
    return Asin.apply(input)


def acos(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("acos", input):
        return autocast_run("acos", acos, input)
    return Acos.apply(input)


def atan(input: Tensor) -> Tensor:
    return Atan.apply(input)


def erf(input: Tensor) -> Tensor:
    return Erf.apply(input)


def erfc(input: Tensor) -> Tensor:
    return Erfc.apply(input)


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


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    return NanToNum.apply(input, nan, posinf, neginf)


def absolute(input: Tensor) -> Tensor:
    return Abs.apply(input)


# in-place forms (methods, and torch's top-level torch.floor_(x) etc.)

def log1p_(input):
    return Log1pInplace.apply(input)


def expm1_(input):
    return Expm1Inplace.apply(input)


def log2_(input):
    return Log2Inplace.apply(input)


def log10_(input):
    return Log10Inplace.apply(input)


def tan_(input):
    return TanInplace.apply(input)


def sinh_(input):
    return SinhInplace.apply(input)


def cosh_(input):
    return CoshInplace.apply(input)


def asin_(input):
    return AsinInplace.apply(input)


def acos_(input):
    return AcosInplace.apply(input)


def atan_(input):
    return AtanInplace.apply(input)


def erf_(input):
    return ErfInplace.apply(input)


def erfc_(input):
    return ErfcInplace.apply(input)


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


def nan_to_num_(input, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    return NanToNumInplace.apply(input, nan, posinf, neginf)


def absolute_(input):
    return input.abs_()


arcsin, arccos, arctan = asin, acos, atan
fix, fix_ = trunc, trunc_
