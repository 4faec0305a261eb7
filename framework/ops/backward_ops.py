"""Ops that compute another op's gradient from its saved output, recorded as torch's double-backward nodes.

A create_graph backward through sigmoid, tanh, relu, softmax or log_softmax calls these, so the gradient's
grad_fn is torch's (``SigmoidBackwardBackward0``...) with edges (grad_output, output); their own backward is
written with Tensor ops, so higher orders work too."""
from __future__ import annotations

import numpy as np

from ..autograd.bfloat16 import half_dtype, widen_half
from ..autograd.function import Function
from ..backend import errstate, get_array_module, row_major
from ..tensor import Tensor
from ..memory_layout import iterator_layout
from .scalar_ops import AddScalar, DivScalarInplace, MulScalar, SubScalar


class SigmoidBackward(Function):
    """out = g * y * (1 - y) (torch's sigmoid_backward). Saves g and y."""

    node_name, array_forward = "SigmoidBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return iterator_layout(g * y * (1 - y), (g, y))  # torch's TensorIterator: grad_output's layout first

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors  # torch's derivatives.yaml formulas, in their order (the graph's node names)
        gg = SigmoidBackward.apply(grad, y) if ctx.needs_input_grad[0] else None
        # -2 * y + 1 in C++: the Scalar overloads (MulBackward1, AddBackward1)
        gy = grad * g * AddScalar.apply(MulScalar.apply(y, -2), 1) if ctx.needs_input_grad[1] else None
        return gg, gy


class LogSigmoidBackward(Function):
    """out = (d - s * z / (1 + z)) * g with z = exp(-|x|), d, s = (1, 1) where x < 0 else (0, -1) (torch's
    log_sigmoid_backward). Saves g and x.

    Its own backward is torch's: the op again for g, log_sigmoid_double_backward(grad * g, x) = grad * g *
    (sigmoid(x) - 1) * sigmoid(x) for x.
    """

    node_name, array_forward = "LogSigmoidBackwardBackward0", True
    half_in_steps = ("float16", "bfloat16")  # log_sigmoid_grad widens them itself (its buffer is rounded first)

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(g, x)
        return log_sigmoid_grad(g, x)

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        gg = LogSigmoidBackward.apply(grad, x) if ctx.needs_input_grad[0] else None
        gx = None
        if ctx.needs_input_grad[1]:
            z = x.sigmoid()
            gx = grad * g * SubScalar.apply(z, 1) * z  # C++'s z - 1: the Scalar overload, SubBackward1
        return gg, gx


def log_sigmoid_grad(g, x):
    """torch's log_sigmoid_backward on arrays, in its order (z = exp(-|x|), the forward's buffer). A half dtype
    is computed in float32 from its buffer in that dtype, and rounded once."""
    xp = get_array_module(x)
    half = half_dtype(x)
    if half is not None:
        x, g = widen_half(x), widen_half(g) if half_dtype(g) is not None else g
    negative = x < 0
    z = xp.exp(-xp.abs(x))
    if half is not None:
        z = z.astype(half).astype(x.dtype)  # the buffer torch's forward stored
    out = z / (1 + z)
    out = xp.where(negative, 1 - out, out)  # max_deriv - sign * out: 1 - out below 0, 0 + out above
    out = out.astype(x.dtype, copy=False) * g
    if half is not None:
        out = out.astype(half)
    return iterator_layout(out, (g, x))  # torch's TensorIterator takes grad_output's layout first


class TanhBackward(Function):
    """out = g * (1 - y^2) (torch's tanh_backward). Saves g and y."""

    node_name, array_forward = "TanhBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return iterator_layout(g * (1 - y * y), (g, y))

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors  # torch's derivatives.yaml formulas, in their order (the graph's node names)
        gg = TanhBackward.apply(grad, y) if ctx.needs_input_grad[0] else None
        gy = grad * (MulScalar.apply(y, -2) * g) if ctx.needs_input_grad[1] else None  # -2 * y: MulBackward1
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
    """out = g where y > threshold (or y is NaN), else 0: torch's threshold_backward (relu's on its output with
    threshold 0, threshold's on its input). Saves y (as torch: its own backward is threshold_backward again)."""

    node_name, array_forward = "ThresholdBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, y, threshold=0.0):
        ctx.save_for_backward(y)
        ctx.y_meta, ctx.threshold = (y.shape, y.dtype), threshold
        if threshold == 0.0:
            out = threshold_grad(g, y)
        else:
            out = masked_grad(g, get_array_module(y).logical_not(y <= threshold))
        return iterator_layout(out, (y, g))  # torch's threshold_backward: self's layout first, then grad's

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        gg = ThresholdBackward.apply(grad, y, ctx.threshold) if ctx.needs_input_grad[0] else None
        gy = None
        if ctx.needs_input_grad[1]:  # piecewise constant in y: zero, as torch's zeros_like(grad)
            gy = Tensor._make(get_array_module(grad._array).zeros(*ctx.y_meta))
        return gg, gy, None


class SoftmaxBackwardData(Function):
    """out = y * (g - sum(g * y, dim)) (torch's _softmax_backward_data). Saves g and y."""

    node_name, array_forward = "SoftmaxBackwardDataBackward0", True

    @staticmethod
    def forward(ctx, g, y, dim):
        ctx.save_for_backward(g, y)
        ctx.dim = dim
        out = g - (g * y).sum(axis=dim, keepdims=True)
        out *= y  # in place in the fresh buffer
        return iterator_layout(out, (y, g))  # torch's: the output's layout (a transposed grad's is not kept)

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        d = ctx.dim
        gg = SoftmaxBackwardData.apply(grad, y, d) if ctx.needs_input_grad[0] else None
        gy = None
        if ctx.needs_input_grad[1]:  # torch's softmax_double_backward, term by term (the graph's node names)
            gy = g * grad - (y * g).sum(dim=d, keepdim=True) * grad - g * (y * grad).sum(dim=d, keepdim=True)
        return gg, gy, None


class LogSoftmaxBackwardData(Function):
    """out = g - exp(y) * sum(g, dim) (torch's _log_softmax_backward_data). Saves g and y."""

    node_name, array_forward = "LogSoftmaxBackwardDataBackward0", True

    @staticmethod
    def forward(ctx, g, y, dim):
        ctx.save_for_backward(g, y)
        ctx.dim = dim
        xp = get_array_module(y)
        out = xp.asarray(xp.exp(y))  # (NumPy returns a scalar for 0-d input)
        out *= g.sum(axis=dim, keepdims=True)
        return xp.subtract(g, out, out=out)  # the one fresh buffer, written in place

    @staticmethod
    def backward(ctx, grad):
        g, y = ctx.saved_tensors
        d = ctx.dim
        e = y.exp()
        gg = grad - (grad * e).sum(dim=d, keepdim=True) if ctx.needs_input_grad[0] else None
        gy = -g.sum(dim=d, keepdim=True) * e * grad if ctx.needs_input_grad[1] else None  # torch's order
        return gg, gy, None


class _ScaledByA(Function):
    """out = g * factor(a, param), a factor piecewise constant in a: under create_graph one node whose gradient in g
    is the same op of the incoming gradient and whose gradient in a is zero (torch's zeros_like(grad)). Saves a."""

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        gg = ctx._forward_cls.apply(grad, a, ctx.param) if ctx.needs_input_grad[0] else None
        ga = None
        if ctx.needs_input_grad[1]:
            ga = Tensor._make(get_array_module(grad._array).zeros(a.shape, dtype=grad._array.dtype))
        return gg, ga, None


class LeakyReluBackward(_ScaledByA):
    """out = g where a > 0, else g * slope (torch's leaky_relu_backward), one node (LeakyReluBackwardBackward0)
    under create_graph, whose gradient in a is zero. Saves a."""

    node_name, array_forward = "LeakyReluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, slope):
        ctx.save_for_backward(a)
        ctx.param = slope
        return iterator_layout(g * slopes(get_array_module(a), a, slope, g.dtype), (a, g))  # self first, as torch's


class RreluWithNoiseBackward(_ScaledByA):
    """out = g * noise (torch's rrelu_with_noise_backward: the slope drawn, or the eval mean, below 0), one node
    (RreluWithNoiseBackwardBackward0) under create_graph, whose gradient in a is zero. Saves a."""

    node_name, array_forward = "RreluWithNoiseBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, noise):
        ctx.save_for_backward(a)
        ctx.param = noise
        # (self, grad): torch's eval-mode leaky_relu_backward (its training-mode grad * noise lists grad first)
        return iterator_layout((g * noise).astype(g.dtype, copy=False), (a, g))


def slopes(xp, a, slope: float, dtype):
    """1 where a > 0, else slope (NaN counts as not > 0, as in torch).

    For 0 <= slope <= 1 it is max(mask, slope) of the 0/1 mask: exactly 1 or slope, in half the time of where().
    The slope is filled into an array first: numpy's maximum of two arrays is ~3x faster than with a scalar.
    """
    if 0 <= slope <= 1 and a.ndim:  # (numpy compares 0-d arrays into a scalar, which out= cannot take)
        factor = (a > 0).astype(dtype)
        return xp.maximum(factor, xp.full_like(factor, slope), out=factor)
    return xp.where(a > 0, 1.0, slope).astype(dtype, copy=False)


class MseLossBackward(Function):
    """out = (x - t) * (g * scale), scale 2 (2 / x.numel() for mean) (torch's mse_loss_backward). Saves g, x, t.

    Its own backward is torch's: the op again for g, mse_loss_double_backward(grad * g) = 2 * (grad * g)
    (/ numel for mean) for x, and its negation for t.
    """

    node_name, array_forward = "MseLossBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, t, reduction):
        ctx.save_for_backward(g, x, t)
        ctx.reduction = reduction
        scale = 2.0 / x.size if reduction == 1 and x.size else 2.0  # (an empty x: an empty result, any scale)
        return row_major(((x - t) * (g * scale)).astype(x.dtype, copy=False))  # torch's: contiguous

    @staticmethod
    def backward(ctx, grad):
        g, x, t = ctx.saved_tensors
        gg = gx = gt = None
        if ctx.needs_input_grad[0]:
            gg = MseLossBackward.apply(grad, x, t, ctx.reduction)
            if tuple(gg.shape) != tuple(g.shape):  # g was broadcast (a reduced loss's 0-d grad): sum back
                gg = gg.sum_to_size(*g.shape) if g.dim() else gg.sum()
        if ctx.needs_input_grad[1]:
            gx = _mse_loss_double_backward(grad * g, x.numel(), ctx.reduction)
        if ctx.needs_input_grad[2]:  # torch computes it again, negated: its own graph, a fresh version counter
            gt = -_mse_loss_double_backward(grad * g, x.numel(), ctx.reduction)
        return gg, gx, gt, None


def soft_margin_grad(g, x, t, reduction: str):
    """torch's soft_margin_loss_backward on arrays, step by step in its order (each rounded in x's dtype)."""
    xp = get_array_module(x)
    with errstate(xp, over="ignore", invalid="ignore"):
        z = xp.exp(-t * x)
        out = t * z  # torch's mul_out(grad_input, target, z).mul_(-norm), then div_(z.add_(1)).mul_(g)
        out *= x.dtype.type(-1.0 / x.size if reduction == "mean" and x.size else -1.0)
        z += 1
        out /= z
        out *= g
    return out


class SoftMarginLossBackward(Function):
    """out = -norm t z / (z + 1) * g with z = exp(-t x), norm 1/numel for 'mean' (torch's
    soft_margin_loss_backward, its steps rounded in x's dtype in its order). Saves g, x, t.

    Its own backward is torch's: the op again for g, soft_margin_loss_double_backward(grad * g) for x; the target
    is not differentiable (soft_margin_loss refuses one that requires grad).
    """

    node_name, array_forward = "SoftMarginLossBackwardBackward0", True
    index_args = (2,)  # the target: no edge, as torch's

    @staticmethod
    def forward(ctx, g, x, t, reduction):
        ctx.save_for_backward(g, x, t)
        ctx.reduction = reduction
        return soft_margin_grad(g, x, t, reduction)

    @staticmethod
    def backward(ctx, grad):
        g, x, t = ctx.saved_tensors
        gg = gx = None
        if ctx.needs_input_grad[0]:  # torch's soft_margin_loss_double_backward_grad_output
            if ctx.reduction == "none":
                gg = SoftMarginLossBackward.apply(grad, x, t, ctx.reduction)
            else:
                gg = (SoftMarginLossBackward.apply(g.new_ones(g.shape), x, t, ctx.reduction) * grad).sum()
        if ctx.needs_input_grad[1]:  # torch's soft_margin_loss_double_backward(grad * g, x, t)
            z = (x * -t).exp()
            zplus1 = AddScalar.apply(z, 1)  # C++'s z + 1: the Scalar overload, AddBackward1
            gx = grad * g * (t * t) * z / (zplus1 * zplus1)
            if ctx.reduction == "mean":
                gx = DivScalarInplace.apply(gx, x.numel())
        return gg, gx, None, None


def _mse_loss_double_backward(gg: Tensor, numel: int, reduction: int) -> Tensor:
    """torch's mse_loss_double_backward: 2 * gg, divided in place by numel for 'mean' (so its version is 1)."""
    double = MulScalar.apply(gg, 2)
    if reduction == 1:
        double = DivScalarInplace.apply(double, numel)  # C++'s div_(Scalar): DivBackward1, not Python's DivBackward0
    return double
