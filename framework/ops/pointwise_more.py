"""Fused pointwise and matrix ops, out of place: addcmul, addcdiv, lerp, addmm (with beta and alpha);
and the index/predicate ops nonzero, count_nonzero, isclose.

The in-place addcmul_/addcdiv_/lerp_ live in arithmetic_inplace.py; these are their out-of-place forms, with
the same node names and saves as torch.
"""
from __future__ import annotations

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..backend import errstate, get_array_module
from ..tensor import Tensor
from ._layout import contiguous_result
from ._util import (broadcast_shapes_checked, check_addcdiv_dtypes, check_device, grad_for, normalize_dims, operand,
                    scalar_type_name, sum_to)
from .linalg import Addmm
from .scalar_ops import MulScalar, maybe_multiply


class _Like:
    """A stand-in carrying a dtype with a dimensioned tensor's rank, to fold result_type over three operands."""

    ndim = 1

    def __init__(self, dtype):
        self.dtype = dtype


def _result_dtype(a, b, c):
    """torch's result dtype of a ternary pointwise op on arrays."""
    return dtypes.result_type(_Like(dtypes.result_type(a, b)), c)


class Addcmul(Function):
    """out = a + value * t1 * t2. Saves t1 (if t2 needs a gradient) and t2 (if t1 does), as torch."""

    node_name, array_forward = "AddcmulBackward0", True

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        needs = ctx.needs_input_grad
        ctx.value = value
        ctx.metas = [(x.shape, x.dtype) for x in (a, t1, t2)]
        ctx.save_for_backward(t1 if needs[2] else None, t2 if needs[1] else None)
        dt = _result_dtype(a, t1, t2)
        prod = t1.astype(dt, copy=False) * t2.astype(dt, copy=False)
        return (a + prod * value if value != 1 else a + prod).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        needs, value = ctx.needs_input_grad, ctx.value
        t1, t2 = ctx.saved_tensors
        ga = grad_for(grad, *ctx.metas[0]) if needs[0] else None
        # torch's grad * (tensor2 * value): the Scalar product (MulBackward1) first
        g1 = grad_for(grad * MulScalar.apply(t2, value), *ctx.metas[1]) if needs[1] else None
        g2 = grad_for(grad * MulScalar.apply(t1, value), *ctx.metas[2]) if needs[2] else None
        return ga, g1, g2, None


class Addcdiv(Function):
    """out = a + value * t1 / t2. Saves t1 (if t2 needs a gradient) and t2 always (even when only a needs a gradient:
    torch's node unpacks it in every backward, so changing it in place is refused there too)."""

    node_name, array_forward = "AddcdivBackward0", True

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        check_addcdiv_dtypes(t1, t2)
        needs = ctx.needs_input_grad
        ctx.value = value
        ctx.metas = [(x.shape, x.dtype) for x in (a, t1, t2)]
        ctx.save_for_backward(t1 if needs[2] else None, t2)
        dt = _result_dtype(a, t1, t2)
        with errstate(get_array_module(a), divide="ignore", invalid="ignore"):
            quot = t1.astype(dt, copy=False) / t2.astype(dt, copy=False)
        return (a + quot * value if value != 1 else a + quot).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        needs, value = ctx.needs_input_grad, ctx.value
        t1, t2 = ctx.saved_tensors
        ga = grad_for(grad, *ctx.metas[0]) if needs[0] else None
        g1 = grad_for(grad * (value / t2), *ctx.metas[1]) if needs[1] else None
        g2 = grad_for(-grad * (value * t1 / (t2 * t2)), *ctx.metas[2]) if needs[2] else None
        return ga, g1, g2, None


class Lerp(Function):
    """out = a + weight * (end - a) for a number weight, with torch's two formulas (exact at both ends).
    Saves nothing."""

    node_name, array_forward = "LerpBackward0", True

    @staticmethod
    def forward(ctx, a, end, weight):
        if a.dtype != end.dtype:
            raise RuntimeError(f"expected dtype {_c_name(a.dtype)} for `end` but got dtype {_c_name(end.dtype)}")
        broadcast_shapes_checked(a.shape, end.shape)
        ctx.weight, ctx.metas = weight, [(a.shape, a.dtype), (end.shape, end.dtype)]
        diff = end - a
        out = a + diff * weight if abs(weight) < 0.5 else end - diff * (1 - weight)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        needs, w = ctx.needs_input_grad, ctx.weight
        # torch's grad * (1 - weight), grad * weight: the Scalar product (MulBackward1 under create_graph)
        ga = grad_for(MulScalar.apply(grad, 1 - w), *ctx.metas[0]) if needs[0] else None
        ge = grad_for(MulScalar.apply(grad, w), *ctx.metas[1]) if needs[1] else None
        return ga, ge, None


class LerpTensor(Function):
    """out = a + w * (end - a) for a tensor weight w. Saves w, and a and end if w needs a gradient."""

    node_name, array_forward = "LerpBackward1", True

    @staticmethod
    def forward(ctx, a, end, w):
        if a.dtype != end.dtype:
            raise RuntimeError(f"expected dtype {_c_name(a.dtype)} for `end` but got dtype {_c_name(end.dtype)}")
        if w.ndim and a.dtype != w.dtype:  # a 0-dim weight of another dtype is taken as a scalar
            raise RuntimeError(f"expected dtype {_c_name(a.dtype)} for `weight` but got dtype {_c_name(w.dtype)}")
        broadcast_shapes_checked(a.shape, end.shape, w.shape)
        needs = ctx.needs_input_grad
        ctx.metas = [(x.shape, x.dtype) for x in (a, end, w)]
        # torch saves the weight whatever needs a gradient (an in-place change to it is caught even when only the
        # weight requires grad), a and end only for the weight's gradient
        ctx.save_for_backward(a if needs[2] else None, end if needs[2] else None, w)
        xp = get_array_module(a)
        diff = end - a
        out = xp.where(xp.abs(w) < 0.5, a + w * diff, end - diff * (1 - w))
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        a, end, w = ctx.saved_tensors
        ga = grad_for(grad * (1 - w), *ctx.metas[0]) if needs[0] else None
        ge = grad_for(grad * w, *ctx.metas[1]) if needs[1] else None
        gw = grad_for(grad * (end - a), *ctx.metas[2]) if needs[2] else None
        return ga, ge, gw


def _c_name(np_dtype) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int"}.get(str(np_dtype),
                                                                                             str(np_dtype))


class AddmmScaled(Addmm):
    """out = beta * bias + alpha * (m1 @ m2). Saves m1 if m2 needs grad, m2 if m1 needs grad."""

    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, m1, m2, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        prod = Addmm.forward(ctx, bias * 0, m1, m2)  # bias * 0 keeps the shape check and the broadcast
        out = prod * alpha if alpha != 1 else prod
        return (out + bias * beta if beta else out).astype(prod.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx.saved_tensors
        beta, alpha = ctx.beta, ctx.alpha
        # torch's maybe_multiply: the scaled gradients are MulBackward1 nodes under create_graph
        gb = sum_to(maybe_multiply(grad, beta), ctx.bias_shape) if ctx.needs_input_grad[0] else None
        g1 = maybe_multiply(grad.mm(m2.t()), alpha) if ctx.needs_input_grad[1] else None
        g2 = maybe_multiply(m1.t().mm(grad), alpha) if ctx.needs_input_grad[2] else None
        return gb, g1, g2, None, None

    backward_arrays = None


# ---- functional API ---------------------------------------------------------------------------------

def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    if _amp.on and autocast_applies("addcmul", input, tensor1, tensor2):
        return autocast_run("addcmul", addcmul, input, tensor1, tensor2, value=value)
    return Addcmul.apply(input, operand(tensor1, "addcmul", 2, "tensor1", numbers=False),
                         operand(tensor2, "addcmul", 3, "tensor2", numbers=False), value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    if _amp.on and autocast_applies("addcdiv", input, tensor1, tensor2):
        return autocast_run("addcdiv", addcdiv, input, tensor1, tensor2, value=value)
    return Addcdiv.apply(input, operand(tensor1, "addcdiv", 2, "tensor1", numbers=False),
                         operand(tensor2, "addcdiv", 3, "tensor2", numbers=False), value)


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    end = operand(end, "lerp", 2, "end", numbers=False)
    check_device(input, end)
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return Lerp.apply(input, end, float(weight))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    # torch checks dtypes before any shape: self against mat2 first, then mat1 against mat2
    if _amp.on and autocast_applies("addmm", input, mat1, mat2):
        return autocast_run("addmm", addmm, input, mat1, mat2, beta=beta, alpha=alpha)
    for name, a in (("self", input), ("mat1", mat1)):
        if a.dtype != mat2.dtype:
            got = [scalar_type_name(x._array.dtype) for x in (a, mat2)]
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {got[0]} and {got[1]}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    target = (mat1.shape[0], mat2.shape[1])
    if mat1.shape[1] == mat2.shape[0] and input.ndim <= 2:  # torch expands input to the product's shape first
        lead = 2 - input.ndim
        for i, s in enumerate(input.shape):
            if s != 1 and s != target[i + lead]:
                raise RuntimeError(f"The expanded size of the tensor ({target[i + lead]}) must match the existing "
                                   f"size ({s}) at non-singleton dimension {i + lead}.  Target sizes: "
                                   f"{list(target)}.  Tensor sizes: {list(input.shape)}")
    if beta == 1 and alpha == 1:
        return Addmm.apply(input, mat1, mat2)
    return AddmmScaled.apply(input, mat1, mat2, beta, alpha)


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim (as_tuple)."""
    xp = get_array_module(input._array)
    idx = xp.nonzero(input._array) if input.ndim else xp.nonzero(input._array.reshape(1))
    with no_grad():
        if as_tuple:
            return tuple(Tensor._make(i.astype(xp.int64, copy=False)) for i in idx)
        if not input.ndim:
            return Tensor._make(xp.zeros((idx[0].shape[0], 0), dtype=xp.int64))
        return Tensor._make(xp.stack(idx, axis=1).astype(xp.int64, copy=False))


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    xp = get_array_module(input._array)
    axes = None if dim is None else normalize_dims(dim, input.ndim)
    counts = xp.count_nonzero(input._array, axis=axes)
    return Tensor._make(contiguous_result(xp.asarray(counts).astype(xp.int64, copy=False)))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (a bool tensor; equal infinities are close)."""
    other = operand(other, "isclose", 2, numbers=False)
    check_device(input, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{scalar_type_name(input._array.dtype)} did not match "
                           f"{scalar_type_name(other._array.dtype)}")
    xp = get_array_module(input._array)
    return Tensor._make(xp.asarray(xp.isclose(input._array, other._array, rtol=rtol, atol=atol,
                                              equal_nan=equal_nan)))
