"""Special functions: erf, erfc, erfinv, Bessel i0/i1(e), sinc, entr, ndtri, log_ndtr, xlogy, xlog1py."""
from __future__ import annotations

import math

import ml_dtypes

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function, OriginalSelf
from ... import backend
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._util import check_inplace_cast, grad_for, inplace_shape, operand, refuse_half_kernel
from ..scalar_ops import AddScalar, MulScalar
from .conditional import where_op
from .gamma import _const, _forward_binary, _special, _SQRT_2PI
from .unary import _Elementwise, Exp
from .unary_inplace import _inplace_float


class _SavesBoth(_Elementwise):
    """An elementwise op whose torch backward takes both the input and the result: saves a and out."""

    @staticmethod
    def forward(ctx, a):
        out = _Elementwise.forward(ctx, a)
        ctx.save_for_backward(a, out)
        return out


# the smallest float32 whose exp() overflows: torch's float32 i0/i1 kernels compute exp(|x|) * series / sqrt(|x|)
# in float32, so their result is inf from here on even where the function itself is below float32's max
_EXP_OVERFLOW_F32 = 88.72283935546875


def _as_float32_kernel(f, odd: bool = False):
    """f, with torch's float32 overflow: +-inf (odd: the sign of x) where exp(|x|) overflows in float32."""
    f = f.__func__  # (_special gives a staticmethod)

    def kernel(xp, a):
        out = f(xp, a)
        if a.dtype.char == "f":
            big = (xp.abs(a) >= _EXP_OVERFLOW_F32) & xp.isfinite(a)  # (+-inf stays f's: torch's inf / inf, nan)
            out = xp.where(big, xp.copysign(xp.asarray(xp.inf, out.dtype), a) if odd else out.dtype.type(xp.inf), out)
        return out
    return kernel


class I0(_Elementwise):
    """out = the modified Bessel function of the first kind, order 0. Saves a."""

    node_name = "I0Backward0"
    f = staticmethod(_as_float32_kernel(_special("i0")))
    d = staticmethod(lambda grad, a: grad * SpecialI1.apply(a))  # torch: grad * special_i1(self)


class SpecialI0e(_SavesBoth):
    """out = exp(-|a|) i0(a). Saves a and out."""

    node_name = "SpecialI0EBackward0"
    f = _special("i0e")

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # torch: grad * (special_i1e(self) - self.sgn() * result)
        return grad * (SpecialI1e.apply(a) - a.sign() * out)


def _i1_like_backward(grad, a, out, regular, kernel: str):
    """torch's i1_backward / i1e_backward: ``regular(safe_a)`` away from 0, the limit 0.5 at |a| <= eps."""
    refuse_half_kernel(a, kernel)  # torch dispatches these on float and double only (forward has all four)
    eps = float(ml_dtypes.finfo(a._array.dtype).eps)  # (a dtype's constant, read on the host)
    not_tiny = a.abs() > eps
    safe = where_op(not_tiny, a, _const(a, eps))
    return grad * where_op(not_tiny, regular(safe, out), _const(a, 0.5))


class SpecialI1(_SavesBoth):
    """out = the modified Bessel function of the first kind, order 1. Saves a and out."""

    node_name = "SpecialI1Backward0"
    f = staticmethod(_as_float32_kernel(_special("i1"), odd=True))

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # i0(x) - i1(x) / x
        return _i1_like_backward(grad, a, out, lambda s, r: I0.apply(s) - r * s.reciprocal(), "i1_backward")


class SpecialI1e(_SavesBoth):
    """out = exp(-|a|) i1(a). Saves a and out."""

    node_name = "SpecialI1EBackward0"
    f = _special("i1e")

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # i0e(x) - i1e(x) (sgn(x) + 1/x)
        return _i1_like_backward(grad, a, out,
                                 lambda s, r: SpecialI0e.apply(s) - r * (s.sign() + s.reciprocal()), "i1e_backward")


class Sinc(_Elementwise):
    """out = sin(pi a) / (pi a), 1 at 0. Saves a."""

    node_name = "SincBackward0"
    f = staticmethod(lambda xp, a: xp.sinc(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # torch's sinc_backward
        a_pi = MulScalar.apply(a, math.pi)
        a_sq_pi = MulScalar.apply(a * a, math.pi)
        out = grad * (a_pi * a_pi.cos() - a_pi.sin()) / a_sq_pi
        return where_op(a_sq_pi == 0.0, _const(grad, 0.0), out)


class SpecialEntr(_Elementwise):
    """out = -a ln a (0 at 0, -inf below). Saves a."""

    node_name = "SpecialEntrBackward0"
    f = _special("entr")
    d = staticmethod(lambda grad, a: grad * -AddScalar.apply(a.log(), 1))  # torch: grad * (-(1 + self.log()))


class SpecialNdtri(_Elementwise):
    """out = the inverse of the standard normal CDF. Saves out."""

    half_kernel = "ndtri_cpu"
    node_name, saves = "SpecialNdtriBackward0", "output"
    f = _special("ndtri")
    # torch: grad * std::sqrt(2 * M_PI) * (result.square() / 2).exp()
    d = staticmethod(lambda grad, out: MulScalar.apply(grad, _SQRT_2PI) * (out.square() / 2).exp())


class SpecialLogNdtr(_SavesBoth):
    """out = ln of the standard normal CDF. Saves a and out."""

    half_kernel = "log_ndtr_cpu"
    node_name = "SpecialLogNdtrBackward0"
    f = _special("log_ndtr")

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # torch: grad / std::sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp()
        return grad / _SQRT_2PI * (out + a.pow(2) / 2).neg().exp()


class Xlogy(Function):
    """out = a * ln(b), 0 where a == 0 (also for b = 0). Saves b and a: torch XlogyBackward0's order (other_,
    self_), which it unpacks in (the in-place error names the first changed one)."""

    half_in_steps = ("bfloat16", "float16")  # torch's kernel: x * log(y) in the half type, log rounded first
    node_name, array_forward = "XlogyBackward0", True
    name, shift, limit = "xlogy", 0.0, 0.0
    self_slot = 1  # where a is saved (its in-place twin keeps the old a there)

    @classmethod
    @laid_out_by_operands
    def forward(cls, ctx, a, b):
        out = _forward_binary(ctx, a, b, cls.name, (True, True))
        ctx.save_for_backward(b, a)
        return out

    @classmethod
    def backward(cls, ctx, grad):
        b, a = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = gb = None
        if needs[0]:  # torch: at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)
            # (the out-of-place op: cls is XlogyInplace when xlogy_ made the node, and grad may be expanded)
            plain = SpecialXlog1py if cls.shift else Xlogy
            ga = plain.apply(grad, b).masked_fill((a == 0.0).logical_and(b <= cls.limit), 0.0)
            ga = grad_for(ga, *ctx.metas[0])
        if needs[1]:  # torch: grad * self / other (xlog1py: other + 1)
            gb = grad_for(grad * a / (AddScalar.apply(b, 1.0) if cls.shift else b), *ctx.metas[1])
        return ga, gb


class SpecialXlog1py(Xlogy):
    """out = a * ln(1 + b), 0 where a == 0. Saves b and a (Xlogy's order)."""

    node_name, name, shift, limit = "SpecialXlog1PyBackward0", "xlog1py", 1.0, -1.0


class XlogyScalarSelf(Function):
    """out = a * ln(b) for a Python number a (torch's XlogyBackward1). Saves b."""

    half_in_steps = ("bfloat16", "float16")  # torch's kernel: x * log(y) in the half type, log rounded first
    node_name, array_forward = "XlogyBackward1", True

    @staticmethod
    def forward(ctx, a, b):
        ctx.a = a
        return _forward_binary(ctx, a, b, "xlogy", (False, True))

    @staticmethod
    def backward(ctx, grad):
        (_, b) = ctx.saved_tensors
        return None, MulScalar.apply(grad, ctx.a) / b  # torch: grad * self / other, self a Scalar


class XlogyScalarOther(Function):
    """out = a * ln(b) for a Python number b (torch's XlogyBackward2). Saves a."""

    half_in_steps = ("bfloat16", "float16")  # torch's kernel: x * log(y) in the half type, log rounded first
    node_name, array_forward = "XlogyBackward2", True
    self_slot = 0

    @staticmethod
    def forward(ctx, a, b):
        ctx.b = b
        return _forward_binary(ctx, a, b, "xlogy", (True, False))

    @staticmethod
    def backward(ctx, grad):
        (a, _) = ctx.saved_tensors
        b = ctx.b
        ga = XlogyScalarOther.apply(grad, b)
        if b <= 0:  # the mask (self == 0) & (other <= 0) with other a number
            ga = ga.masked_fill(a == 0.0, 0.0)
        return ga, None


I0Inplace = _inplace_float(I0, "I0Inplace", save_input_copy=True)


SincInplace = _inplace_float(Sinc, "SincInplace", save_input_copy=True)


def _binary_inplace(base, name: str):
    """base's in-place twin: the result is written into a, the old a kept as torch's original_self."""

    def forward(ctx, a, b):
        inplace_shape(a.shape, getattr(b, "shape", ()))
        out = base.forward(ctx, a, b)
        check_inplace_cast(out.dtype, a.dtype)
        saved = list(ctx._to_save)
        saved[base.self_slot] = OriginalSelf(a.copy())
        ctx.save_for_backward(*saved)
        a[...] = out
        return a

    return type(name, (base,), {"node_name": base.node_name, "inplace": True, "forward": staticmethod(forward),
                                "__doc__": f"In-place {base.__doc__}"})


XlogyInplace = _binary_inplace(Xlogy, "XlogyInplace")


XlogyScalarOtherInplace = _binary_inplace(XlogyScalarOther, "XlogyScalarOtherInplace")


def i0(input: Tensor) -> Tensor:
    return I0.apply(input)


def i0_(input: Tensor) -> Tensor:
    return I0Inplace.apply(input)


def sinc(input: Tensor) -> Tensor:
    return Sinc.apply(input)


def sinc_(input: Tensor) -> Tensor:
    return SincInplace.apply(input)


def xlogy(input, other) -> Tensor:
    """input * log(other), 0 where input == 0; either may be a Python number (not both)."""
    if not isinstance(input, Tensor):
        return XlogyScalarSelf.apply(operand(input, "xlogy", 1, "self"), operand(other, "xlogy", 2))
    if not isinstance(other, Tensor):
        return XlogyScalarOther.apply(input, operand(other, "xlogy", 2))
    return Xlogy.apply(input, other)


def xlogy_(input: Tensor, other) -> Tensor:
    """In place: input becomes input * log(other)."""
    if not isinstance(other, Tensor):
        return XlogyScalarOtherInplace.apply(input, operand(other, "xlogy_", 1))
    return XlogyInplace.apply(input, other)


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


ErfInplace = _inplace_float(Erf, "ErfInplace", save_input_copy=True)


ErfcInplace = _inplace_float(Erfc, "ErfcInplace", save_input_copy=True)


def erf(input: Tensor) -> Tensor:
    return Erf.apply(input)


def erfc(input: Tensor) -> Tensor:
    return Erfc.apply(input)


def erf_(input):
    return ErfInplace.apply(input)


def erfc_(input):
    return ErfcInplace.apply(input)


_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)  # torch's 0.5 * sqrt(M_PI), folded in double before it scales a tensor


class Erfinv(_Elementwise):
    """out = erfinv(a), the x with erf(x) = a (+-inf at +-1, NaN beyond). Saves a."""

    node_name = "ErfinvBackward0"
    f = staticmethod(lambda xp, a: backend.erfinv(a))
    # torch: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad, erfinv recomputed (an ErfinvBackward0 node)
    d = staticmethod(lambda grad, a: MulScalar.apply(Exp.apply(Erfinv.apply(a).pow(2)), _HALF_SQRT_PI) * grad)


ErfinvInplace = _inplace_float(Erfinv, "ErfinvInplace", save_input_copy=True)


def erfinv(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("erfinv", input):
        return autocast_run("erfinv", erfinv, input)
    return Erfinv.apply(input)


def erfinv_(input: Tensor) -> Tensor:
    return ErfinvInplace.apply(input)
