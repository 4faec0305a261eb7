"""Ops over several tensors: cat, stack, where, masked_fill."""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import get_array_module
from ._util import binary_dtype, grad_for, normalize_dims, shape_of
from ..tensor import Tensor


class Cat(Function):
    """out = the inputs joined along ``dim``. Saves nothing (only their sizes)."""

    node_name, array_forward = "CatBackward0", True

    @staticmethod
    def forward(ctx, dim, *arrays):
        if not arrays:
            raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
        nd = arrays[0].ndim
        (d,) = normalize_dims(dim, nd)
        for i, a in enumerate(arrays):
            if a.ndim != nd:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {a.ndim}")
            for k in range(nd):
                if k != d and a.shape[k] != arrays[0].shape[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                       f"{arrays[0].shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
        ctx.dim, ctx.sizes = d, [a.shape[d] for a in arrays]
        dt = arrays[0].dtype
        for a in arrays[1:]:
            dt = binary_dtype(arrays[0].astype(dt, copy=False), a)
        return get_array_module(arrays[0]).concatenate([a.astype(dt, copy=False) for a in arrays], axis=d)

    @staticmethod
    def backward(ctx, grad):
        out, start = [None], 0
        for i, n in enumerate(ctx.sizes):
            if ctx.needs_input_grad[i + 1]:
                out.append(grad.narrow(ctx.dim, start, n))
            else:
                out.append(None)
            start += n
        return tuple(out)


class Stack(Function):
    """out = the inputs stacked along a new ``dim``. Saves nothing."""

    node_name, array_forward = "StackBackward0", True

    @staticmethod
    def forward(ctx, dim, *arrays):
        if not arrays:
            raise RuntimeError("stack expects a non-empty TensorList")
        for i, a in enumerate(arrays):
            if a.shape != arrays[0].shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} at "
                                   f"entry 0 and {list(a.shape)} at entry {i}")
        ctx.dim = dim % (arrays[0].ndim + 1)
        return get_array_module(arrays[0]).stack(arrays, axis=ctx.dim)

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.select(ctx.dim, i) if need else None
                               for i, need in enumerate(ctx.needs_input_grad[1:]))


class Where(Function):
    """out = a where cond else b. Saves cond (a mask, not a differentiable input)."""

    node_name, array_forward = "WhereBackward0", True

    @staticmethod
    def forward(ctx, cond, a, b):
        if cond.dtype.kind != "b":
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{cond.dtype}")
        ctx.cond = cond
        ctx.a_meta = (shape_of(a), getattr(a, "dtype", None))
        ctx.b_meta = (shape_of(b), getattr(b, "dtype", None))
        out = get_array_module(cond).where(cond, a, b)
        dt = binary_dtype(a, b)
        return out.astype(dt, copy=False) if out.dtype != dt else out

    @staticmethod
    def backward(ctx, grad):
        cond = Tensor._make(ctx.cond)
        ga = grad_for(grad * cond, *ctx.a_meta) if ctx.needs_input_grad[1] else None
        gb = grad_for(grad * cond.logical_not(), *ctx.b_meta) if ctx.needs_input_grad[2] else None
        return None, ga, gb


class MaskedFill(Function):
    """out = a with ``value`` where mask is True. Saves the mask."""

    node_name, array_forward = "MaskedFillBackward0", True

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        out = a.copy()
        out[get_array_module(a).broadcast_to(mask, a.shape)] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * Tensor._make(~ctx.mask), None, None
