"""Tensor-by-number product and quotient with no edge for the number (ATen's mul/div(Tensor, Scalar)).

Python's ``t * 2`` records MulBackward0 with a (None, 0) edge for the wrapped number, as torch's Python
binding does; ATen's own composite ops (pow's and sqrt's backward, cross_entropy's label smoothing) call
the Scalar overloads, whose nodes are MulBackward1/DivBackward1 with one edge. These reproduce those."""
from __future__ import annotations

from ..autograd.function import Function
from ._twin import inplace_twin


class MulScalar(Function):
    """out = a * c for a Python number c. Saves nothing."""

    node_name, array_forward = "MulBackward1", True

    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c
        return (a * c).astype(a.dtype, copy=False) if a.dtype.kind in "fV" else a * c

    @staticmethod
    def backward(ctx, grad):
        return MulScalar.apply(grad, ctx.c), None  # torch's grad * other, the Scalar overload again

    @staticmethod
    def backward_arrays(ctx, g):
        return g * ctx.c, None


def maybe_multiply(t, c):
    """ATen's maybe_multiply: t itself when c is 1, else t * c as the Scalar overload (MulBackward1)."""
    return t if c == 1 else MulScalar.apply(t, c)


class DivScalar(Function):
    """out = a / c for a Python number c. Saves nothing."""

    node_name, array_forward = "DivBackward1", True

    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c
        return (a / c).astype(a.dtype, copy=False) if a.dtype.kind in "fV" else a / c

    @staticmethod
    def backward(ctx, grad):
        return DivScalar.apply(grad, ctx.c), None  # torch's grad / other, the Scalar overload again

    @staticmethod
    def backward_arrays(ctx, g):
        return g / ctx.c, None


# C++'s in-place ``t /= n`` on a Tensor with a Scalar (DivBackward1, version + 1): the losses' double backwards
DivScalarInplace = inplace_twin(DivScalar)


class AddScalar(Function):
    """out = a + c for a Python number c (ATen's add(Tensor, Scalar): AddBackward1). Saves nothing."""

    node_name, array_forward = "AddBackward1", True

    @staticmethod
    def forward(ctx, a, c):
        return (a + c).astype(a.dtype, copy=False) if a.dtype.kind in "fV" else a + c

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def backward_arrays(ctx, g):
        return g, None


class SubScalar(Function):
    """out = a - c for a Python number c (ATen's sub(Tensor, Scalar): SubBackward1). Saves nothing."""

    node_name, array_forward = "SubBackward1", True

    @staticmethod
    def forward(ctx, a, c):
        return (a - c).astype(a.dtype, copy=False) if a.dtype.kind in "fV" else a - c

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def backward_arrays(ctx, g):
        return g, None
