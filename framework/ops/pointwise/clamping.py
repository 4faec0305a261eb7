"""Clamping: clamp/clip with number or tensor bounds, clamp_min, clamp_max and their in-place forms."""
from __future__ import annotations

from ...autograd.function import Function, OriginalSelf
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import laid_out_by_operands
from .._util import binary_dtype, broadcast_error, check_inplace_cast, grad_for, inplace_shape, promote
from .conditional import where_op
from .unary_inplace import _inplace


def _zero(grad: Tensor) -> Tensor:
    """torch's at::scalar_tensor(0., grad.options()): a 0-d constant, no edge."""
    return Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))


def _bounded(xp, a, lo, hi):
    """max(a, lo) then min(.., hi) in the promoted dtype, broadcast (the bound first, as unary.Clamp: -0.0 kept)."""
    dt = a.dtype
    for b in (lo, hi):
        if b is not None:
            dt = binary_dtype(a.astype(dt, copy=False), b)
    out = a.astype(dt, copy=False)
    try:
        if lo is not None:
            out = xp.maximum(promote(lo, out, dt)[0], out)
        if hi is not None:
            out = xp.minimum(promote(hi, out, dt)[0], out)
    except ValueError:
        raise broadcast_error(a.shape, (lo if lo is not None else hi).shape) from None
    return out.astype(dt, copy=False)


class ClampTensor(Function):
    """out = min(max(a, lo), hi) with tensor bounds (either may be None), broadcast. Saves hi, lo and a: torch
    ClampBackward0's order (max, min, self), which it unpacks in (the in-place error names the first changed one)."""

    node_name, array_forward = "ClampBackward0", True
    self_slot = 2  # where a is saved (its in-place twin keeps the old a there)

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, lo, hi):
        ctx.metas = [None if x is None else (x.shape, x.dtype) for x in (a, lo, hi)]
        ctx.save_for_backward(hi, lo, a)
        return _bounded(get_array_module(a), a, lo, hi)

    @staticmethod
    def backward(ctx, grad):
        hi, lo, a = ctx.saved_tensors
        needs, zero = ctx.needs_input_grad, _zero(grad)
        ga = glo = ghi = None
        if needs[0]:  # torch's clamp_backward
            if lo is not None and hi is not None:
                pred = (a >= lo).logical_and(a <= hi)
            else:
                pred = a >= lo if lo is not None else a <= hi
            ga = grad_for(where_op(pred, grad, zero), *ctx.metas[0])
        if lo is not None and hi is not None:  # torch's clamp_backward_min_max
            if needs[1]:
                glo = grad_for(where_op((a < lo).logical_and(lo < hi), grad, zero), *ctx.metas[1])
            if needs[2]:
                ghi = grad_for(where_op((a > hi).logical_or(hi < lo), grad, zero), *ctx.metas[2])
        elif lo is not None and needs[1]:
            glo = grad_for(where_op(a < lo, grad, zero), *ctx.metas[1])
        elif hi is not None and needs[2]:
            ghi = grad_for(where_op(a > hi, grad, zero), *ctx.metas[2])
        return ga, glo, ghi


class ClampMin(Function):
    """out = max(a, lo) for a number lo. Saves a."""

    node_name, array_forward = "ClampMinBackward0", True
    upper, self_slot = False, 0

    @classmethod
    def forward(cls, ctx, a, bound):
        ctx.save_for_backward(a)
        ctx.bound = bound
        return Clamp.forward(ctx, a, None, bound) if cls.upper else Clamp.forward(ctx, a, bound, None)

    @classmethod
    def backward(cls, ctx, grad):
        (a,) = ctx.saved_tensors  # torch: where(self >= min (self <= max), grad, at::scalar_tensor(0., ...))
        keep = a <= ctx.bound if cls.upper else a >= ctx.bound
        return where_op(keep, grad, _zero(grad)), None


class ClampMax(ClampMin):
    """out = min(a, hi) for a number hi. Saves a."""

    node_name, upper = "ClampMaxBackward0", True


class ClampMinTensor(Function):
    """out = max(a, lo) for a tensor lo, broadcast. Saves lo and a: torch ClampMinBackward1's order (min, self),
    which it unpacks in."""

    node_name, array_forward = "ClampMinBackward1", True
    upper, self_slot = False, 1

    @classmethod
    @laid_out_by_operands
    def forward(cls, ctx, a, bound):
        ctx.metas = [(a.shape, a.dtype), (bound.shape, bound.dtype)]
        ctx.save_for_backward(bound, a)
        xp = get_array_module(a)
        return _bounded(xp, a, bound, None) if not cls.upper else _bounded(xp, a, None, bound)

    @classmethod
    def backward(cls, ctx, grad):
        bound, a = ctx.saved_tensors
        zero, needs = _zero(grad), ctx.needs_input_grad
        keep, moved = (a <= bound, a > bound) if cls.upper else (a >= bound, a < bound)
        ga = grad_for(where_op(keep, grad, zero), *ctx.metas[0]) if needs[0] else None
        gb = grad_for(where_op(moved, grad, zero), *ctx.metas[1]) if needs[1] else None
        return ga, gb


class ClampMaxTensor(ClampMinTensor):
    """out = min(a, hi) for a tensor hi, broadcast. Saves hi and a (torch's order: max, self)."""

    node_name, upper = "ClampMaxBackward1", True


def _inplace_of(base, name: str, c_names: bool):
    """base's in-place twin: the result written into a (it must keep a's shape and dtype), the old a kept as
    torch's original_self where base saved a."""

    def forward(ctx, a, *bounds):
        out = base.forward(ctx, a, *bounds)
        if out.shape != a.shape:
            inplace_shape(a.shape, out.shape)
        if out.dtype != a.dtype:
            check_inplace_cast(out.dtype, a.dtype, c_names=c_names)  # torch: 'long int' for number bounds
        saved = list(ctx._to_save)
        saved[base.self_slot] = OriginalSelf(a.copy())
        ctx.save_for_backward(*saved)
        a[...] = out
        return a

    return type(name, (base,), {"node_name": base.node_name, "inplace": True, "forward": staticmethod(forward),
                                "__doc__": f"In-place {base.__doc__}"})


ClampTensorInplace = _inplace_of(ClampTensor, "ClampTensorInplace", c_names=False)


ClampMinInplace = _inplace_of(ClampMin, "ClampMinInplace", c_names=True)


ClampMaxInplace = _inplace_of(ClampMax, "ClampMaxInplace", c_names=True)


ClampMinTensorInplace = _inplace_of(ClampMinTensor, "ClampMinTensorInplace", c_names=False)


ClampMaxTensorInplace = _inplace_of(ClampMaxTensor, "ClampMaxTensorInplace", c_names=False)


def _kind(fn: str, lo, hi) -> bool:
    """True for tensor bounds, False for numbers (or none); a mix is torch's argument-parser TypeError."""
    kinds = {isinstance(b, Tensor) for b in (lo, hi) if b is not None}
    if len(kinds) == 2:
        got = ", ".join(["Tensor"] + [f"{k}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}"
                                      for k, v in (("max", hi), ("min", lo)) if v is not None])
        raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f" * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                        f" * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    return kinds == {True}


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """min(max(input, min), max); number bounds (ClampBackward1) or tensor bounds (ClampBackward0, with edges)."""
    if _kind("clamp", min, max):
        return ClampTensor.apply(input, min, max)
    return Clamp.apply(input, min, max)


def clamp_(input: Tensor, min=None, max=None) -> Tensor:
    if _kind("clamp_", min, max):
        return ClampTensorInplace.apply(input, min, max)
    return ClampInplace.apply(input, min, max)


def clamp_min(input: Tensor, min) -> Tensor:
    return ClampMinTensor.apply(input, min) if isinstance(min, Tensor) else ClampMin.apply(input, min)


def clamp_max(input: Tensor, max) -> Tensor:
    return ClampMaxTensor.apply(input, max) if isinstance(max, Tensor) else ClampMax.apply(input, max)


def clamp_min_(input: Tensor, min) -> Tensor:
    return ClampMinTensorInplace.apply(input, min) if isinstance(min, Tensor) else ClampMinInplace.apply(input, min)


clip = clamp


clip_ = clamp_


def clamp_max_(input: Tensor, max) -> Tensor:
    return ClampMaxTensorInplace.apply(input, max) if isinstance(max, Tensor) else ClampMaxInplace.apply(input, max)


class Clamp(Function):
    """out = min(max(a, lo), hi). Saves a."""

    node_name, array_forward = "ClampBackward1", True

    @staticmethod
    @laid_out_by_operands
    def forward(ctx, a, lo=None, hi=None):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        dt = a.dtype  # torch promotes: int_tensor.clamp(0.5) is float32
        for bound in (lo, hi):
            if bound is not None:
                dt = binary_dtype(a.astype(dt, copy=False), bound)
        xp, out = get_array_module(a), a.astype(dt, copy=False)
        # the bound first: numpy's maximum/minimum return the second operand on a tie, so clamp(-0.0, min=0) keeps
        # -0.0 as torch's max(a, lo) does (np.clip gives +0.0); a NaN stays NaN
        if lo is not None:
            out = xp.maximum(lo, out)
        if hi is not None:
            out = xp.minimum(hi, out)
        return out.astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = a >= ctx.lo
        if ctx.hi is not None:
            upper = a <= ctx.hi
            mask = upper if mask is None else mask & upper
        # torch's clamp_backward: where(mask, grad, 0), a WhereBackward0 node under create_graph
        zero = Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
        return where_op(mask, grad, zero), None, None


ClampInplace = _inplace(Clamp, "ClampInplace", save_input_copy=True, c_names=True)
