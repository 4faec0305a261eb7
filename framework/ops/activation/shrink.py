"""Shrinkage activations: hardshrink, softshrink and tanhshrink."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import refuse_integer_kernel, scalar_type_name
from ..backward_ops import masked_grad


def _const(t: Tensor, array) -> Tensor:
    """A constant tensor (no graph) in t's dtype: piecewise-constant factors of a gradient."""
    return Tensor._make(array.astype(t._array.dtype, copy=False))


class Hardshrink(Function):
    """out = x where |x| > lambd, else 0. Saves x."""

    node_name, array_forward = "HardshrinkBackward0", True
    bfloat16_scalars = True  # torch's bfloat16 kernel compares with lambd rounded to bfloat16 (seed 4508745)

    @staticmethod
    def forward(ctx, x, lambd):
        refuse_integer_kernel(x, "hardshrink_cpu")
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
    bfloat16_scalars = True  # (hardshrink_backward, softshrink's too: lambd rounded to bfloat16)
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
    bfloat16_scalars = False  # torch's softshrink kernel reads lambd as a float

    @staticmethod
    def forward(ctx, x, lambd):
        refuse_integer_kernel(x, "softshrink_check")
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


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return Hardshrink.apply(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if lambd < 0:
        big = "3.40282e+38" if input.dtype.np != np.float64 else "1.79769e+308"
        raise RuntimeError(f"lambda must be in range [0, {big}] for input dtype {scalar_type_name(input.dtype.np)}, "
                           f"but found {lambd:g}")
    return Softshrink.apply(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """input - tanh(input), through ordinary ops as torch (SubBackward0)."""
    return input - input.tanh()
