"""Ops over several tensors: cat, stack, where, masked_fill, maximum, minimum, atan2, hypot (op classes, then the
functional API)."""
from __future__ import annotations

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function, OriginalSelf
from ..backend import get_array_module
from ._util import (as_operand, binary_dtype, broadcast_error, c_type_name, check_inplace_cast, grad_for,
                    inplace_shape, normalize_dims, operand, promote, scalar_type_name, shape_of, wrap_dim)
from ..tensor import Tensor
from ._layout import channels_last_copy, channels_last_like, contiguous_result
from .scalar_ops import DivScalar


class Cat(Function):
    """out = the inputs joined along ``dim``. Saves nothing (only their sizes)."""

    node_name, array_forward = "CatBackward0", True

    @staticmethod
    def forward(ctx, dim, *arrays):
        if not arrays:
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
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
        out = get_array_module(arrays[0]).concatenate([a.astype(dt, copy=False) for a in arrays], axis=d)
        return _cat_layout(out, [(a.shape, _elements(a)) for a in arrays] if nd in (4, 5) else ())

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


def _cat_layout(out, layouts):
    """torch's cat/stack write a C-contiguous result, channels-last only when every input is laid out so (4-D
    and 5-D); NumPy's keep their inputs' order, so a stack of transposed matrices came out Fortran-ordered and a
    cat of expanded tensors strided, and a later .view() failed where torch's works.  layouts: (shape, strides
    in elements) of each input, as torch sees it (stack's inputs unsqueezed at its dim)."""
    if out.ndim in (4, 5) and all(channels_last_like(shape, strides) for shape, strides in layouts):
        return out if channels_last_like(out.shape, _elements(out)) else channels_last_copy(out)
    return contiguous_result(out)


def _elements(a) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _unsqueezed(a, dim: int) -> tuple:
    """(shape, strides in elements) of torch's a.unsqueeze(dim): the new dim's stride is size * stride of the dim
    it goes before (1 at the end)."""
    shape, strides = list(a.shape), list(_elements(a))
    strides.insert(dim, shape[dim] * strides[dim] if dim < a.ndim else 1)
    shape.insert(dim, 1)
    return tuple(shape), tuple(strides)


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
        ctx.dim = wrap_dim(dim, arrays[0].ndim + 1)
        dt = arrays[0].dtype
        for a in arrays[1:]:  # torch's promotion (numpy's would make int64 with float32 float64)
            dt = dtypes.promote_types(dt, a.dtype)
        out = get_array_module(arrays[0]).stack([a.astype(dt, copy=False) for a in arrays], axis=ctx.dim)
        return _cat_layout(out, [_unsqueezed(a, ctx.dim) for a in arrays] if out.ndim in (4, 5) else ())

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.select(ctx.dim, i) if need else None
                               for i, need in enumerate(ctx.needs_input_grad[1:]))


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
        return out.astype(dt, copy=False) if out.dtype != dt else out

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


class Maximum(Function):
    """out = elementwise max(a, b); ties split the gradient in half, as torch. Saves a and b."""

    node_name, array_forward, _pick = "MaximumBackward0", True, "maximum"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        try:
            return getattr(get_array_module(a), ctx._forward_cls._pick)(*promote(a, b))
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
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


class Atan2(Function):
    """out = atan2(a, b) elementwise: the angle of the point (b, a). Saves a and b."""

    node_name, array_forward = "Atan2Backward0", True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        a, b = promote(a, b)
        if a.dtype.kind not in "fV":  # integers and bools give the default float dtype, as torch
            a, b = a.astype(np.float32), b.astype(np.float32)
        try:
            return get_array_module(a).arctan2(a, b)
        except ValueError:  # NumPy's broadcast failure; torch's text
            raise broadcast_error(a.shape, b.shape) from None

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # torch's atan2_backward: 1 / (a^2 + b^2), 0 where that is 1 / 0 (a masked_fill node), so the gradient at
        # the origin is 0 (and not 0 * inf = NaN)
        denom = a * a + b * b
        recip = denom.reciprocal().masked_fill(denom == 0, 0)
        ga = grad_for(grad * b * recip, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = grad_for(grad * -a * recip, *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb


class Hypot(Function):
    """out = sqrt(a**2 + b**2) elementwise, without overflow (C's hypot). Saves a (if it needs grad), b (likewise)
    and out."""

    node_name, array_forward = "HypotBackward0", True

    @staticmethod
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
        ctx.save_for_backward(a if need_a else None, b if need_b else None, out)  # wanted
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors  # torch's grad * self / result and grad * other / result
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
        ctx.save_for_backward(OriginalSelf(a.copy()) if need_a else None, b if need_b else None, a)
        a[...] = out
        return a


# ---- functional API ---------------------------------------------------------------------------------

def cat(tensors, dim: int = 0):
    if _amp.on and autocast_applies("cat", tensors, dim):
        return autocast_run("cat", cat, tensors, dim)
    tensors = [as_operand(x) for x in tensors]
    return Cat.apply(dim, *tensors)


concat = concatenate = cat


def stack(tensors, dim: int = 0):
    if _amp.on and autocast_applies("stack", tensors, dim):
        return autocast_run("stack", stack, tensors, dim)
    tensors = [as_operand(x) for x in tensors]
    return Stack.apply(dim, *tensors)


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


def atan2(input, other):
    if _amp.on and autocast_applies("atan2", input, other):
        return autocast_run("atan2", atan2, input, other)
    return Atan2.apply(operand(input, "atan2", 1, "input", False), operand(other, "atan2", 2, numbers=False))


arctan2 = atan2


def maximum(a, b):
    return Maximum.apply(operand(a, "maximum", 1, "input", False), operand(b, "maximum", 2, numbers=False))


def minimum(a, b):
    return Minimum.apply(operand(a, "minimum", 1, "input", False), operand(b, "minimum", 2, numbers=False))


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input**2 + other**2) elementwise; both must be tensors, as torch's."""
    return Hypot.apply(operand(input, "hypot", 1, "input", numbers=False), operand(other, "hypot", 2, numbers=False))


def hypot_(input: Tensor, other: Tensor) -> Tensor:
    return HypotInplace.apply(input, operand(other, "hypot_", 1, numbers=False))
