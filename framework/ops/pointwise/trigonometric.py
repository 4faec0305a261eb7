"""Trigonometric and hyperbolic functions, their inverses, atan2, and degree/radian conversion."""
from __future__ import annotations

import math

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._twin import inplace_twin
from .._util import broadcast_error, check_inplace_cast, grad_for, inplace_shape, operand, promote
from ..scalar_ops import AddScalar, MulScalar, SubScalar
from .unary import _Elementwise, _float, Rsqrt
from .unary_inplace import _inplace_float


def _full(like: Tensor, value: float) -> Tensor:
    """A 0-d constant in like's dtype and device (C++'s scalar operand, wrapped: no edge in the graph)."""
    xp = get_array_module(like._array)
    return Tensor._make(xp.full((), value, dtype=like._array.dtype))


class Asinh(_Elementwise):
    """out = asinh(a). Saves a."""

    node_name = "AsinhBackward0"
    f = staticmethod(lambda xp, a: xp.arcsinh(a))
    # torch: grad * (self.pow(2) + 1).rsqrt()
    d = staticmethod(lambda grad, a: grad * Rsqrt.apply(AddScalar.apply(a.pow(2), 1)))


class Acosh(_Elementwise):
    """out = acosh(a) (NaN below 1). Saves a."""

    node_name = "AcoshBackward0"
    f = staticmethod(lambda xp, a: xp.arccosh(a))
    # torch: grad * (self * self - 1).rsqrt(), the Scalar subtraction (SubBackward1)
    d = staticmethod(lambda grad, a: grad * Rsqrt.apply(SubScalar.apply(a * a, 1)))


class Atanh(_Elementwise):
    """out = atanh(a) (+-inf at +-1, NaN beyond). Saves a."""

    node_name = "AtanhBackward0"
    f = staticmethod(lambda xp, a: xp.arctanh(a))
    # torch: grad * 1 / (1 - self.pow(2)): the Scalar product (MulBackward1), and C++'s 1 - t, a wrapped 0-d
    # tensor minus t (SubBackward0)
    d = staticmethod(lambda grad, a: MulScalar.apply(grad, 1) / (_full(a, 1.0) - a.pow(2)))


def _inplace_without_derivative(base, name: str, op: str):
    """torch's asinh_, acosh_, atanh_: the in-place form records an <Op>Backward1 node whose backward raises
    (derivatives.yaml gives it no formula). Saves nothing."""
    cls = _inplace_float(base, name)
    inner = cls.forward

    def forward(ctx, a):
        out = inner(ctx, a)
        ctx.save_for_backward()  # nothing: the backward only raises
        return out

    def backward(ctx, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {op}' is not implemented.")

    node = base.node_name[:-1] + "1"
    return type(name, (cls,), {"node_name": node, "forward": staticmethod(forward), "backward": staticmethod(backward),
                               "__doc__": f"In-place {op}_: {node}, whose backward raises, as torch's. Saves nothing."})


AsinhInplace = _inplace_without_derivative(Asinh, "AsinhInplace", "asinh")


AcoshInplace = _inplace_without_derivative(Acosh, "AcoshInplace", "acosh")


AtanhInplace = _inplace_without_derivative(Atanh, "AtanhInplace", "atanh")


def asinh(input: Tensor) -> Tensor:
    return Asinh.apply(input)


def acosh(input: Tensor) -> Tensor:
    return Acosh.apply(input)


def atanh(input: Tensor) -> Tensor:
    return Atanh.apply(input)


def asinh_(input: Tensor) -> Tensor:
    return AsinhInplace.apply(input)


def acosh_(input: Tensor) -> Tensor:
    return AcoshInplace.apply(input)


def atanh_(input: Tensor) -> Tensor:
    return AtanhInplace.apply(input)


arcsinh, arccosh, arctanh = asinh, acosh, atanh


arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_


class Atan2(Function):
    """out = atan2(a, b) elementwise: the angle of the point (b, a). Saves b and a: torch Atan2Backward0's order
    (other_, self_), which it unpacks in (the in-place error names the first changed one)."""

    node_name, array_forward = "Atan2Backward0", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        ctx.save_for_backward(b, a)
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        a, b = promote(a, b)
        if a.dtype.kind not in "fV":  # integers and bools give the default float dtype, as torch
            a, b = a.astype(np.float32), b.astype(np.float32)
        try:
            return get_array_module(a).arctan2(a, b)
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, b.shape) from None

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # torch's atan2_backward: 1 / (a^2 + b^2), 0 where that is 1 / 0 (a masked_fill node), so the gradient at
        # the origin is 0 (and not 0 * inf = NaN)
        denom = a * a + b * b
        recip = denom.reciprocal().masked_fill(denom == 0, 0)
        ga = grad_for(grad * b * recip, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = grad_for(grad * -a * recip, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb


def atan2(input, other):
    if _amp.on and autocast_applies("atan2", input, other):
        return autocast_run("atan2", atan2, input, other)
    return Atan2.apply(operand(input, "atan2", 1, "input", False), operand(other, "atan2", 2, numbers=False))


arctan2 = atan2


Atan2Inplace = inplace_twin(Atan2)


def atan2_(input: Tensor, other: Tensor) -> Tensor:
    """input = atan2(input, other), in place (Atan2Backward0, saving a copy of the old input as torch)."""
    other = operand(other, "atan2_", 1, numbers=False)
    inplace_shape(input.shape, other.shape)
    return Atan2Inplace.apply(input, other)


arctan2_ = atan2_


class _ScaleBy(Function):
    """out = a * c for a fixed constant c (deg2rad, rad2deg; integers give float32). Saves nothing."""

    array_forward = True
    factor = 1.0

    @classmethod
    def forward(cls, ctx, a):
        return _float(a) * cls.factor  # (a Python float: computed in a's floating dtype, as torch's wrapped scalar)

    @classmethod
    def backward(cls, ctx, grad):
        return MulScalar.apply(grad, cls.factor)  # torch: at::mul(grad, M_PI_180)


class Deg2Rad(_ScaleBy):
    """out = a * pi / 180. Saves nothing."""

    node_name, factor = "Deg2RadBackward0", math.pi / 180


class Rad2Deg(_ScaleBy):
    """out = a * 180 / pi. Saves nothing."""

    node_name, factor = "Rad2DegBackward0", 180 / math.pi


class _ScaleByInplace(Function):
    """a *= c in place (a floating). Saves nothing."""

    array_forward, inplace, factor = True, True, 1.0

    @classmethod
    def forward(cls, ctx, a):
        a *= cls.factor
        return a

    @classmethod
    def backward(cls, ctx, grad):
        return MulScalar.apply(grad, cls.factor)


class Deg2RadInplace(_ScaleByInplace):
    """In-place deg2rad_. Saves nothing."""

    node_name, factor = "Deg2RadBackward0", math.pi / 180


class Rad2DegInplace(_ScaleByInplace):
    """In-place rad2deg_. Saves nothing."""

    node_name, factor = "Rad2DegBackward0", 180 / math.pi


def deg2rad(input: Tensor) -> Tensor:
    return Deg2Rad.apply(input)


def rad2deg(input: Tensor) -> Tensor:
    return Rad2Deg.apply(input)


def _scale_inplace(cls, input: Tensor) -> Tensor:
    if input._array.dtype.kind not in "fV":  # torch: "result type Float can't be cast to the desired output type Long"
        check_inplace_cast(dtypes.default_float.np, input._array.dtype)
    return cls.apply(input)


def deg2rad_(input: Tensor) -> Tensor:
    return _scale_inplace(Deg2RadInplace, input)


def rad2deg_(input: Tensor) -> Tensor:
    return _scale_inplace(Rad2DegInplace, input)


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


TanInplace = _inplace_float(Tan, "TanInplace")


SinhInplace = _inplace_float(Sinh, "SinhInplace", save_input_copy=True)


CoshInplace = _inplace_float(Cosh, "CoshInplace", save_input_copy=True)


AsinInplace = _inplace_float(Asin, "AsinInplace", save_input_copy=True)


AcosInplace = _inplace_float(Acos, "AcosInplace", save_input_copy=True)


AtanInplace = _inplace_float(Atan, "AtanInplace", save_input_copy=True)


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


arcsin, arccos, arctan = asin, acos, atan
