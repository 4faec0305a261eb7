"""Exponentials and logarithms: log1p, expm1, log2, log10, exp2, logit, logaddexp(2), square."""
from __future__ import annotations

import math

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import dtypes
from ...backend import errstate, errstate as _errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import iterator_layout, laid_out_by_operands
from .._util import broadcast_shapes_checked
from ..scalar_ops import AddScalar, MulScalar
from .arithmetic import PowScalar
from .arithmetic_inplace import PowScalarInplace
from .binary import _binary, _float_pair
from .conditional import where_op
from .trigonometric import _full
from .unary import _Elementwise, _float
from .unary_inplace import _inplace_float


class Logaddexp(Function):
    """out = log(e**a + e**b), stable. Saves b and a: torch LogaddexpBackward0's order (other_, self_), which it
    unpacks in."""

    node_name, array_forward = "LogaddexpBackward0", True
    base = math.e

    @classmethod
    @laid_out_by_operands
    def forward(cls, ctx, a, b):
        broadcast_shapes_checked(a.shape, b.shape)
        ctx.save_for_backward(b, a)
        x, y = _float_pair(a, b)
        xp = get_array_module(x)
        with errstate(xp, over="ignore", invalid="ignore"):
            return (xp.logaddexp(x, y) if cls.base == math.e else xp.logaddexp2(x, y)).astype(x.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, grad):
        b, a = ctx.saved_tensors
        # torch's grad / (1 + exp(other - self)) (exp2 for logaddexp2), each summed to its operand's shape
        p = (lambda t: t.exp()) if cls.base == math.e else (lambda t: t.exp2())
        ga = sum_to(grad / (1 + p(b - a)), tuple(a.shape)) if ctx.needs_input_grad[0] else None
        gb = sum_to(grad / (1 + p(a - b)), tuple(b.shape)) if ctx.needs_input_grad[1] else None
        return ga, gb


class Logaddexp2(Logaddexp):
    """out = log2(2**a + 2**b), stable. Saves b and a (Logaddexp's order)."""

    node_name, base = "Logaddexp2Backward0", 2


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return Logaddexp.apply(input, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return Logaddexp2.apply(input, other)


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


Log1pInplace = _inplace_float(Log1p, "Log1pInplace", save_input_copy=True)


Expm1Inplace = _inplace_float(Expm1, "Expm1Inplace")


Log2Inplace = _inplace_float(Log2, "Log2Inplace", save_input_copy=True)


Log10Inplace = _inplace_float(Log10, "Log10Inplace", save_input_copy=True)


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


def log1p_(input):
    return Log1pInplace.apply(input)


def expm1_(input):
    return Expm1Inplace.apply(input)


def log2_(input):
    return Log2Inplace.apply(input)


def log10_(input):
    return Log10Inplace.apply(input)


class Exp2(_Elementwise):
    """out = 2**a. Saves out."""

    node_name, saves = "Exp2Backward0", "output"
    f = staticmethod(lambda xp, a: xp.exp2(a))
    d = staticmethod(lambda grad, out: MulScalar.apply(grad * out, _LN2))  # torch: grad * result * M_LN2


class Logit(Function):
    """out = log(a / (1 - a)), a first clamped to [eps, 1 - eps] when eps is given (else NaN outside [0, 1]).
    Saves a."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

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
    out = xp.where((x < lo) | (x > hi), fill, inner).astype(g.dtype, copy=False)
    return iterator_layout(out, (g, x))  # torch's TensorIterator over (grad, self)


Exp2Inplace = _inplace_float(Exp2, "Exp2Inplace")


LogitInplace = _inplace_float(Logit, "LogitInplace", save_input_copy=True)


def exp2(input: Tensor) -> Tensor:
    return Exp2.apply(input)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    return Logit.apply(input, None if eps is None else float(eps))


def exp2_(input: Tensor) -> Tensor:
    return Exp2Inplace.apply(input)


def logit_(input: Tensor, eps: float | None = None) -> Tensor:
    return LogitInplace.apply(input, None if eps is None else float(eps))
