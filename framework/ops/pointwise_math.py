"""More pointwise maths: logaddexp, logaddexp2, copysign, ldexp, frexp, heaviside, clamp_min, and renorm.

One node each, named as torch's; backward is written with differentiable ops (create_graph works) except
heaviside, which torch does not differentiate (its node is NotImplemented and raises, as torch's).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function, OriginalSelf
from ..backend import errstate, get_array_module
from ..tensor import Tensor
from ._util import as_operand, binary_dtype, broadcast_shapes_checked, scalar_type_name, sum_to, wrap_dim
from .combine import where_op
from .unary import Clamp
from .unary_inplace import _inplace


def _float_pair(a, b):
    """Both operands in their promoted floating dtype (integers promote to the default float)."""
    dt = binary_dtype(a, b)
    if dt.kind not in "fV":
        dt = dtypes.default_float.np
    return a.astype(dt, copy=False), b.astype(dt, copy=False)


_FREXP = namedtuple("frexp", ["mantissa", "exponent"])  # torch.return_types.frexp's fields


class Logaddexp(Function):
    """out = log(e**a + e**b), stable. Saves a and b."""

    node_name, array_forward = "LogaddexpBackward0", True
    base = math.e

    @classmethod
    def forward(cls, ctx, a, b):
        broadcast_shapes_checked(a.shape, b.shape)
        ctx.save_for_backward(a, b)
        x, y = _float_pair(a, b)
        xp = get_array_module(x)
        with errstate(xp, over="ignore", invalid="ignore"):
            return (xp.logaddexp(x, y) if cls.base == math.e else xp.logaddexp2(x, y)).astype(x.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        # torch's grad / (1 + exp(other - self)) (exp2 for logaddexp2), each summed to its operand's shape
        p = (lambda t: t.exp()) if cls.base == math.e else (lambda t: t.exp2())
        ga = sum_to(grad / (1 + p(b - a)), tuple(a.shape)) if ctx.needs_input_grad[0] else None
        gb = sum_to(grad / (1 + p(a - b)), tuple(b.shape)) if ctx.needs_input_grad[1] else None
        return ga, gb


class Logaddexp2(Logaddexp):
    """out = log2(2**a + 2**b), stable. Saves a and b."""

    node_name, base = "Logaddexp2Backward0", 2


class Copysign(Function):
    """out = |a| with the sign of b (tensor b; CopysignBackward1 for a number). Saves a and out."""

    node_name, array_forward = "CopysignBackward0", True
    grad_writes = (0, 1)  # torch's gradient for b is zeros_like(b): empty_like().zero_()

    @staticmethod
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

    @staticmethod
    def forward(ctx, a, e):
        x, _ = _float_pair(a, e)
        xp = get_array_module(x)
        out = (x * xp.exp2(e.astype(x.dtype, copy=False))).astype(x.dtype, copy=False)
        ctx.save_for_backward(e, out if ctx.needs_input_grad[1] else None)
        ctx.a_shape = a.shape
        return out

    @staticmethod
    def backward(ctx, grad):
        e, out = ctx.saved_tensors
        ga = sum_to(grad * _pow2(e, grad), ctx.a_shape) if ctx.needs_input_grad[0] else None
        ge = sum_to(grad * out * math.log(2.0), tuple(e.shape)) if ctx.needs_input_grad[1] else None
        return ga, ge


def _pow2(e: Tensor, like: Tensor) -> Tensor:
    """2**e as torch's ldexp derivative computes it: pow(2, e) in e's dtype, so an integer e < 0 gives 0."""
    if e._array.dtype.kind in "iu":
        xp = get_array_module(e._array)
        dt = like._array.dtype
        arr = xp.where(e._array < 0, xp.zeros((), dt), xp.exp2(xp.maximum(e._array, 0).astype(dt)))
        return Tensor._make(arr.astype(dt, copy=False))
    return e.to(like.dtype).exp2()


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
    def forward(ctx, a, values):
        xp = get_array_module(a)
        return xp.where(a == 0, values, (a > 0).astype(a.dtype)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


class ClampMin(Clamp):
    """out = max(a, lo) (torch.clamp_min). Saves a."""

    node_name = "ClampMinBackward0"

    @staticmethod
    def forward(ctx, a, lo):
        return Clamp.forward(ctx, a, lo, None)

    @staticmethod
    def backward(ctx, grad):
        return Clamp.backward(ctx, grad)[:2]


class Renorm(Function):
    """Each slice along dim whose p-norm exceeds maxnorm is scaled to norm maxnorm. Saves a."""

    node_name, array_forward = "RenormBackward0", True

    @staticmethod
    def _norm(xp, a, p, dims):
        if p == math.inf:
            return xp.abs(a).max(axis=dims, keepdims=True)
        return (xp.abs(a) ** p).sum(axis=dims, keepdims=True) ** (1.0 / p)

    @staticmethod
    def forward(ctx, a, p, dim, maxnorm):
        xp = get_array_module(a)
        dims = tuple(d for d in range(a.ndim) if d != dim)
        ctx.save_for_backward(a)
        ctx.p, ctx.dims, ctx.maxnorm = p, dims, maxnorm
        norm = Renorm._norm(xp, a, p, dims)
        factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        return (a * factor).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p, dims, maxnorm = ctx.p, ctx.dims, ctx.maxnorm
        # torch's renorm_backward, op for op: where(norm > maxnorm, factor grad - factor / (norm + 1e-7) nb, grad),
        # nb = norm_backward(sum(a * grad), a, p, norm); the slices left alone pass grad through exactly
        if p == math.inf:
            norm = a.abs().amax(dim=dims, keepdim=True)
        else:
            norm = a.abs().pow(p).sum(dim=dims, keepdim=True).pow(1.0 / p)
        inner = (a * grad).sum(dim=dims, keepdim=True)
        zero = Tensor._make(norm._array == 0)
        if p == 1:
            nb = a.sign() * inner
        elif p == 2:
            nb = a * (inner / norm).masked_fill(zero, 0.0)
        elif p == math.inf:
            hit = Tensor._make((a.abs()._array == norm._array).astype(a._array.dtype))
            nb = a.sign() * hit * inner / hit.sum(dim=dims, keepdim=True)
        else:
            nb = a * a.abs().pow(p - 2) * (inner / norm.pow(p - 1)).masked_fill(zero, 0.0)
        invnorm = (norm + 1e-7).reciprocal()
        factor = invnorm * maxnorm
        active = Tensor._make(norm._array > maxnorm)
        return where_op(active, factor * grad - (factor * invnorm) * nb, grad), None, None, None


# ---- in-place twins (x.copysign_(y)...): torch's node names, the result written into x -------------------

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
ClampMinInplace = _inplace(ClampMin, "ClampMinInplace", save_input_copy=True)
RenormInplace = _inplace(Renorm, "RenormInplace", save_input_copy=True)


def copysign_(input: Tensor, other) -> Tensor:
    if isinstance(other, (int, float)):
        return CopysignScalarInplace.apply(input, get_array_module(input._array).asarray(float(other)))
    return CopysignInplace.apply(input, other)


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return LdexpInplace.apply(input, other)


def clamp_min_(input: Tensor, min) -> Tensor:
    return ClampMinInplace.apply(input, min)


def renorm_(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    _check_renorm(input, p, maxnorm)
    return RenormInplace.apply(input, p, wrap_dim(dim, input.ndim), maxnorm)


# ---- the functional API ---------------------------------------------------------------------------------

def _binary(a, b):
    """Both as tensors (a number becomes a 0-d tensor in a's dtype)."""
    a, b = as_operand(a), as_operand(b)
    if not isinstance(b, Tensor):
        b = Tensor._make(get_array_module(a._array).asarray(b, dtype=a._array.dtype))
    return a, b


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return Logaddexp.apply(input, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    input, other = _binary(input, other)
    return Logaddexp2.apply(input, other)


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


def clamp_min(input: Tensor, min) -> Tensor:
    return ClampMin.apply(input, min)


def _check_renorm(input: Tensor, p: float, maxnorm: float) -> None:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input._array.dtype.kind not in "fV":
        raise RuntimeError(f"\"renorm\" not implemented for '{scalar_type_name(input._array.dtype)}'")


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """input with every slice along dim scaled down to p-norm maxnorm where it exceeds it."""
    if _amp.on and autocast_applies("renorm", input, p, dim, maxnorm):
        return autocast_run("renorm", renorm, input, p, dim, maxnorm)
    _check_renorm(input, p, maxnorm)
    return Renorm.apply(input, p, wrap_dim(dim, input.ndim), maxnorm)

