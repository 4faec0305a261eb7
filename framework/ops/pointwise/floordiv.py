"""floor_divide, remainder and fmod (``//``, ``%``), their in-place and reflected forms, with torch's rounding and signs.

floor_divide rounds the quotient down (numpy's algorithm is torch's: fmod, then snap); remainder has the sign
of the divisor and keeps fmod's zero (``-4.0 % 2`` is ``-0.0``, as torch); fmod has the sign of the dividend.
Integer division by zero raises torch's ``ZeroDivisionError``.  torch has no derivative for floor_divide or for
``number % tensor``: their results get a ``torch::autograd::NotImplemented`` node that raises in backward."""
from __future__ import annotations

from ...autograd.function import Function, OriginalSelf
from ... import backend
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._twin import inplace_twin
from .._util import binary_dtype, check_inplace_cast, grad_for, inplace_shape, operand, promote, shape_of


def _quotient_dtype(a, b, kernel: str):
    dt = binary_dtype(a, b)
    if dt.kind in "iub":
        if dt.kind == "b":
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Bool'")
        zero = (b == 0) if not hasattr(b, "any") else None
        if zero is None:
            with backend.input_check():  # under framework.compile: checked at capture, no graph break
                zero = bool((b == 0).any())
        if zero:
            raise RuntimeError("ZeroDivisionError")
    return dt


def _floor_divide(a, b):
    dt = _quotient_dtype(a, b, "div_floor")
    a, b = promote(a, b, dt)
    xp = get_array_module(a if hasattr(a, "dtype") else b)
    with backend.errstate(xp, divide="ignore", invalid="ignore"):  # x // 0.0 is ±inf or nan, as torch
        out = xp.floor_divide(a, b)
    return out.astype(dt, copy=False) if out.dtype != dt else out


def _fmod(a, b, kernel: str = "fmod"):
    dt = _quotient_dtype(a, b, kernel)
    a, b = promote(a, b, dt)
    xp = get_array_module(a if hasattr(a, "dtype") else b)
    with backend.errstate(xp, invalid="ignore"):
        out = xp.fmod(a, b)
    return xp.asarray(out, dtype=dt)


def _remainder(a, b):
    """fmod moved into the divisor's sign; a zero result keeps fmod's sign (torch's, unlike numpy's remainder)."""
    mod = _fmod(a, b, "remainder")
    xp = get_array_module(mod)
    return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + xp.asarray(b, dtype=mod.dtype), mod)


def _meta(ctx, a, b):
    ctx.a_meta = (shape_of(a), getattr(a, "dtype", None))
    ctx.b_meta = (shape_of(b), getattr(b, "dtype", None))


class FloorDivide(Function):
    """out = floor(a / b). No derivative in torch: backward raises. Saves nothing."""

    node_name, array_forward = "torch::autograd::NotImplemented", True
    bfloat16_reads_scalar = (1,)  # torch's kernel reads a 0-d second operand's own value (opmath)
    _aten = "floor_divide"

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        return _floor_divide(a, b)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"derivative for aten::{ctx._forward_cls._aten} is not implemented")


class RRemainder(FloorDivide):
    """out = s % b for a Python number s. No derivative in torch: backward raises. Saves nothing."""

    node_name, _aten = "torch::autograd::NotImplemented", "remainder"
    bfloat16_reads_scalar = ()  # (torch casts a 0-d operand of remainder to bfloat16 in either place)

    @staticmethod
    def forward(ctx, s, b):
        return _remainder(s, b)


class RemainderScalar(Function):
    """out = a % s for a Python number s (the divisor's sign). Saves nothing."""

    node_name, array_forward, _aten = "RemainderBackward0", True, "remainder"
    bfloat16_scalars = True  # torch's kernel reads s cast to a bfloat16 tensor's dtype

    @staticmethod
    def forward(ctx, a, s):
        return _remainder(a, s)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Remainder(Function):
    """out = a % b for tensors. Saves b and a when b needs grad (its gradient is -grad * floor(a / b)): torch
    RemainderBackward1's order (other, self), which it unpacks in (the in-place error names the first changed)."""

    node_name, array_forward = "RemainderBackward1", True
    _compute, _round = staticmethod(_remainder), staticmethod(_floor_divide)

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        _meta(ctx, a, b)
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(b, a)
        return ctx._forward_cls._compute(a, b)

    @staticmethod
    def backward(ctx, grad):
        ga = grad_for(grad, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = None
        if ctx.needs_input_grad[1]:
            # torch's formula -grad * a.div(b, rounding_mode=...): the rounded quotient is a DivBackward2 node
            # (zero gradients), so under create_graph b's gradient requires grad through a and b
            b, a = ctx.saved_tensors
            gb = grad_for(-grad * RoundedQuotient.apply(a, b, ctx._forward_cls._round), *ctx.b_meta)
        return ga, gb


def _trunc_divide(a, b):
    dt = _quotient_dtype(a, b, "div_trunc")
    a, b = promote(a, b, dt)
    xp = get_array_module(a if hasattr(a, "dtype") else b)
    if dt.kind in "iu":  # exact for integers: the remainder taken off first
        return ((a - xp.fmod(a, b)) // b).astype(dt, copy=False)
    with backend.errstate(xp, divide="ignore", invalid="ignore"):
        return xp.asarray(xp.trunc(a / b), dtype=dt)


class RoundedQuotient(Function):
    """out = a / b rounded down (floor_divide's algorithm) or toward zero: torch's div(rounding_mode=...), whose
    gradients are zeros (DivBackward2). Saves nothing."""

    node_name, array_forward = "DivBackward2", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b, round_fn):
        _meta(ctx, a, b)
        return round_fn(a, b)

    @staticmethod
    def backward(ctx, grad):
        xp = get_array_module(grad._array)
        ga = Tensor._make(xp.zeros(ctx.a_meta[0], dtype=grad._array.dtype)) if ctx.needs_input_grad[0] else None
        gb = Tensor._make(xp.zeros(ctx.b_meta[0], dtype=grad._array.dtype)) if ctx.needs_input_grad[1] else None
        return ga, gb, None


RoundedQuotientInplace = inplace_twin(RoundedQuotient)


def div_rounded_(input: Tensor, other, rounding_mode: str) -> Tensor:
    """input.div_(other, rounding_mode='floor' | 'trunc'): the rounded quotient written into input (DivBackward2)."""
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    other = operand(other, "div_", 1)
    if isinstance(other, Tensor):
        inplace_shape(input.shape, other.shape)
    return RoundedQuotientInplace.apply(input, other, _floor_divide if rounding_mode == "floor" else _trunc_divide)


class FmodScalar(RemainderScalar):
    """out = fmod(a, s) for a Python number s (the dividend's sign). Saves nothing."""

    node_name = "FmodBackward0"

    @staticmethod
    def forward(ctx, a, s):
        return _fmod(a, s)


class Fmod(Remainder):
    """out = fmod(a, b) for tensors. Saves b and a when b needs grad (its gradient is -grad * trunc(a / b)), in
    torch FmodBackward1's order (other, self)."""

    node_name = "FmodBackward1"
    _compute, _round = staticmethod(_fmod), staticmethod(_trunc_divide)


def _inplace(base, name):
    """``base``'s in-place twin: the result is written into arg 0 (whose dtype it must fit)."""

    @laid_out_by_operands
    def forward(ctx, a, b):
        out = base.forward(ctx, a, b)
        check_inplace_cast(out.dtype, a.dtype)
        if ctx._to_save:  # backward needs the old a: keep a copy (torch's original_self)
            ctx.save_for_backward(ctx._to_save[0], OriginalSelf(a.copy()))  # (other, self): the base's order
        a[...] = out
        return a

    return type(name, (base,), {"node_name": base.node_name, "inplace": True, "_aten": f"{getattr(base, '_aten', '')}_",
                                "forward": staticmethod(forward), "__doc__": f"In-place {base.__doc__}"})


FloorDivideInplace = _inplace(FloorDivide, "FloorDivideInplace")


RemainderScalarInplace = _inplace(RemainderScalar, "RemainderScalarInplace")


RemainderInplace = _inplace(Remainder, "RemainderInplace")


FmodScalarInplace = _inplace(FmodScalar, "FmodScalarInplace")


FmodInplace = _inplace(Fmod, "FmodInplace")


def floor_divide(input, other):
    """floor(input / other), rounded towards -inf; no gradient (as torch)."""
    return FloorDivide.apply(operand(input, "floor_divide", 1, "input"), operand(other, "floor_divide", 2))


def remainder(input, other):
    """input - floor(input / other) * other: the result has the divisor's sign."""
    input, other = operand(input, "remainder", 1, "input"), operand(other, "remainder", 2)
    if not isinstance(input, Tensor):
        return RRemainder.apply(input, other)
    return Remainder.apply(input, other) if isinstance(other, Tensor) else RemainderScalar.apply(input, other)


def fmod(input, other):
    """C's fmod: input - trunc(input / other) * other, with the dividend's sign."""
    input, other = operand(input, "fmod", 1, "input"), operand(other, "fmod", 2)
    return Fmod.apply(input, other) if isinstance(other, Tensor) else FmodScalar.apply(input, other)


def floor_divide_(input, other):
    return FloorDivideInplace.apply(input, operand(other, "floor_divide_", 1))


def remainder_(input, other):
    other = operand(other, "remainder_", 1)
    return RemainderInplace.apply(input, other) if isinstance(other, Tensor) else \
        RemainderScalarInplace.apply(input, other)


def fmod_(input, other):
    other = operand(other, "fmod_", 1)
    return FmodInplace.apply(input, other) if isinstance(other, Tensor) else FmodScalarInplace.apply(input, other)
