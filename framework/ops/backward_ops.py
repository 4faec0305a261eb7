"""Ops that compute another op's gradient from its saved output, recorded as torch's double-backward nodes.

A create_graph backward through sigmoid, tanh, relu, softmax or log_softmax calls these, so the gradient's
grad_fn is torch's (``SigmoidBackwardBackward0``...) with edges (grad_output, output); their own backward is
written with Tensor ops, so higher orders work too.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor


class SigmoidBackward(Function):
    """out = g * y * (1 - y) (torch's sigmoid_backward). Saves g and y."""

    node_name, array_forward = "SigmoidBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return g * y * (1 - y)

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        gg = grad * y * (1 - y) if ctx.needs_input_grad[0] else None
        gy = grad * g * (1 - 2 * y) if ctx.needs_input_grad[1] else None
        return gg, gy


class TanhBackward(Function):
    """out = g * (1 - y^2) (torch's tanh_backward). Saves g and y."""

    node_name, array_forward = "TanhBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return g * (1 - y * y)

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        gg = grad * (1 - y * y) if ctx.needs_input_grad[0] else None
        gy = grad * g * y * -2 if ctx.needs_input_grad[1] else None
        return gg, gy


def threshold_grad(g, y):
    """torch's threshold_backward(g, y, 0) on arrays: 0 where y <= 0, else g (a NaN y passes g on)."""
    return masked_grad(g, get_array_module(y).logical_not(y <= 0))


def masked_grad(g, keep):
    """g where keep, else exactly +0.0 (torch's ``cond ? g : 0`` backward kernels), keep a bool array.

    Exactly +0.0, whatever g holds there: ``g * keep`` would turn an infinite gradient into NaN and a negative one
    into -0.0.  For floats the zeroing multiplies g's bits, as integers, by keep's 0 or 1: as fast as that product
    (an AND with a -keep mask costs one more pass), where xp.where is ~3x slower.
    """
    xp = get_array_module(g)
    ints = _SAME_SIZE_INT.get(g.dtype.char)
    if ints is None or g.shape != keep.shape:
        return xp.where(keep, g, 0).astype(g.dtype, copy=False)
    out = xp.empty_like(g)
    xp.multiply(g.view(ints), keep, out=out.view(ints))
    return out


_SAME_SIZE_INT = {"e": np.int16, "f": np.int32, "d": np.int64}  # float dtype char -> the int of its size


class ThresholdBackward(Function):
    """out = g where y > 0 (or y is NaN), else 0 (torch's threshold_backward for relu). Saves y's mask."""

    node_name, array_forward = "ThresholdBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y):
        ctx.mask = get_array_module(y).logical_not(y <= 0)
        ctx.y_meta = (y.shape, y.dtype)
        return threshold_grad(g, y)

    @staticmethod
    def backward(ctx, grad):
        gg = grad * Tensor._make(ctx.mask.astype(grad._array.dtype)) if ctx.needs_input_grad[0] else None
        gy = None
        if ctx.needs_input_grad[1]:  # piecewise constant in y: zero, as torch's zeros_like(grad)
            gy = Tensor._make(get_array_module(ctx.mask).zeros(*ctx.y_meta))
        return gg, gy


class SoftmaxBackwardData(Function):
    """out = y * (g - sum(g * y, dim)) (torch's _softmax_backward_data). Saves g and y."""

    node_name, array_forward = "SoftmaxBackwardDataBackward0", True

    @staticmethod
    def forward(ctx, g, y, dim):
        ctx.save_for_backward(g, y)
        ctx.dim = dim
        return y * (g - (g * y).sum(axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        d = ctx.dim
        uy = (grad * y).sum(dim=d, keepdim=True)
        gg = y * (grad - uy) if ctx.needs_input_grad[0] else None
        gy = grad * (g - (g * y).sum(dim=d, keepdim=True)) - g * uy if ctx.needs_input_grad[1] else None
        return gg, gy, None


class LogSoftmaxBackwardData(Function):
    """out = g - exp(y) * sum(g, dim) (torch's _log_softmax_backward_data). Saves g and y."""

    node_name, array_forward = "LogSoftmaxBackwardDataBackward0", True

    @staticmethod
    def forward(ctx, g, y, dim):
        ctx.save_for_backward(g, y)
        ctx.dim = dim
        return g - get_array_module(y).exp(y) * g.sum(axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        d = ctx.dim
        e = y.exp()
        gg = grad - (grad * e).sum(dim=d, keepdim=True) if ctx.needs_input_grad[0] else None
        gy = -grad * e * g.sum(dim=d, keepdim=True) if ctx.needs_input_grad[1] else None
        return gg, gy, None


class LeakyReluBackward(Function):
    """out = g where a > 0, else g * slope (torch's leaky_relu_backward), one node (LeakyReluBackwardBackward0)
    under create_graph, whose gradient in a is zero. Saves a."""

    node_name, array_forward = "LeakyReluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, slope):
        ctx.save_for_backward(a)
        ctx.slope = slope
        return g * slopes(get_array_module(a), a, slope, g.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        gg = LeakyReluBackward.apply(grad, a, ctx.slope) if ctx.needs_input_grad[0] else None
        ga = None
        if ctx.needs_input_grad[1]:  # piecewise constant in a: zero, as torch's zeros_like(grad)
            ga = Tensor._make(get_array_module(grad._array).zeros(a.shape, dtype=grad._array.dtype))
        return gg, ga, None


def slopes(xp, a, slope: float, dtype):
    """1 where a > 0, else slope (NaN counts as not > 0, as in torch).

    For 0 <= slope <= 1 it is max(mask, slope) of the 0/1 mask: exactly 1 or slope, in half the time of where().
    The slope is filled into an array first: numpy's maximum of two arrays is ~3x faster than with a scalar.
    """
    if 0 <= slope <= 1 and a.ndim:  # (numpy compares 0-d arrays into a scalar, which out= cannot take)
        factor = (a > 0).astype(dtype)
        return xp.maximum(factor, xp.full_like(factor, slope), out=factor)
    return xp.where(a > 0, 1.0, slope).astype(dtype, copy=False)
