"""Conditional selection: where and masked_fill."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import iterator_layout
from .._util import (as_operand, binary_dtype, broadcast_error, c_type_name, grad_for, inplace_shape, promote,
                     scalar_type_name, shape_of)


class Where(Function):
    """out = a where cond else b. Saves cond (a mask, not a differentiable input: no edge).

    torch's WhereBackward0 has edges to a and b only, a Python number's a (None, 0).
    """

    node_name, array_forward, scalar_edges, index_args = "WhereBackward0", True, True, (0,)

    @staticmethod
    def forward(ctx, cond, a, b):
        if cond.dtype.kind != "b":
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{scalar_type_name(cond.dtype)}")
        ctx.save_for_backward(cond)  # as torch's: changed in place before backward, or freed, it raises there
        ctx.a_meta = (shape_of(a), getattr(a, "dtype", None))
        ctx.b_meta = (shape_of(b), getattr(b, "dtype", None))
        a, b = promote(a, b)
        try:
            out = get_array_module(cond).where(cond, a, b)
        except ValueError:
            raise _where_broadcast_error(cond, a, b) from None
        dt = binary_dtype(a, b)  # a Python-number pair: numpy picks a different dtype
        if out.dtype != dt:
            out = out.astype(dt, copy=False)
        operands = [x for x in (cond, a, b) if hasattr(x, "strides")]
        if out.ndim > 1 and not all(x.flags.c_contiguous for x in operands):
            # torch's TensorIterator lays the result out by its inputs in order: the condition, a, b (a broadcast
            # dim orders nothing); NumPy's where would pick its own order
            out = iterator_layout(out, operands)
        return out

    @staticmethod
    def backward(ctx, grad):
        (cond,) = ctx.saved_tensors
        # torch's where(cond, grad, 0) and where(cond, 0, grad): WhereBackward0 nodes under create_graph
        zero = Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
        ga = grad_for(where_op(cond, grad, zero), *ctx.a_meta) if ctx.needs_input_grad[1] else None
        gb = grad_for(where_op(cond, zero, grad), *ctx.b_meta) if ctx.needs_input_grad[2] else None
        return None, ga, gb


def where_op(cond, a, b):
    """torch's where(cond, a, b) on a bool tensor (or array) cond: the condition gets no edge, as in torch."""
    return Where.apply(cond, a, b)


def _where_broadcast_error(cond, a, b):
    shapes = [shape_of(x) for x in (cond, a, b)]
    for i in range(3):
        for j in range(i + 1, 3):
            err = broadcast_error(shapes[i], shapes[j])
            if not str(err).startswith("shapes"):
                return err
    return broadcast_error(shapes[0], shapes[1])


class MaskedFill(Function):
    """out = a with ``value`` where mask is True. Saves the mask."""

    node_name, array_forward, index_args = "MaskedFillBackward0", True, (1,)

    @staticmethod
    def forward(ctx, a, mask, value):
        _check_mask(a, mask, in_place=False)
        ctx.save_for_backward(mask)  # as torch's: changed in place before backward, or freed, it raises there
        out = a.copy()
        out[get_array_module(a).broadcast_to(mask, a.shape)] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_arrays
        return MaskedFill.apply(grad, mask, 0), None, None  # torch's grad.masked_fill(mask, 0)


class MaskedFillInplace(MaskedFill):
    """a[mask] = value in place (torch's masked_fill_, also MaskedFillBackward0). Saves the mask."""

    node_name, inplace = "MaskedFillBackward0", True
    checks_internal_overlap = False  # torch only warns (deprecated) for an expand()ed target

    @staticmethod
    def forward(ctx, a, mask, value):
        _check_mask(a, mask, in_place=True)
        ctx.save_for_backward(mask)
        a[get_array_module(a).broadcast_to(mask, a.shape)] = value
        return a


class MaskedFillTensor(Function):
    """out = a with the 0-d tensor ``value`` where mask is True (torch's MaskedFillBackward1). Saves the mask."""

    node_name, array_forward, index_args = "MaskedFillBackward1", True, (1,)

    @staticmethod
    def forward(ctx, a, mask, value):
        _check_mask(a, mask, in_place=False)
        ctx.save_for_backward(mask)  # as torch's: changed in place before backward, or freed, it raises there
        out = a.copy()
        out[get_array_module(a).broadcast_to(mask, a.shape)] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask_array,) = ctx.saved_arrays  # broadcasts against grad, which has a's shape
        mask = Tensor._make(mask_array)
        ga = grad * Tensor._make(~mask_array) if ctx.needs_input_grad[0] else None
        gv = (grad * mask).sum() if ctx.needs_input_grad[2] else None
        return ga, None, gv


class MaskedFillTensorInplace(MaskedFillTensor):
    """a[mask] = value (a 0-d tensor) in place: torch's masked_fill_ with a tensor value."""

    node_name, inplace = "MaskedFillBackward1", True
    checks_internal_overlap = False  # torch only warns (deprecated) for an expand()ed target

    @staticmethod
    def forward(ctx, a, mask, value):
        _check_mask(a, mask, in_place=True)
        ctx.save_for_backward(mask)
        a[get_array_module(a).broadcast_to(mask, a.shape)] = value
        return a


def _check_mask(a, mask, in_place: bool) -> None:
    """torch's masked_fill checks, after the in-place ones: a bool mask, and (in place) one that broadcasts to a."""
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {c_type_name(mask.dtype)}")
    if in_place:
        inplace_shape(a.shape, mask.shape)


def _check_fill_value(value) -> None:
    if value.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")


def where(cond, a=None, b=None):
    if a is None and b is None:
        return tuple(Tensor._make(i) for i in get_array_module(cond._array).nonzero(cond._array))
    return where_op(cond, as_operand(a), as_operand(b))


def masked_fill(a, mask, value):
    if isinstance(value, Tensor):  # torch's masked_fill.Tensor: an edge to the value
        _check_fill_value(value)
        return MaskedFillTensor.apply(a, mask, value)
    return MaskedFill.apply(a, mask, value.item() if hasattr(value, "item") else value)


def masked_fill_(a, mask, value):
    if isinstance(value, Tensor):
        _check_fill_value(value)
        return MaskedFillTensorInplace.apply(a, mask, value)
    return MaskedFillInplace.apply(a, mask, value)
