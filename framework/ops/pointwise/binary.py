"""Binary elementwise maths: maximum, minimum, fmax, fmin, hypot, float_power, copysign, ldexp, frexp, heaviside,
nextafter."""
from __future__ import annotations

from collections import namedtuple
import math

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.function import Function, OriginalSelf
from ... import dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._twin import inplace_twin
from .._util import (as_operand, binary_dtype, broadcast_error, broadcast_shapes_checked, check_inplace_cast,
                     formula_zeros, grad_for, inplace_shape, operand, promote, scalar_type_name)
from ..scalar_ops import DivScalar, MulScalar
from .arithmetic import RPow
from .conditional import where_op


class Maximum(Function):
    """out = elementwise max(a, b); ties split the gradient in half, as torch. Saves b and a: torch
    MaximumBackward0's order (other_, self_), which it unpacks in (the in-place error names the first changed)."""

    node_name, array_forward, _pick = "MaximumBackward0", True, "maximum"

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        ctx.save_for_backward(b, a)
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        try:
            # laid out as torch's TensorIterator: the first operand's layout decides (a column-major lu_factor
            # result, fuzz seed 4303053); NumPy's would be row-major
            return getattr(get_array_module(a), ctx._forward_cls._pick)(*promote(a, b))
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # torch's formula, where(a == b, grad / 2, grad).masked_fill_(lost, 0): each side gets grad unless it lost
        # (half on a tie), so with a NaN both get all of it; under create_graph its node is MaskedFillBackward0
        a_lost, b_lost = ((a < b), (a > b)) if ctx._forward_cls._pick == "maximum" else ((a > b), (a < b))
        tie = a == b
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = grad_for(where_op(tie, DivScalar.apply(grad, 2), grad).masked_fill_(a_lost, 0), *ctx.a_meta)
        if ctx.needs_input_grad[1]:
            gb = grad_for(where_op(tie, DivScalar.apply(grad, 2), grad).masked_fill_(b_lost, 0), *ctx.b_meta)
        return ga, gb


class Minimum(Maximum):
    """out = elementwise min(a, b); ties split the gradient in half, as torch. Saves a and b."""

    node_name, _pick = "MinimumBackward0", "minimum"


class Hypot(Function):
    """out = sqrt(a**2 + b**2) elementwise, without overflow (C's hypot). Saves b (if it needs grad), a (likewise)
    and out: torch HypotBackward0's order (other_, self_, result), which it unpacks in."""

    node_name, array_forward = "HypotBackward0", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        dt = binary_dtype(a, b)
        if dt.kind not in "fV":  # torch has no integer kernel (and no promotion to float here)
            raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{scalar_type_name(dt)}'")
        x, y = promote(a, b, dt)
        try:
            out = get_array_module(x).hypot(x, y)
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, b.shape) from None
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]  # as torch: each only when its grad is
        ctx.save_for_backward(b if need_b else None, a if need_a else None, out)  # wanted
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, out = ctx.saved_tensors  # torch's grad * self / result and grad * other / result
        ga = grad_for(grad * a / out, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = grad_for(grad * b / out, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb


class HypotInplace(Hypot):
    """In-place hypot_: saves a copy of the old a (torch's original_self), b and the result (a itself now)."""

    node_name, inplace = "HypotBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        inplace_shape(a.shape, b.shape)
        out = Hypot.forward(ctx, a, b)
        check_inplace_cast(out.dtype, a.dtype)
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(b if need_b else None, OriginalSelf(a.copy()) if need_a else None, a)
        a[...] = out
        return a


def maximum(a, b):
    return Maximum.apply(operand(a, "maximum", 1, "input", False), operand(b, "maximum", 2, numbers=False))


def minimum(a, b):
    return Minimum.apply(operand(a, "minimum", 1, "input", False), operand(b, "minimum", 2, numbers=False))


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input**2 + other**2) elementwise; both must be tensors, as torch's."""
    return Hypot.apply(operand(input, "hypot", 1, "input", numbers=False), operand(other, "hypot", 2, numbers=False))


def hypot_(input: Tensor, other: Tensor) -> Tensor:
    return HypotInplace.apply(input, operand(other, "hypot_", 1, numbers=False))


class Fmax(Function):
    """out = max(a, b), ignoring a NaN operand (NaN only where both are). Saves b and a: torch FmaxBackward0's
    order (other_, self_), which it unpacks in."""

    node_name, array_forward = "FmaxBackward0", True
    fn, keep = "fmax", staticmethod(lambda a, b: a >= b)

    @classmethod
    @laid_out_by_operands
    def forward(cls, ctx, a, b):
        ctx.metas = [(a.shape, a.dtype), (b.shape, b.dtype)]
        ctx.save_for_backward(b, a)
        dt = binary_dtype(a, b)
        x, y = promote(a, b, dt)
        return getattr(get_array_module(x), cls.fn)(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        b, a = ctx.saved_tensors
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


def _float_pair(a, b):
    """Both operands in their promoted floating dtype (integers promote to the default float)."""
    dt = binary_dtype(a, b)
    if dt.kind not in "fV":
        dt = dtypes.default_float.np
    return a.astype(dt, copy=False), b.astype(dt, copy=False)


_FREXP = namedtuple("frexp", ["mantissa", "exponent"])  # torch.return_types.frexp's fields


class Copysign(Function):
    """out = |a| with the sign of b (tensor b; CopysignBackward1 for a number). Saves a and out."""

    node_name, array_forward = "CopysignBackward0", True
    grad_writes = (0, 1)  # torch's gradient for b is zeros_like(b): empty_like().zero_()

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        x, y = _float_pair(a, b)
        out = get_array_module(x).copysign(x, y)
        ctx.save_for_backward(a, out)
        ctx.b_meta = getattr(b, "shape", None), getattr(b, "dtype", None)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        # torch's copysign_tensor_self_backward: grad * (result / self), 0 where self is 0
        zero = Tensor._make(a._array == 0)
        ratio = (out / a.masked_fill(zero, 1.0)).masked_fill(zero, 0.0)
        ga = sum_to(grad * ratio, tuple(a.shape)) if ctx.needs_input_grad[0] else None
        gb = None
        if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1]:  # torch: zeros_like(other)
            shape, dt = ctx.b_meta
            gb = Tensor._make(get_array_module(grad._array).zeros(shape, dtype=dt))
        return ga, gb


class CopysignScalar(Copysign):
    node_name = "CopysignBackward1"


class Ldexp(Function):
    """out = a * 2**e. Saves e, and out when e needs a gradient."""

    node_name, array_forward = "LdexpBackward0", True
    exact_in_bfloat16 = True  # forward rounds a bfloat16 power and product itself, as torch's two kernels do

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, e):
        # torch's ldexp is mul(a, pow(2.0, e)): the power is rounded to e's dtype (the default float for an
        # integer e), then the product is taken in the promoted dtype and cast to the result dtype
        out_dt = binary_dtype(a, e)
        out_dt = out_dt if out_dt.kind in "fV" else dtypes.default_float.np
        p = get_array_module(a).exp2(e.astype(e.dtype if e.dtype.kind in "fV" else dtypes.default_float.np,
                                             copy=False))
        x, p = promote(a, p)
        out = (x * p).astype(out_dt, copy=False)
        ctx.save_for_backward(e, out if ctx.needs_input_grad[1] else None)
        ctx.a_shape = a.shape
        return out

    @staticmethod
    def backward(ctx, grad):
        e, out = ctx.saved_tensors
        ga = sum_to(grad * _pow2(e, grad), ctx.a_shape) if ctx.needs_input_grad[0] else None
        # torch's grad * result * log(2): the product with a C++ double is the Scalar overload (MulBackward1)
        ge = sum_to(MulScalar.apply(grad * out, math.log(2.0)), tuple(e.shape)) if ctx.needs_input_grad[1] else None
        return ga, ge


def _pow2(e: Tensor, like: Tensor) -> Tensor:
    """2**e as torch's ldexp derivative computes it: pow(2, e) in e's dtype, so an integer e < 0 gives 0."""
    if e._array.dtype.kind in "iu":
        xp = get_array_module(e._array)
        dt = like._array.dtype
        arr = xp.where(e._array < 0, xp.zeros((), dt), xp.exp2(xp.maximum(e._array, 0).astype(dt)))
        return Tensor._make(arr.astype(dt, copy=False))
    return RPow.apply(e, 2.0)  # torch's at::pow(2, other): in e's dtype, PowBackward2


class Frexp(Function):
    """(mantissa, exponent) with a = mantissa * 2**exponent, |mantissa| in [0.5, 1). Saves the exponent."""

    node_name, array_forward = "FrexpBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        m, e = xp.frexp(a)
        e = e.astype(np.int32)
        ctx.mark_non_differentiable(e)
        ctx.save_for_backward(e)
        return m.astype(a.dtype, copy=False), e

    @staticmethod
    def backward(ctx, grad, grad_e):
        (e,) = ctx.saved_tensors
        return grad / e.exp2()  # torch's exponent.exp2(): an int32 exp2 is float32, 0 below 2**-149


class Heaviside(Function):
    """out = 0 where a < 0, values where a == 0, 1 where a > 0. Not differentiable (torch's NotImplemented)."""

    node_name, array_forward = "torch::autograd::NotImplemented", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, values):
        xp = get_array_module(a)
        return xp.where(a == 0, values, (a > 0).astype(a.dtype)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


class Nextafter(Function):
    """out = the next representable value after a towards b, in their promoted floating dtype. Saves a and b.

    torch's formula: a's gradient is grad where a != b (0 where they are equal), b's is zeros."""

    node_name, array_forward = "NextafterBackward0", True
    exact_in_bfloat16 = True  # the step is one ulp of the operands' own dtype: never widened to float32

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        if dt.kind not in "fV":
            raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{scalar_type_name(dt)}'")
        ctx.metas = [(a.shape, a.dtype), (b.shape, b.dtype)]
        # torch's order: other_, then self_, both only when self needs a gradient (other's zeros_like(other) reads
        # only its sizes: with just other requiring grad, changing it in place or a second backward is fine)
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[0] else None)
        x, y = promote(a, b, dt)
        try:
            return get_array_module(x).nextafter(x, y)
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, b.shape) from None

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:  # torch: at::where(self == other, zeros, grad)
            zero = Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
            ga = grad_for(where_op(a == b, zero, grad), *ctx.metas[0])
        if ctx.needs_input_grad[1]:  # torch: zeros_like(other), empty_like().zero_() (so _version 1)
            shape, dtype = ctx.metas[1]
            gb = formula_zeros(Tensor._make(get_array_module(grad._array).zeros((), dtype=dtype)), tuple(shape))
        return ga, gb


class NextafterInplace(Nextafter):
    """In-place nextafter_: the result cast into a (torch's same-kind check). Saves a copy of the old a and b."""

    node_name, inplace = "NextafterBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        inplace_shape(a.shape, b.shape)
        out = Nextafter.forward(ctx, a, b)
        check_inplace_cast(out.dtype, a.dtype)
        ctx.save_for_backward(*((b, OriginalSelf(a.copy())) if ctx.needs_input_grad[0] else (None, None)))
        a[...] = out
        return a


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after input towards other, elementwise; both must be tensors, as torch's."""
    return Nextafter.apply(operand(input, "nextafter", 1, "input", numbers=False),
                           operand(other, "nextafter", 2, numbers=False))


def nextafter_(input: Tensor, other: Tensor) -> Tensor:
    return NextafterInplace.apply(input, operand(other, "nextafter_", 1, numbers=False))


class CopysignInplace(Copysign):
    """In-place copysign_: saves a copy of the input from before the write and the result (now in a)."""

    node_name, inplace = "CopysignBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        original = OriginalSelf(a.copy())
        a[...] = Copysign.forward(ctx, a, b)
        ctx.save_for_backward(original, a)
        return a


class CopysignScalarInplace(CopysignInplace):
    node_name = "CopysignBackward1"


class LdexpInplace(Ldexp):
    """In-place ldexp_: saves the exponent, and the result (now in a) when the exponent needs a gradient."""

    node_name, inplace = "LdexpBackward0", True

    @staticmethod
    def forward(ctx, a, e):
        a[...] = Ldexp.forward(ctx, a, e)
        ctx.save_for_backward(e, a if ctx.needs_input_grad[1] else None)
        return a


def copysign_(input: Tensor, other) -> Tensor:
    if isinstance(other, (int, float)):
        return CopysignScalarInplace.apply(input, get_array_module(input._array).asarray(float(other)))
    return CopysignInplace.apply(input, other)


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return LdexpInplace.apply(input, other)


def _binary(a, b):
    """Both as tensors (a number becomes a 0-d tensor in a's dtype)."""
    a, b = as_operand(a), as_operand(b)
    if not isinstance(b, Tensor):
        b = Tensor._make(get_array_module(a._array).asarray(b, dtype=a._array.dtype))
    return a, b


def copysign(input: Tensor, other) -> Tensor:
    if isinstance(other, (int, float)):
        return CopysignScalar.apply(input, get_array_module(input._array).asarray(float(other)))
    return Copysign.apply(input, other)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return Ldexp.apply(input, other)


def frexp(input: Tensor):
    """(mantissa, exponent) of each element, as torch.return_types.frexp."""
    if input._array.dtype.kind not in "fV":
        raise RuntimeError("framework.frexp() only supports floating-point dtypes")
    m, e = Frexp.apply(input)
    return _FREXP(m, e)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    broadcast_shapes_checked(tuple(input.shape), tuple(values.shape))
    return Heaviside.apply(input, values)


def _heaviside_inplace_backward(ctx, grad):
    raise RuntimeError("derivative for aten::heaviside_ is not implemented")


HeavisideInplace = inplace_twin(Heaviside, backward=staticmethod(_heaviside_inplace_backward))


def heaviside_(input: Tensor, values: Tensor) -> Tensor:
    """heaviside written into input (a NotImplemented node under autograd, as torch's)."""
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    inplace_shape(input.shape, values.shape)
    return HeavisideInplace.apply(input, values)
