"""Gated and thresholding activations as ops: glu, hardshrink, softshrink, threshold (threshold_), rrelu (rrelu_).

Each is one node, named as torch's (GluBackward0, ThresholdBackward1 for the in-place form...); backward is
written with differentiable ops, so create_graph works. nn/activation_misc.py wraps them in modules.
"""
from __future__ import annotations

import numpy as np

from .. import backend
from ..autograd.function import Function, OriginalSelf
from ..backend import get_array_module
from ..random import _gen
from ..tensor import Tensor
from ._util import scalar_type_name, wrap_dim
from .combine import cat
from .backward_ops import ThresholdBackward, masked_grad
from .unary import Sigmoid


def _const(t: Tensor, array) -> Tensor:
    """A constant tensor (no graph) in t's dtype: piecewise-constant factors of a gradient."""
    return Tensor._make(array.astype(t._array.dtype, copy=False))


class Glu(Function):
    """out = a * sigmoid(b), a and b the two halves of the input along dim. Saves the input."""

    node_name, array_forward = "GluBackward0", True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.save_for_backward(x)
        ctx.dim = dim
        xp, h = get_array_module(x), x.shape[dim] // 2
        a, b = xp.split(x, [h], axis=dim)
        return (a * (1 / (1 + xp.exp(-b)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = Sigmoid.apply(b)
        return cat([grad * s, grad * a * s * (1 - s)], ctx.dim), None


class Hardshrink(Function):
    """out = x where |x| > lambd, else 0. Saves x."""

    node_name, array_forward = "HardshrinkBackward0", True

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xp = get_array_module(x)
        return xp.where((x >= -lambd) & (x <= lambd), xp.zeros((), x.dtype), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # torch's hardshrink_backward(grad, x, lambd): an op of x too, so under create_graph the gradient requires
        # grad whenever x does (its own derivative in x is zero)
        return ctx._forward_cls._backward_cls.apply(grad, x, ctx.lambd), None

    @staticmethod
    def _dead_zone(x, lambd):
        """Where the gradient is +0.0 whatever grad holds: torch's (x >= -lambd && x <= lambd) (a NaN passes grad)."""
        return (x >= -lambd) & (x <= lambd)


class HardshrinkBackward(Function):
    """out = g outside the dead zone of x, exactly +0.0 inside (torch's hardshrink_backward). Saves x."""

    node_name, array_forward = "HardshrinkBackwardBackward0", True
    _shrink = Hardshrink

    @staticmethod
    def forward(ctx, g, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return masked_grad(g, ~ctx._forward_cls._shrink._dead_zone(x, lambd))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        gx = Tensor._make(get_array_module(x._array).zeros_like(x._array)) if ctx.needs_input_grad[1] else None
        return ctx._forward_cls.apply(grad, x, ctx.lambd), gx, None  # torch: zeros_like for x


Hardshrink._backward_cls = HardshrinkBackward


class Softshrink(Hardshrink):
    """out = x - lambd above lambd, x + lambd below -lambd, 0 between. Saves x."""

    node_name = "SoftshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xp = get_array_module(x)
        # torch's middle branch is x * 0: -0.0 for negative x, NaN for NaN
        out = xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0))
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def _dead_zone(x, lambd):
        """torch's softshrink_backward: (x < -lambd || x > lambd) ? grad : 0, so a NaN input gets +0.0."""
        return ~((x < -lambd) | (x > lambd))


class SoftshrinkBackward(HardshrinkBackward):
    """out = g outside the dead zone of x, exactly +0.0 inside (torch's softshrink_backward). Saves x."""

    node_name = "SoftshrinkBackwardBackward0"
    _shrink = Softshrink


Softshrink._backward_cls = SoftshrinkBackward


class Threshold(Function):
    """out = x where x > threshold, else value. Saves x."""

    node_name, array_forward = "ThresholdBackward0", True

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        xp = get_array_module(x)
        return xp.where(x <= threshold, xp.asarray(value).astype(x.dtype), x)  # torch's test: NaN stays NaN

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors  # threshold_: the input from before the write
        # torch's threshold_backward(grad, x, threshold): x <= threshold ? 0 : grad, an op of x too, so under
        # create_graph the gradient requires grad whenever x does (its own derivative in x is zero)
        return ThresholdBackward.apply(grad, x, ctx.threshold), None, None


class ThresholdInplace(Threshold):
    """In-place threshold_ (torch's ThresholdBackward1): saves a copy of the input from before the write, whose
    mask the gradient takes (the output's would pass gradient where value > threshold replaced elements)."""

    node_name, inplace = "ThresholdBackward1", True

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.threshold = threshold
        ctx.save_for_backward(OriginalSelf(x.copy()))
        xp = get_array_module(x)
        x[...] = xp.where(x <= threshold, xp.asarray(value).astype(x.dtype), x)
        return x


class RreluWithNoise(Function):
    """out = x for x > 0, x * slope below: slope ~ U(lower, upper) per element in training (the noise, drawn
    from the framework's generator), (lower + upper) / 2 in eval. Saves x and the noise."""

    node_name, array_forward = "RreluWithNoiseBackward0", True

    @staticmethod
    def forward(ctx, x, lower, upper, training):
        xp = get_array_module(x)
        if training:
            draw = _gen(None).uniform(lower, upper, size=x.shape)
            slope = backend.to_device(draw.astype(x.dtype), backend.device_of(x))
        else:
            slope = xp.asarray((lower + upper) / 2, dtype=x.dtype)
        noise = xp.where(x > 0, xp.ones((), x.dtype), slope)
        ctx.save_for_backward(x)
        ctx.noise = noise
        return (x * noise).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # the version check (torch saves self)
        return grad * Tensor._make(ctx.noise), None, None, None


class RreluWithNoiseInplace(RreluWithNoise):
    """In-place rrelu_: saves its output (torch's RreluWithNoiseBackward1)."""

    node_name, inplace = "RreluWithNoiseBackward1", True

    @staticmethod
    def forward(ctx, x, lower, upper, training):
        out = RreluWithNoise.forward(ctx, x, lower, upper, training)
        x[...] = out
        ctx.save_for_backward(x)
        return x


# ---- the functional API ---------------------------------------------------------------------------------

def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of input along dim."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    return Glu.apply(input, d)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return Hardshrink.apply(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if lambd < 0:
        big = "3.40282e+38" if input.dtype.np != np.float64 else "1.79769e+308"
        raise RuntimeError(f"lambda must be in range [0, {big}] for input dtype {scalar_type_name(input.dtype.np)}, "
                           f"but found {lambd:g}")
    return Softshrink.apply(input, lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value."""
    return (ThresholdInplace if inplace else Threshold).apply(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return ThresholdInplace.apply(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky relu: a random negative slope in [lower, upper] in training, their mean in eval."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    return (RreluWithNoiseInplace if inplace else RreluWithNoise).apply(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)
