"""Bitwise ops on integer and bool tensors: and, or, xor, not, shifts, gcd, lcm."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...backend import device_of, get_array_module
from ...tensor import Tensor
from ...memory_layout import elementwise_layout
from .._util import binary_dtype, check_inplace_cast, inplace_shape, operand, promote, scalar_type_name


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
        out = xp.asarray(fn(xp, xp.asarray(x, dtype=dt), xp.asarray(y, dtype=dt)))
        with no_grad():
            return Tensor._make(elementwise_layout(out, (x, y)))  # torch's TensorIterator layout

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
