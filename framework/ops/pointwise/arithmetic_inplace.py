"""In-place twins of the arithmetic ops (add_, sub_, mul_, div_, neg_, pow_): torch's node names and saves.

Each computes into arg 0's array; where backward needs the *old* value of arg 0 it keeps a copy, as
torch's ``original_self``."""
from __future__ import annotations

from ...autograd.function import Function, OriginalSelf
from ...backend import errstate, get_array_module
from .. import scalar_ops as _scalar
from .._util import check_addcdiv_dtypes, check_inplace_cast, grad_for, inplace_shape
from .arithmetic import Add, Div, Mul, Neg, PowScalar, Sub


def _write(a, value):
    """Store ``value`` into ``a`` in place (the in-place twins); broadcasting must not grow ``a``, and the
    result's dtype must fit ``a``'s (``int_tensor.add_(2.5)`` is an error in torch)."""
    check_inplace_cast(value.dtype, a.dtype)
    if value.shape != a.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape "
                           f"{list(value.shape)}")
    a[...] = value
    return a


class AddInplace(Add):
    node_name, inplace = "AddBackward0", True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        return _write(a, Add.forward(ctx, a, b, alpha))


class SubInplace(Sub):
    node_name, inplace = "SubBackward0", True

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        return _write(a, Sub.forward(ctx, a, b, alpha))


class MulInplace(Mul):
    node_name, inplace = "MulBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        out = Mul.forward(ctx, a, b)
        if ctx.needs_input_grad[1]:  # backward for b needs the old a: keep a copy (torch's original_self)
            ctx.save_for_backward(ctx._to_save[0], OriginalSelf(a.copy()))  # (other, self): Mul's order
        return _write(a, out)


class DivInplace(Div):
    node_name, inplace = "DivBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        out = Div.forward(ctx, a, b)
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(ctx._to_save[0], OriginalSelf(a.copy()))  # (other, self): Div's order
        return _write(a, out)


class NegInplace(Neg):
    node_name, inplace = "NegBackward0", True

    @staticmethod
    def forward(ctx, a):
        return _write(a, -a)


class PowScalarInplace(PowScalar):
    node_name, inplace = "PowBackward0", True

    @staticmethod
    def forward(ctx, a, p):
        out = PowScalar.forward(ctx, a, p)
        ctx.save_for_backward(OriginalSelf(a.copy()))  # after forward's own save: backward needs the old a
        return _write(a, out)


class AddcmulInplace(Function):
    """a += value * t1 * t2 in place. Saves t1 (if t2 needs a gradient) and t2 (if t1 does), as torch."""

    node_name, array_forward, inplace = "AddcmulBackward0", True, True

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        needs = ctx.needs_input_grad
        ctx.value, ctx.t1_meta, ctx.t2_meta = value, (t1.shape, t1.dtype), (t2.shape, t2.dtype)
        ctx.save_for_backward(t1 if needs[2] else None, t2 if needs[1] else None)
        inplace_shape(a.shape, t1.shape, t2.shape)
        prod = t1 * t2
        return _write(a, (a + prod * value if value != 1 else a + prod).astype(a.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        needs, value = ctx.needs_input_grad, ctx.value
        t1, t2 = ctx.saved_tensors  # unpacked whichever gradients are wanted, as torch's node (a freed one raises)
        g1 = grad_for(grad * t2 * value if value != 1 else grad * t2, *ctx.t1_meta) if needs[1] else None
        g2 = grad_for(grad * t1 * value if value != 1 else grad * t1, *ctx.t2_meta) if needs[2] else None
        return (grad if needs[0] else None), g1, g2, None


class AddcdivInplace(Function):
    """a += value * t1 / t2 in place. Saves t1 (if t2 needs a gradient) and t2 always, as torch (see Addcdiv)."""

    node_name, array_forward, inplace = "AddcdivBackward0", True, True

    @staticmethod
    def forward(ctx, a, t1, t2, value=1):
        needs = ctx.needs_input_grad
        check_addcdiv_dtypes(t1, t2)
        ctx.value, ctx.t1_meta, ctx.t2_meta = value, (t1.shape, t1.dtype), (t2.shape, t2.dtype)
        ctx.save_for_backward(t1 if needs[2] else None, t2)  # t2 always, as Addcdiv
        inplace_shape(a.shape, t1.shape, t2.shape)
        with errstate(get_array_module(a), divide="ignore", invalid="ignore"):
            quot = t1 / t2
        return _write(a, (a + quot * value if value != 1 else a + quot).astype(a.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        needs, value = ctx.needs_input_grad, ctx.value
        t1, t2 = ctx.saved_tensors
        g1 = grad_for(grad * (value / t2), *ctx.t1_meta) if needs[1] else None
        g2 = grad_for(-grad * (value * t1 / (t2 * t2)), *ctx.t2_meta) if needs[2] else None
        return (grad if needs[0] else None), g1, g2, None


class LerpInplace(Function):
    """a += weight * (end - a) in place, with torch's two formulas (exact at both ends). Saves nothing."""

    node_name, array_forward, inplace = "LerpBackward0", True, True

    @staticmethod
    def forward(ctx, a, end, weight):
        ctx.weight, ctx.end_meta = weight, (end.shape, end.dtype)
        inplace_shape(a.shape, end.shape)
        diff = end - a
        value = a + diff * weight if weight < 0.5 else end - diff * (1 - weight)
        return _write(a, value.astype(a.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        needs, w = ctx.needs_input_grad, ctx.weight
        # torch's grad * (1 - weight), grad * weight: the Scalar product (MulBackward1 under create_graph)
        ga = _scalar.MulScalar.apply(grad, 1 - w) if needs[0] else None
        ge = grad_for(_scalar.MulScalar.apply(grad, w), *ctx.end_meta) if needs[1] else None
        return ga, ge, None
