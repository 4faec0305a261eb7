"""The gamma family: lgamma, digamma, polygamma, mvlgamma, zeta, igamma(c)."""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from ...autograd.bfloat16 import half_dtype, widen_half
from ...autograd.function import Function
from ... import backend, dtypes
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._twin import inplace_twin
from .._util import binary_dtype, grad_for, inplace_shape, operand, promote, scalar_type_name
from ..scalar_ops import AddScalar
from .unary import _Elementwise, _float
from .unary_inplace import _inplace_float


_SQRT_2PI = math.sqrt(2 * math.pi)


def _const(like: Tensor, value: float) -> Tensor:
    """A 0-d constant in like's dtype and device (C++'s at::full({}, value, options): no edge in the graph)."""
    return Tensor._make(get_array_module(like._array).full((), value, dtype=like._array.dtype))


def _special(name):
    """f(xp, a) for _Elementwise: scipy.special's ``name`` on a (integers as float32, as torch)."""
    return staticmethod(lambda xp, a: backend.special(name, a))


class Lgamma(_Elementwise):
    """out = ln|Gamma(a)|. Saves a."""

    node_name = "LgammaBackward0"
    f = staticmethod(lambda xp, a: backend.lgamma(a))
    d = staticmethod(lambda grad, a: grad * Digamma.apply(a))  # torch: grad * digamma(self)


# torch's calc_digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
# (Cephes's coefficients); negative x by reflection. Ported op for op, so values agree with torch's to the last bits
_PSI_10 = 2.25175258906672110764


_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _digamma_positive(xp, x):
    """calc_digamma for x > 0 (elementwise; the loop runs at most 10 times, each element stopping at 10)."""
    one = x.dtype.type(1)
    result = xp.zeros_like(x)
    for _ in range(10):
        low = x < 10
        result -= xp.where(low, one / x, 0)
        x = xp.where(low, x + one, x)
    z = one / (x * x)
    poly = xp.full_like(x, _PSI_A[0])
    for c in _PSI_A[1:]:
        poly = poly * z + x.dtype.type(c)
    y = xp.where(x < 1.0e17, z * poly, 0)
    out = result + xp.log(x) - x.dtype.type(0.5) / x - y
    return xp.where(x == 10, result + x.dtype.type(_PSI_10), out)


def _digamma(xp, x):
    """torch's calc_digamma elementwise: -inf/+inf at -+0, NaN at negative integers, reflection below 0."""
    negative = x < 0
    r = x - xp.trunc(x)  # modf's fractional part: tan(pi r) is more accurate than tan(pi x)
    safe = xp.where(negative, 1 - x, xp.where(x == 0, 1, x))
    out = _digamma_positive(xp, safe)
    pi_over_tan = (math.pi / xp.tan(math.pi * r.astype(xp.float64))).astype(x.dtype)  # in double, as torch
    out = xp.where(negative, out - pi_over_tan, out)
    out = xp.where(negative & (x == xp.trunc(x)), xp.nan, out)
    return xp.where(x == 0, xp.copysign(xp.inf, -x), out).astype(x.dtype)


def _trigamma(xp, x):
    """torch's calc_trigamma (polygamma(1, x)): six recurrence steps, then the asymptotic series."""
    t = x.dtype.type
    low = x < 0.5
    sin_pi_x = xp.sin(t(math.pi) * x)
    result = xp.where(low, -(t(math.pi) * t(math.pi)) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
    x = xp.where(low, 1 - x, x)
    for _ in range(6):
        result += 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result += (1 + 1 / (2 * x) + ixx * (t(1. / 6) - ixx * (t(1. / 30) - ixx * t(1. / 42)))) / x
    return xp.where(low, -result, result).astype(x.dtype)


class Digamma(_Elementwise):
    """out = psi(a) = d/da ln Gamma(a) (-inf at 0, NaN at negative integers). Saves a."""

    node_name = "DigammaBackward0"
    f = staticmethod(_digamma)
    d = staticmethod(lambda grad, a: grad * Polygamma.apply(a, 1))  # torch: grad * polygamma(1, self)


def _c_exp_lgamma(x: float, single: bool) -> float:
    """exp(lgamma(x)) by the C library's functions (lgammaf/expf when ``single``), as torch's C++ kernels compute a
    factorial (polygamma's n!): a few ulps from n!, and Python's math.lgamma is an approximation of its own."""
    libm = _libm()
    if libm is None:  # no C library to ask: the nearest we have
        return float(np.float32(math.exp(math.lgamma(x)))) if single else math.exp(math.lgamma(x))
    if single:
        return libm.expf(libm.lgammaf(x))
    return libm.exp(libm.lgamma(x))


_LIBM: list = []


def _libm():
    """The C math library through ctypes (None where there is none to load)."""
    if not _LIBM:
        name = ctypes.util.find_library("m")
        lib = None
        try:
            lib = ctypes.CDLL(name) if name else None
        except OSError:
            pass
        if lib is not None:
            for fn, ty in (("lgammaf", ctypes.c_float), ("expf", ctypes.c_float), ("lgamma", ctypes.c_double),
                           ("exp", ctypes.c_double)):
                getattr(lib, fn).restype, getattr(lib, fn).argtypes = ty, [ty]
        _LIBM.append(lib)
    return _LIBM[0]


def _polygamma(xp, a, n: int, half=None):
    """torch's polygamma: digamma for n = 0, trigamma for 1, else (-1)^(n+1) n! zeta(n+1, a) (the Hurwitz zeta
    is Cephes's algorithm in torch and in SciPy). torch's n! is the C library's exp(lgamma(n + 1)), in float below
    float64; for a ``half`` dtype (a float32 here) its zeta is rounded to that dtype before the product."""
    if n == 0:
        return _digamma(xp, a)
    if n == 1:
        return _trigamma(xp, a)
    out = backend.special("zeta", xp.full((), n + 1, dtype=a.dtype), a)
    if half is not None:
        out = out.astype(half).astype(a.dtype)
    factorial = _c_exp_lgamma(n + 1.0, single=a.dtype != np.float64)
    out *= a.dtype.type((1.0 if n % 2 else -1.0) * factorial)
    return xp.where(a == xp.inf, xp.asarray(xp.nan, dtype=out.dtype), out)  # torch's zeta at +inf (see below)


class Polygamma(Function):
    """out = the n-th derivative of digamma at a. Saves a."""

    node_name, array_forward = "PolygammaBackward0", True
    half_in_steps = ("float16", "bfloat16")  # forward widens them itself: torch rounds zeta first (n >= 2)

    @staticmethod
    def forward(ctx, a, n):
        ctx.n = n
        ctx.save_for_backward(a)
        a = _float(a)
        half = half_dtype(a)
        if half is not None:
            a = widen_half(a)
        xp = get_array_module(a)
        with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
            out = _polygamma(xp, a, n, half)
        return out if half is None else out.astype(half)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * Polygamma.apply(a, ctx.n + 1), None  # torch: grad * polygamma(n + 1, self)


class Mvlgamma(Function):
    """out = ln of the p-variate gamma function: sum_i lgamma(a - i/2) + p(p-1)/4 ln(pi). Saves a."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward = "MvlgammaBackward0", True

    @staticmethod
    def forward(ctx, a, p):
        ctx.p = p
        ctx.save_for_backward(a)
        a = _float(a)
        xp = get_array_module(a)
        args = xp.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=a.dtype) + a[..., None]  # torch's arange, then add
        out = backend.lgamma(args).sum(-1)
        out += p * (p - 1) * math.log(math.pi) / 4
        return out

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # torch's mvlgamma_backward: grad * digamma(args).sum(-1)
        xp = get_array_module(a._array)
        p = ctx.p
        args = Tensor._make(xp.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=a._array.dtype)) + a.unsqueeze(-1)
        return grad * Digamma.apply(args).sum(-1), None


def _binary_float(a, b, fn: str):
    """a and b in their promoted floating dtype (integers to float32), as torch's float-only binary kernels."""
    dt = binary_dtype(a, b)
    if dt.kind == "b" or dt.kind in "iu":
        dt = dtypes.default_float.np
    return promote(a, b, dt)


def _forward_binary(ctx, a, b, name: str, saves: tuple):
    ctx.metas = [(getattr(x, "shape", ()), getattr(x, "dtype", None)) for x in (a, b)]
    ctx.save_for_backward(*(x if s else None for x, s in zip((a, b), saves)))
    x, y = _binary_float(a, b, name)
    xp = get_array_module(x if hasattr(x, "shape") else y)
    dt = (x if hasattr(x, "shape") else y).dtype
    x, y = xp.asarray(x, dtype=dt), xp.asarray(y, dtype=dt)  # (a Python number: in the tensor's dtype)
    if dt.itemsize == 2 and name in ("xlogy", "xlog1py"):
        return _xlogy_in_steps(xp, x, y, name)
    with errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
        out = backend.special(name, x, y)
    if name == "zeta":  # torch's Cephes loop gives inf - inf = NaN at q = +inf (SciPy's returns 0)
        out = xp.where(y == xp.inf, xp.asarray(xp.nan, dtype=out.dtype), out)
    return out


def _xlogy_in_steps(xp, x, y, name: str):
    """xlogy (xlog1py) of bfloat16 or float16 arrays as torch's CPU kernel: x * log(y) in the half type itself,
    the log rounded to it before the product is (c10's half maths), NaN where y is, 0 where x is 0."""
    dt, f32 = x.dtype, np.float32
    x32, y32 = x.astype(f32), y.astype(f32)
    with errstate(xp, divide="ignore", invalid="ignore"):
        lg = (xp.log(y32) if name == "xlogy" else xp.log1p(y32)).astype(dt).astype(f32)
        out = xp.where(x32 == 0, xp.zeros((), f32), x32 * lg)
    return xp.where(xp.isnan(y32), xp.asarray(xp.nan, dtype=f32), out).astype(dt)


class SpecialZeta(Function):
    """out = the Hurwitz zeta function sum_k (q + k)^-x. Saves q and x (torch SpecialZetaBackward0's order, which it
    unpacks in); only q has a gradient (torch's too)."""

    half_kernel = "zeta_cpu"
    node_name, array_forward = "SpecialZetaBackward0", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, x, q):
        out = _forward_binary(ctx, x, q, "zeta", (True, True))
        ctx.save_for_backward(q, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        q, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        # torch: grad * -self * special_zeta(self + 1., other)
        return None, grad_for(grad * -x * SpecialZeta.apply(AddScalar.apply(x, 1.0), q), *ctx.metas[1])


class Igamma(Function):
    """out = the regularized lower incomplete gamma function P(a, x). Saves x and a (torch IgammaBackward0's order,
    which it unpacks in); x alone has a gradient."""

    node_name, array_forward = "IgammaBackward0", True
    name, sign, what = "gammainc", 1.0, "igamma"

    @classmethod
    @laid_out_by_operands
    def forward(cls, ctx, a, x):
        out = _forward_binary(ctx, a, x, cls.name, (True, True))
        ctx.save_for_backward(x, a)
        return out

    @classmethod
    def backward(cls, ctx, grad):
        x, a = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{cls.what}: input' is not implemented.")
        # torch: grad * exp((self - 1) * log(other) - other - lgamma(self)); igammac negates grad first (-grad * ...),
        # so its create_graph gradient ends in MulBackward0 as torch's
        g = (-grad if cls.sign < 0 else grad) * ((a - 1) * x.log() - x - Lgamma.apply(a)).exp()
        return None, grad_for(g, *ctx.metas[1])


class Igammac(Igamma):
    """out = the regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x). Saves x and a."""

    node_name, name, sign, what = "IgammacBackward0", "gammaincc", -1.0, "igammac"


IgammaInplace, IgammacInplace = inplace_twin(Igamma), inplace_twin(Igammac)


def igamma_(input: Tensor, other: Tensor) -> Tensor:
    """input = P(input, other), in place (IgammaBackward0; a copy of the old input is saved, as torch)."""
    other = operand(other, "igamma_", 1, numbers=False)
    inplace_shape(input.shape, other.shape)
    return IgammaInplace.apply(input, other)


def igammac_(input: Tensor, other: Tensor) -> Tensor:
    """input = Q(input, other), in place (IgammacBackward0)."""
    other = operand(other, "igammac_", 1, numbers=False)
    inplace_shape(input.shape, other.shape)
    return IgammacInplace.apply(input, other)


LgammaInplace = _inplace_float(Lgamma, "LgammaInplace", save_input_copy=True)


DigammaInplace = _inplace_float(Digamma, "DigammaInplace", save_input_copy=True)


class PolygammaInplace(_inplace_float(Polygamma, "_PolygammaInplace", save_input_copy=True)):
    """In-place polygamma_: torch's has a derivative entry (and node name) of its own. Saves a copy of the old a."""

    node_name = "PolygammaBackward1"


def lgamma(input: Tensor) -> Tensor:
    return Lgamma.apply(input)


def lgamma_(input: Tensor) -> Tensor:
    return LgammaInplace.apply(input)


def digamma(input: Tensor) -> Tensor:
    return Digamma.apply(input)


def digamma_(input: Tensor) -> Tensor:
    return DigammaInplace.apply(input)


def _check_n(n: int) -> None:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma (torch's argument order: n first)."""
    _check_n(n)
    return Polygamma.apply(input, int(n))


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """Tensor.polygamma(n): the tensor is the input, n the order."""
    return polygamma(n, self)


def polygamma_(self: Tensor, n: int) -> Tensor:
    """In place: self becomes polygamma(n, self)."""
    _check_n(n)
    return PolygammaInplace.apply(self, int(n))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input._array.dtype.kind not in "fV":
        raise RuntimeError("mvlgamma is not implemented for " + scalar_type_name(input._array.dtype))
    return Mvlgamma.apply(input, int(p))
