"""More elementwise functions: bitwise and/or/xor/not/shifts, gcd/lcm, fmax/fmin, float_power, deg2rad/rad2deg,
sgn, angle, signbit and the real-number predicates (isneginf, isposinf, isreal), positive; and the in-place
comparisons (eq_, lt_, ...), which write 1/0 into the tensor in its own dtype.

The integer-only ops refuse floating dtypes with torch's NotImplementedError ('"gcd_cpu" not implemented for
'Double''), never a NumPy TypeError.
"""
from __future__ import annotations

import math

from .. import dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..backend import device_of, errstate, get_array_module
from ..tensor import Tensor
from ._util import binary_dtype, check_inplace_cast, grad_for, inplace_shape, operand, promote, scalar_type_name
from .combine import where_op
from .scalar_ops import MulScalar
from .unary import _float


def _kernel(name: str, a) -> str:
    """torch's kernel name in dtype errors: 'gcd_cpu', 'gcd_cuda'."""
    return f"{name}_{'cpu' if device_of(a) == 'cpu' else 'cuda'}"


def _integral(name: str, dt, array) -> None:
    if dt.kind not in "biu" or (dt.kind == "b" and name in ("gcd", "lcm", "lshift", "rshift")):
        raise NotImplementedError(f"\"{_kernel(name, array)}\" not implemented for '{scalar_type_name(dt)}'")


def _int_binary(name: str, kernel: str, fn):
    """A pointwise function of two integer (or bool) operands, no graph (torch gives them no gradient)."""

    def op(input, other) -> Tensor:
        input = operand(input, name, 1, "input")
        other = operand(other, name, 2)
        first = input if isinstance(input, Tensor) else other
        a = input._array if isinstance(input, Tensor) else input
        b = other._array if isinstance(other, Tensor) else other
        dt = binary_dtype(a, b)
        _integral(kernel, dt, first._array)
        x, y = promote(a, b, dt)
        xp = get_array_module(first._array)
        with no_grad():
            return Tensor._make(xp.asarray(fn(xp, xp.asarray(x, dtype=dt), xp.asarray(y, dtype=dt))))

    op.__name__ = name
    return op


def _shift(xp, a, s, left: bool):
    """a << s or a >> s with torch's results for shifts past the width (0, or -1 for a negative a >> s)."""
    bits = a.dtype.itemsize * 8
    wide = (s < 0) | (s >= bits)
    s_safe = xp.where(wide, 0, s)
    if left:
        return xp.where(wide, 0, xp.left_shift(a, s_safe)).astype(a.dtype)
    big = xp.where(a < 0, -1, 0) if a.dtype.kind == "i" else xp.zeros_like(a)
    return xp.where(wide, big, xp.right_shift(a, s_safe)).astype(a.dtype)


bitwise_and = _int_binary("bitwise_and", "bitwise_and", lambda xp, a, b: xp.bitwise_and(a, b))
bitwise_or = _int_binary("bitwise_or", "bitwise_or", lambda xp, a, b: xp.bitwise_or(a, b))
bitwise_xor = _int_binary("bitwise_xor", "bitwise_xor", lambda xp, a, b: xp.bitwise_xor(a, b))
bitwise_left_shift = _int_binary("bitwise_left_shift", "lshift", lambda xp, a, b: _shift(xp, a, b, True))
bitwise_right_shift = _int_binary("bitwise_right_shift", "rshift", lambda xp, a, b: _shift(xp, a, b, False))
gcd = _int_binary("gcd", "gcd", lambda xp, a, b: xp.gcd(a, b))
lcm = _int_binary("lcm", "lcm", lambda xp, a, b: xp.lcm(a, b))


def bitwise_not(input: Tensor) -> Tensor:
    """~input: bitwise not of an integer tensor, logical not of a bool one."""
    dt = input._array.dtype
    _integral("bitwise_not", dt, input._array)
    xp = get_array_module(input._array)
    return Tensor._make(xp.invert(input._array))


def invert_operator(self: Tensor) -> Tensor:
    """Tensor.__invert__: torch's TypeError for floating tensors, bitwise_not otherwise."""
    if self._array.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _int_inplace(fn, name: str):
    """x.gcd_(y) and friends: the result (which has x's dtype after the checks) written into x."""

    def method(self: Tensor, other) -> Tensor:
        out = fn(self, other)
        if out._array.dtype != self._array.dtype:
            check_inplace_cast(out._array.dtype, self._array.dtype)
        inplace_shape(self.shape, out.shape)
        return self.copy_(out)

    method.__name__ = name
    return method


# ---- differentiable pointwise functions -----------------------------------------------------------------

class Fmax(Function):
    """out = max(a, b), ignoring a NaN operand (NaN only where both are). Saves a and b."""

    node_name, array_forward = "FmaxBackward0", True
    fn, keep = "fmax", staticmethod(lambda a, b: a >= b)

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.metas = [(a.shape, a.dtype), (b.shape, b.dtype)]
        ctx.save_for_backward(a, b)
        dt = binary_dtype(a, b)
        x, y = promote(a, b, dt)
        return getattr(get_array_module(x), cls.fn)(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        picked_a = cls.keep(a, b).logical_or(b.isnan())  # torch: (self >= other).logical_or_(other.isnan())
        ga = grad_for(grad.masked_fill(picked_a.logical_not(), 0), *ctx.metas[0]) if ctx.needs_input_grad[0] else None
        gb = grad_for(grad.masked_fill(picked_a, 0), *ctx.metas[1]) if ctx.needs_input_grad[1] else None
        return ga, gb


class Fmin(Fmax):
    """out = min(a, b), ignoring a NaN operand. Saves a and b."""

    node_name, fn, keep = "FminBackward0", "fmin", staticmethod(lambda a, b: a <= b)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    return Fmax.apply(input, operand(other, "fmax", 2, numbers=False))


def fmin(input: Tensor, other: Tensor) -> Tensor:
    return Fmin.apply(input, operand(other, "fmin", 2, numbers=False))


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


def _zeros(grad: Tensor) -> Tensor:
    return Tensor._make(get_array_module(grad._array).zeros_like(grad._array))


class Sgn(Function):
    """out = sign(a) (torch's sgn, which is sign for real numbers); its gradient is zero. Saves a and out (torch's
    sgn_backward takes both, so an in-place change of either still raises)."""

    node_name, array_forward = "SgnBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        if a.dtype.kind not in "fV":
            out = a.copy() if a.dtype.kind == "b" else xp.sign(a)
        else:
            out = xp.subtract(xp.greater(a, 0), xp.less(a, 0), dtype=a.dtype)  # as torch.sign: sgn(NaN) is 0
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # (unpacking checks the versions, as torch's)
        return _zeros(grad)  # torch's sgn_backward of a real tensor: zeros (not grad * 0: inf * 0 is NaN)


def sgn(input: Tensor) -> Tensor:
    return Sgn.apply(input)


class Angle(Function):
    """out = the argument of a real number: pi below 0, 0 at and above, NaN for NaN; float for integers.
    Its gradient is zero. Saves a."""

    node_name, array_forward = "AngleBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)  # torch's angle_backward takes self
        xp = get_array_module(a)
        a = _float(a)
        out = xp.where(a < 0, a.dtype.type(math.pi), a.dtype.type(0))
        return xp.where(xp.isnan(a), a, out).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # (unpacking checks the version, as torch's)
        return _zeros(grad)  # torch's angle_backward of a real input: at::zeros_like(self)


def angle(input: Tensor) -> Tensor:
    return Angle.apply(input)


def float_power(input, exponent) -> Tensor:
    """input ** exponent computed in float64 (torch casts both to double first)."""
    if isinstance(input, Tensor) and input.dtype != dtypes.float64:
        input = input.to(dtypes.float64)
    if isinstance(exponent, Tensor) and exponent.dtype != dtypes.float64:
        exponent = exponent.to(dtypes.float64)
    if not isinstance(input, Tensor):
        return float(input) ** exponent
    return input.pow(float(exponent) if not isinstance(exponent, Tensor) else exponent)


def float_power_(input: Tensor, exponent) -> Tensor:
    if input.dtype != dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(input._array.dtype)} but "
                           "the operation's result requires dtype Double")
    return input.pow_(float(exponent) if not isinstance(exponent, Tensor) else exponent.to(dtypes.float64))


def _predicate(fn):
    def op(input: Tensor) -> Tensor:
        xp = get_array_module(input._array)
        return Tensor._make(xp.asarray(fn(xp, input._array)))

    return op


signbit = _predicate(lambda xp, a: xp.signbit(a) if a.dtype.kind in "fV" else (a < 0) if a.dtype.kind == "i"
                     else xp.zeros(a.shape, dtype=bool))
isposinf = _predicate(lambda xp, a: (a == xp.inf) if a.dtype.kind in "fV" else xp.zeros(a.shape, dtype=bool))
isneginf = _predicate(lambda xp, a: (a == -xp.inf) if a.dtype.kind in "fV" else xp.zeros(a.shape, dtype=bool))
isreal = _predicate(lambda xp, a: xp.ones(a.shape, dtype=bool))  # no complex dtypes here: every element is real


def positive(input: Tensor) -> Tensor:
    """input itself (torch returns the very tensor); a bool tensor is refused as torch's + operator."""
    if input._array.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- in-place comparisons ----------------------------------------------------------------------------------

class CompareInplace(Function):
    """a[...] = (a op b) in a's dtype: torch's eq_/lt_/...; the gradient is zero for both. Saves nothing."""

    array_forward, inplace = True, True

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.metas = [(getattr(x, "shape", ()), getattr(x, "dtype", None)) for x in (a, b)]
        inplace_shape(a.shape, getattr(b, "shape", ()))
        x, y = promote(a, b)
        xp = get_array_module(a)
        with errstate(xp, invalid="ignore"):
            a[...] = getattr(xp, cls.ufunc)(x, y)
        return a

    @classmethod
    def backward(cls, ctx, grad):
        zero = _zeros(grad)  # torch: zeros_like(self), zeros_like(other)
        gb = grad_for(zero, *ctx.metas[1]) if ctx.needs_input_grad[1] else None
        return zero, gb


_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
            "ge": "greater_equal"}
_INPLACE_NODES = {}
for _short, _ufunc in _COMPARE.items():
    for _i in (0, 1):  # Backward0: a number on the right; Backward1: a tensor
        _INPLACE_NODES[_short, _i] = type(f"{_short.capitalize()}Inplace{_i}", (CompareInplace,), {
            "node_name": f"{_short.capitalize()}Backward{_i}", "ufunc": _ufunc,
            "__doc__": f"In-place {_short}_ (other a {'tensor' if _i else 'number'}). Saves nothing."})


def _compare_inplace(short: str):
    def method(self: Tensor, other) -> Tensor:
        other = operand(other, f"{short}_", 1)
        return _INPLACE_NODES[short, int(isinstance(other, Tensor))].apply(self, other)

    method.__name__ = f"{short}_"
    return method


eq_, ne_, lt_, le_, gt_, ge_ = (_compare_inplace(s) for s in ("eq", "ne", "lt", "le", "gt", "ge"))


def logical_inplace(fn, name: str):
    """x.logical_and_(y): x becomes (x and y) in its own dtype (1.0/0.0 for floats). torch records no node for
    it (grad_fn stays as it was); the version counter still counts the write."""

    def method(self: Tensor, *other) -> Tensor:
        out = fn(self, *other)
        inplace_shape(self.shape, out.shape)
        with no_grad():
            self.copy_(out)
        return self

    method.__name__ = name
    return method
