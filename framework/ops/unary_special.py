"""Inverse hyperbolic functions (asinh, acosh, atanh), exp2, logit and erfinv; their in-place twins.

Each docstring says what the op saves, as torch's (exp2 keeps its *output*, the others their input); the backward
formulas are torch's derivatives.yaml ones, op for op, so create_graph records torch's nodes.
"""
from __future__ import annotations

import math

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ..tensor import Tensor
from .combine import where_op
from .scalar_ops import AddScalar, MulScalar, SubScalar
from .unary import Exp, Rsqrt, _float
from .unary_more import _Elementwise, _inplace_float

_LN2 = math.log(2.0)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)  # torch's 0.5 * sqrt(M_PI), folded in double before it scales a tensor


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


class Exp2(_Elementwise):
    """out = 2**a. Saves out."""

    node_name, saves = "Exp2Backward0", "output"
    f = staticmethod(lambda xp, a: xp.exp2(a))
    d = staticmethod(lambda grad, out: MulScalar.apply(grad * out, _LN2))  # torch: grad * result * M_LN2


class Erfinv(_Elementwise):
    """out = erfinv(a), the x with erf(x) = a (+-inf at +-1, NaN beyond). Saves a."""

    node_name = "ErfinvBackward0"
    f = staticmethod(lambda xp, a: backend.erfinv(a))
    # torch: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad, erfinv recomputed (an ErfinvBackward0 node)
    d = staticmethod(lambda grad, a: MulScalar.apply(Exp.apply(Erfinv.apply(a).pow(2)), _HALF_SQRT_PI) * grad)


class Logit(Function):
    """out = log(a / (1 - a)), a first clamped to [eps, 1 - eps] when eps is given (else NaN outside [0, 1]).
    Saves a."""

    node_name, array_forward = "LogitBackward0", True

    @staticmethod
    def forward(ctx, a, eps):
        ctx.save_for_backward(a)
        ctx.eps = eps
        x = _float(a)
        xp, t = get_array_module(x), x.dtype.type
        if eps is not None:  # torch's x < lo ? lo : (x > hi ? hi : x), in the tensor's dtype (NaN stays NaN)
            lo = t(eps)
            hi = t(1) - lo
            x = xp.where(x < lo, lo, xp.where(x > hi, hi, x)).astype(x.dtype, copy=False)
        with _errstate(xp, divide="ignore", invalid="ignore"):
            return xp.log(x / (1 - x))  # x = 1 gives log(inf) = inf, x outside [0, 1] log of a negative: NaN

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: torch's differentiable formula, as ordinary ops
            return _logit_backward(grad, a, ctx.eps), None
        return Tensor._make(_logit_backward_kernel(grad._array, a._array, ctx.eps)), None


def _logit_backward(grad: Tensor, a: Tensor, eps) -> Tensor:
    """torch's infinitely_differentiable_logit_backward: where(lo <= a <= hi, grad / (a * (1 - a)), fill), fill 0
    with eps, NaN without (lo, hi = eps, 1 - eps, else 0, 1)."""
    x = a._array
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = Tensor._make((x >= x.dtype.type(lo)) & (x <= x.dtype.type(hi)))
    fill = _full(grad, math.nan if eps is None else 0.0)
    return where_op(inside, grad / (a * (_full(a, 1.0) - a)), fill)


def _logit_backward_kernel(g, x, eps):
    """torch's logit_backward kernel (no graph recorded): g * inf at 0 and 1 (so -0.0 gives the sign of g, where
    the formula's g / (x * (1 - x)) would flip it), 0 outside [eps, 1 - eps] with eps, NaN outside [0, 1]
    without."""
    xp, t = get_array_module(x), x.dtype.type
    lo, hi = (t(0), t(1)) if eps is None else (t(eps), t(1) - t(eps))
    with _errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
        inner = xp.where((x == 0) | (x == 1), g * t(math.inf), g / (x * (1 - x)))
    fill = t(math.nan) if eps is None else t(0)
    return xp.where((x < lo) | (x > hi), fill, inner).astype(g.dtype, copy=False)


# ---- in-place twins (an integer tensor can't hold the float result: torch's cast error) ---------------------

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
Exp2Inplace = _inplace_float(Exp2, "Exp2Inplace")
ErfinvInplace = _inplace_float(Erfinv, "ErfinvInplace", save_input_copy=True)
LogitInplace = _inplace_float(Logit, "LogitInplace", save_input_copy=True)


# ---- functional API ---------------------------------------------------------------------------------

def asinh(input: Tensor) -> Tensor:
    return Asinh.apply(input)


def acosh(input: Tensor) -> Tensor:
    return Acosh.apply(input)


def atanh(input: Tensor) -> Tensor:
    return Atanh.apply(input)


def exp2(input: Tensor) -> Tensor:
    return Exp2.apply(input)


def erfinv(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("erfinv", input):
        return autocast_run("erfinv", erfinv, input)
    return Erfinv.apply(input)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    return Logit.apply(input, None if eps is None else float(eps))


def asinh_(input: Tensor) -> Tensor:
    return AsinhInplace.apply(input)


def acosh_(input: Tensor) -> Tensor:
    return AcoshInplace.apply(input)


def atanh_(input: Tensor) -> Tensor:
    return AtanhInplace.apply(input)


def exp2_(input: Tensor) -> Tensor:
    return Exp2Inplace.apply(input)


def erfinv_(input: Tensor) -> Tensor:
    return ErfinvInplace.apply(input)


def logit_(input: Tensor, eps: float | None = None) -> Tensor:
    return LogitInplace.apply(input, None if eps is None else float(eps))


arcsinh, arccosh, arctanh = asinh, acosh, atanh
arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_
