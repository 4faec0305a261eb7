"""Ops of three tensors: addcmul, addcdiv, lerp."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._util import broadcast_shapes_checked, c_type_name, check_addcdiv_dtypes, check_device, grad_for, operand
from ..scalar_ops import MulScalar


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
    @laid_out_by_operands
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
    @laid_out_by_operands
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
    @laid_out_by_operands
    def forward(ctx, a, end, weight):
        if a.dtype != end.dtype:
            raise RuntimeError(f"expected dtype {c_type_name(a.dtype)} for `end` but got dtype {c_type_name(end.dtype)}")
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
    """out = a + w * (end - a) for a tensor weight w. Saves w, and end and a if w needs a gradient, in torch
    LerpBackward1's order (end, self, weight), which it unpacks in (the in-place error names the first changed)."""

    node_name, array_forward = "LerpBackward1", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, end, w):
        if a.dtype != end.dtype:
            raise RuntimeError(f"expected dtype {c_type_name(a.dtype)} for `end` but got dtype {c_type_name(end.dtype)}")
        if w.ndim and a.dtype != w.dtype:  # a 0-dim weight of another dtype is taken as a scalar
            raise RuntimeError(f"expected dtype {c_type_name(a.dtype)} for `weight` but got dtype {c_type_name(w.dtype)}")
        broadcast_shapes_checked(a.shape, end.shape, w.shape)
        needs = ctx.needs_input_grad
        ctx.metas = [(x.shape, x.dtype) for x in (a, end, w)]
        # torch saves the weight whatever needs a gradient (an in-place change to it is caught even when only the
        # weight requires grad), a and end only for the weight's gradient
        ctx.save_for_backward(end if needs[2] else None, a if needs[2] else None, w)
        xp = get_array_module(a)
        diff = end - a
        out = xp.where(xp.abs(w) < 0.5, a + w * diff, end - diff * (1 - w))
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        end, a, w = ctx.saved_tensors
        ga = grad_for(grad * (1 - w), *ctx.metas[0]) if needs[0] else None
        ge = grad_for(grad * w, *ctx.metas[1]) if needs[1] else None
        gw = grad_for(grad * (end - a), *ctx.metas[2]) if needs[2] else None
        return ga, ge, gw


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
