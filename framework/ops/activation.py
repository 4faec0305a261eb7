"""softmax and log_softmax along a dim (both save their output, as torch's): op classes, then the functional API."""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import get_array_module
from .backward_ops import LogSoftmaxBackwardData, SoftmaxBackwardData


class Softmax(Function):
    """out = exp(a - max) / sum(exp(a - max)) along ``dim``. Saves out."""

    node_name, array_forward = "SoftmaxBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        xp = get_array_module(a)
        ctx.dim = dim
        e = xp.exp(a - a.max(axis=dim, keepdims=True))
        out = e / e.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return SoftmaxBackwardData.apply(grad, out, ctx.dim), None


class LogSoftmax(Function):
    """out = a - max - log(sum(exp(a - max))) along ``dim``. Saves out."""

    node_name, array_forward = "LogSoftmaxBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        xp = get_array_module(a)
        ctx.dim = dim
        shifted = a - a.max(axis=dim, keepdims=True)
        out = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None


def softmax(a, dim: int, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return Softmax.apply(a, dim)


def log_softmax(a, dim: int, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return LogSoftmax.apply(a, dim)
