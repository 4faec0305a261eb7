"""The sigmoid family: softplus, hardsigmoid, logsigmoid and softsign."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...backend import errstate as _errstate, get_array_module
from ...tensor import Tensor
from ..pointwise.unary import _sigmoid
from ..pointwise.unary_inplace import _inplace
from ..backward_ops import LogSigmoidBackward, log_sigmoid_grad, masked_grad, SigmoidBackward
from ..pointwise import Sigmoid
from ..scalar_ops import MulScalar
from ...memory_layout import iterator_layout
from .._util import refuse_integer_kernel
from .relu_family import _mask


def _softplus(xp, a, beta=1.0, threshold=20.0):
    """log(1 + e**(beta a)) / beta, linear above ``threshold`` (torch's), stable on both tails."""
    z = a * beta
    with _errstate(xp, over="ignore"):
        soft = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / beta
    return xp.where(z > threshold, a, soft).astype(a.dtype, copy=False)


class Softplus(Function):
    """out = log(1 + e**(beta a)) / beta (a itself where beta a > threshold). Saves a."""

    node_name, array_forward = "SoftplusBackward0", True

    @staticmethod
    def forward(ctx, a, beta, threshold):
        refuse_integer_kernel(a, "softplus_cpu")
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        return _softplus(get_array_module(a), a, beta, threshold)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return SoftplusBackward.apply(grad, a, ctx.beta, ctx.threshold), None, None


class SoftplusBackward(Function):
    """out = g * sigmoid(beta a) (g itself where beta a > threshold): torch's softplus_backward, one node
    (SoftplusBackwardBackward0) under create_graph. Saves g and a."""

    node_name, array_forward = "SoftplusBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, beta, threshold):
        ctx.save_for_backward(g, a)
        ctx.beta, ctx.threshold = beta, threshold
        z = a * beta
        out = get_array_module(a).where(z > threshold, g, g * _sigmoid(get_array_module(a), z)).astype(
            g.dtype, copy=False)
        return iterator_layout(out, (g, a))  # torch's TensorIterator: grad first

    @staticmethod
    def backward(ctx, grad):
        g, a = ctx.saved_tensors
        beta, threshold = ctx.beta, ctx.threshold
        gg = SoftplusBackward.apply(grad, a, beta, threshold) if ctx.needs_input_grad[0] else None
        ga = None
        if ctx.needs_input_grad[1]:  # torch's softplus_double_backward, op for op (its mask is beta a < threshold)
            z = MulScalar.apply(a, beta)
            ga = SigmoidBackward.apply(grad * g, Sigmoid.apply(z)) * _mask(a, z._array < threshold)
            ga = MulScalar.apply(ga, beta)
        return gg, ga, None, None


class Hardsigmoid(Function):
    """out = relu6(a + 3) / 6. Saves a."""

    node_name, array_forward = "HardsigmoidBackward0", True

    @staticmethod
    def forward(ctx, a):
        refuse_integer_kernel(a, "hardsigmoid_cpu")
        ctx.save_for_backward(a)
        return (get_array_module(a).clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return HardsigmoidBackward.apply(grad, a)


class HardsigmoidBackward(Function):
    """out = g / 6 strictly inside (-3, 3), 0 elsewhere: torch's hardsigmoid_backward, whose node under
    create_graph is NotImplemented (torch has no derivative for it: differentiating it raises). Saves nothing."""

    node_name, array_forward = "torch::autograd::NotImplemented", True

    @staticmethod
    def forward(ctx, g, a):
        # torch multiplies by the float literal 1.0f / 6.0f, not by 1/6 in the tensor's precision
        # torch's (a > -3 && a < 3) ? g * (1/6) : 0, exactly +0.0 outside (g * mask gave -0.0 and inf * 0 NaN)
        return masked_grad(g * _ONE_SIXTH_F32, (a > -3) & (a < 3))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


class LogSigmoid(Function):
    """out = log(sigmoid(a)) = -softplus(-a). Saves a."""

    node_name, array_forward = "LogSigmoidBackward0", True

    @staticmethod
    def forward(ctx, a):
        refuse_integer_kernel(a, "log_sigmoid_cpu")
        ctx.save_for_backward(a)
        xp = get_array_module(a)
        # torch's min(0, a) - log1p(e**-|a|): +0.0 at a = inf (-softplus(-a) gave -0.0)
        with _errstate(xp, over="ignore"):
            return (xp.minimum(0, a) - xp.log1p(xp.exp(-xp.abs(a)))).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # under create_graph: torch's LogSigmoidBackwardBackward0
        (a,) = ctx.saved_tensors
        return LogSigmoidBackward.apply(grad, a)

    @staticmethod
    def backward_arrays(ctx, g):
        (a,) = ctx.saved_arrays
        return (log_sigmoid_grad(g, a),)


HardsigmoidInplace = _inplace(Hardsigmoid, "HardsigmoidInplace", save_input_copy=True)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    if _amp.on and autocast_applies("softplus", input, beta, threshold):
        return autocast_run("softplus", softplus, input, beta, threshold)
    return Softplus.apply(input, beta, threshold)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return (HardsigmoidInplace if inplace else Hardsigmoid).apply(input)


def logsigmoid(input: Tensor) -> Tensor:
    return LogSigmoid.apply(input)


def softsign(input: Tensor) -> Tensor:
    """input / (1 + |input|), through ordinary ops as torch (DivBackward0)."""
    return input / (input.abs() + 1)
