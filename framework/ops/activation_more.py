"""More activations as ops: silu, elu (selu, celu), softplus, hardtanh (relu6), mish, hardswish, hardsigmoid,
logsigmoid, prelu, tanhshrink; their in-place twins where torch has them (silu_, elu_, selu_, celu_, hardtanh_, ...).

Each docstring says what the op saves, as torch's; nn/activation_more.py wraps them in modules and
nn.functional exports them.
"""
from __future__ import annotations

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from ..autograd.function import Function
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ..tensor import Tensor
from ._util import scalar_type_name, sum_to
from .activation import implicit_softmax_dim, softmax
from .backward_ops import SigmoidBackward, masked_grad
from .combine import where_op
from .scalar_ops import AddScalar, MulScalar
from .unary import Sigmoid, Tanh, _sigmoid
from .unary_inplace import _inplace


def _softplus(xp, a, beta=1.0, threshold=20.0):
    """log(1 + e**(beta a)) / beta, linear above ``threshold`` (torch's), stable on both tails."""
    z = a * beta
    with _errstate(xp, over="ignore"):
        soft = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / beta
    return xp.where(z > threshold, a, soft).astype(a.dtype, copy=False)


def _mask(t: Tensor, cond) -> Tensor:
    """A constant tensor (no graph) of 0/1 in t's dtype: piecewise-constant factors keep double backward exact."""
    return Tensor._make(cond.astype(t._array.dtype, copy=False))


class Silu(Function):
    """out = a * sigmoid(a). Saves a."""

    node_name, array_forward = "SiluBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * _sigmoid(get_array_module(a), a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        s = Sigmoid.apply(a)
        # torch's infinitely_differentiable_silu_backward: grad * s * (1.0 + a * (1.0 - s)); C++'s 1.0 - s fills
        # a tensor and subtracts (SubBackward0), its 1.0 + t is the Scalar add (AddBackward1)
        one = Tensor._make(get_array_module(s._array).ones((), dtype=s._array.dtype))
        return grad * s * AddScalar.apply(a * (one - s), 1.0)


class Mish(Function):
    """out = a * tanh(softplus(a)). Saves a."""

    node_name, array_forward = "MishBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = get_array_module(a)
        return a * xp.tanh(_softplus(xp, a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        t = Tanh.apply(Softplus.apply(a, 1.0, 20.0))
        return grad * (t + a * Sigmoid.apply(a) * (1 - t * t))


class Softplus(Function):
    """out = log(1 + e**(beta a)) / beta (a itself where beta a > threshold). Saves a."""

    node_name, array_forward = "SoftplusBackward0", True

    @staticmethod
    def forward(ctx, a, beta, threshold):
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
        return get_array_module(a).where(z > threshold, g, g * _sigmoid(get_array_module(a), z)).astype(
            g.dtype, copy=False)

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


class Elu(Function):
    """out = scale * a if a > 0 else scale * alpha * (e**(input_scale * a) - 1) (elu; selu and celu pick the
    scales, as torch's). Saves a."""

    node_name, array_forward = "EluBackward0", True

    @staticmethod
    def forward(ctx, a, alpha, scale=1.0, input_scale=1.0):
        if a.dtype.kind not in "fV":
            raise NotImplementedError(f"\"elu_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
        ctx.save_for_backward(a)
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        xp, t = get_array_module(a), a.dtype.type
        negcoef = t(alpha) * t(scale)  # torch's coefficients, in the tensor's dtype
        with _errstate(xp, over="ignore"):
            neg = xp.expm1(xp.minimum(0, a) * t(input_scale)) * negcoef  # (0, a): -0.0 stays -0.0
        return xp.where(a > 0, a * t(scale), neg).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        g = EluBackward.apply(grad, a, ctx.alpha, False, ctx.scale, ctx.input_scale)
        return (g,) + (None,) * (len(ctx.needs_input_grad) - 1)


class EluInplace(Elu):
    """In-place elu_: saves its *output* (torch's EluBackward1), from which the gradient follows."""

    node_name, inplace = "EluBackward1", True
    check_slope_in_forward = True  # elu_ refuses a negative alpha at once; celu_ only when backward runs

    @staticmethod
    def forward(ctx, a, alpha, scale=1.0, input_scale=1.0):
        if alpha < 0 and ctx._forward_cls.check_slope_in_forward:
            raise RuntimeError(_NEGATIVE_SLOPE)
        a[...] = Elu.forward(ctx, a, alpha, scale, input_scale)
        ctx.save_for_backward(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if ctx.alpha < 0:
            raise RuntimeError(_NEGATIVE_SLOPE)
        g = EluBackward.apply(grad, out, ctx.alpha, True, ctx.scale, ctx.input_scale)
        return (g,) + (None,) * (len(ctx.needs_input_grad) - 1)


_NEGATIVE_SLOPE = ("In-place elu backward calculation is triggered with a negative slope which is not supported. "
                   "This is caused by calling in-place forward function with a negative slope, please call "
                   "out-of-place version instead.")


class Celu(Elu):
    """out = a if a > 0 else alpha * (e**(a / alpha) - 1): elu with input_scale 1 / alpha, torch's own node
    (CeluBackward0). Saves a."""

    node_name = "CeluBackward0"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        g = EluBackward.apply(grad, a, ctx.alpha, False, ctx.scale, _celu_backward_scale(ctx.alpha))
        return g, None, None, None


class CeluInplace(EluInplace):
    """In-place celu_: saves its output (CeluBackward1); a negative alpha fails in backward, as torch's."""

    node_name, check_slope_in_forward = "CeluBackward1", False

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if ctx.alpha < 0:
            raise RuntimeError(_NEGATIVE_SLOPE)
        g = EluBackward.apply(grad, out, ctx.alpha, True, ctx.scale, _celu_backward_scale(ctx.alpha))
        return g, None, None, None


def _celu_backward_scale(alpha: float) -> float:
    """torch's derivatives.yaml: celu's gradient is elu_backward(..., 1.0 / alpha.toFloat(), ...): alpha rounded to
    a C float first (the forward uses 1 / alpha in double)."""
    return 1.0 / float(np.float32(alpha))


class EluBackward(Function):
    """out = g * scale where x > 0, else g * input_scale * scale * alpha * e**(input_scale x) (x the input), or
    g * input_scale * (x + scale * alpha) (x the output, is_result): torch's elu_backward, one node
    (EluBackwardBackward0) under create_graph. Saves g and x."""

    node_name, array_forward = "EluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, alpha, is_result, scale=1.0, input_scale=1.0):
        ctx.save_for_backward(g, x)
        ctx.alpha, ctx.is_result, ctx.scale, ctx.input_scale = alpha, is_result, scale, input_scale
        xp, t = get_array_module(x), x.dtype.type
        negcoef, poscoef, negiptcoef = t(alpha) * t(scale), t(scale), t(input_scale)
        if is_result:
            neg = g * negiptcoef * (x + negcoef)
        else:  # torch's order: a * negiptcoef * negcoef * exp(b * negiptcoef)
            with _errstate(xp, over="ignore"):
                neg = g * negiptcoef * negcoef * xp.exp(xp.minimum(x, 0) * negiptcoef)
        return xp.where(x <= 0, neg, g * poscoef).astype(g.dtype, copy=False)  # NaN: g * scale, as torch

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        args = (ctx.alpha, ctx.is_result, ctx.scale, ctx.input_scale)
        gg = EluBackward.apply(grad, x, *args) if ctx.needs_input_grad[0] else None
        gx = None
        if ctx.needs_input_grad[1]:  # torch's elu_double_backward: nonzero only where x < 0
            below = _mask(x, x._array < 0)
            scaled = MulScalar.apply(grad * g, ctx.input_scale)  # torch's grad * grad_output * input_scale
            gx = (scaled if ctx.is_result else EluBackward.apply(scaled, x, ctx.alpha, False, ctx.scale,
                                                                   ctx.input_scale)) * below
        return gg, gx, None, None, None, None


class Hardtanh(Function):
    """out = a clamped to [min_val, max_val]. Saves a; the gradient passes strictly inside the bounds."""

    node_name, array_forward = "HardtanhBackward0", True

    @staticmethod
    def forward(ctx, a, lo, hi):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        if a.dtype.kind == "b":
            raise RuntimeError("Bool type is not supported by hardtanh")
        return get_array_module(a).clip(a, lo, hi).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return HardtanhBackward.apply(grad, a, ctx.lo, ctx.hi), None, None


class HardtanhBackward(Function):
    """out = g strictly inside (lo, hi), 0 elsewhere: torch's hardtanh_backward, one node
    (HardtanhBackwardBackward0) under create_graph, whose gradient in a is zero. Saves a."""

    node_name, array_forward = "HardtanhBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, lo, hi):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        # torch's (a > lo && a < hi) ? g : 0, exactly +0.0 outside (g * mask gave -0.0, and NaN for an infinite g)
        return masked_grad(g, (a > lo) & (a < hi))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        gg = HardtanhBackward.apply(grad, a, ctx.lo, ctx.hi) if ctx.needs_input_grad[0] else None
        ga = None
        if ctx.needs_input_grad[1]:  # piecewise constant in a: zero, as torch's zeros_like(grad)
            ga = Tensor._make(get_array_module(grad._array).zeros(a.shape, dtype=grad._array.dtype))
        return gg, ga, None, None


class Hardswish(Function):
    """out = a * relu6(a + 3) / 6. Saves a."""

    node_name, array_forward = "HardswishBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = get_array_module(a)
        return (a * xp.clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # torch's (vectorized) kernel: exactly +0.0 up to -3 (grad * 0 gave -0.0, and NaN for an infinite grad; and
        # -0.5 g at -3), g from 3 up, g * (x / 3 + 0.5) between and where x is NaN
        zero = Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
        return where_op(a <= -3, zero, where_op(a >= 3, grad, grad * (a / 3 + 0.5)))


class Hardsigmoid(Function):
    """out = relu6(a + 3) / 6. Saves a."""

    node_name, array_forward = "HardsigmoidBackward0", True

    @staticmethod
    def forward(ctx, a):
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
        ctx.save_for_backward(a)
        xp = get_array_module(a)
        # torch's min(0, a) - log1p(e**-|a|): +0.0 at a = inf (-softplus(-a) gave -0.0)
        with _errstate(xp, over="ignore"):
            return (xp.minimum(0, a) - xp.log1p(xp.exp(-xp.abs(a)))).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * Sigmoid.apply(-a)


class Prelu(Function):
    """out = a if a > 0 else w * a, w one slope per channel (dim 1) or one for all. Saves a and w."""

    node_name, array_forward = "PreluKernelBackward0", True

    @staticmethod
    def forward(ctx, a, w):  # (torch's _prelu_kernel: prelu() has given w a's number of dims)
        ctx.save_for_backward(a, w)
        return get_array_module(a).where(a > 0, a, a * w).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, w = ctx.saved_tensors
        # torch's _prelu_kernel_backward: one two-output node under create_graph (PreluKernelBackwardBackward0)
        ga, gw = PreluBackward.apply(grad, a, w)
        if not ctx.needs_input_grad[1]:
            return ga, None
        return (ga if ctx.needs_input_grad[0] else None), sum_to(gw, tuple(w.shape))  # torch's sum_to_size


class PreluBackward(Function):
    """(ga, gw) = (g where a > 0 else w g, 0 where a > 0 else a g): torch's _prelu_kernel_backward, gw not yet
    summed over the broadcast dims. Saves g, a and w."""

    node_name, array_forward = "PreluKernelBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, a, w):
        ctx.save_for_backward(g, a, w)
        xp = get_array_module(a)
        pos = a > 0
        return xp.where(pos, g, g * w).astype(g.dtype, copy=False), xp.where(pos, 0, a * g).astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, gga, ggw):
        # torch's formulas (its masks are a >= 0 here); an output with no gradient arrives as zeros
        g, a, w = ctx.saved_tensors
        nonneg = a >= 0
        zero = Tensor._make(get_array_module(a._array).zeros((), dtype=a._array.dtype))
        needs = ctx.needs_input_grad
        d_g = where_op(nonneg, gga, gga * w + ggw * a) if needs[0] else None
        d_a = where_op(nonneg, zero, g * ggw) if needs[1] else None
        d_w = sum_to(where_op(nonneg, zero, g * gga), tuple(w.shape)) if needs[2] else None
        return d_g, d_a, d_w


def _channel_shape(n: int, ndim: int) -> tuple:
    """w's shape to broadcast over the channel dim 1 (below 2-D there is no channel dim and one slope)."""
    return (1, n) + (1,) * (ndim - 2) if ndim >= 2 else (1,) * ndim


HardtanhInplace = _inplace(Hardtanh, "HardtanhInplace", save_input_copy=True)  # torch keeps the old input too
SiluInplace = _inplace(Silu, "SiluInplace", save_input_copy=True)
MishInplace = _inplace(Mish, "MishInplace", save_input_copy=True)
HardswishInplace = _inplace(Hardswish, "HardswishInplace", save_input_copy=True)
HardsigmoidInplace = _inplace(Hardsigmoid, "HardsigmoidInplace", save_input_copy=True)


# ---- functional API (nn.functional's names and defaults) ----------------------------------------------

def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return (SiluInplace if inplace else Silu).apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return (MishInplace if inplace else Mish).apply(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    if _amp.on and autocast_applies("softplus", input, beta, threshold):
        return autocast_run("softplus", softplus, input, beta, threshold)
    return Softplus.apply(input, beta, threshold)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return (EluInplace if inplace else Elu).apply(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return EluInplace.apply(input, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(input, alpha) with torch's fixed alpha and scale (EluBackward0, as torch's)."""
    return (EluInplace if inplace else Elu).apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return (CeluInplace if inplace else Celu).apply(input, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def tanhshrink(input: Tensor) -> Tensor:
    """input - tanh(input), through ordinary ops as torch (SubBackward0)."""
    return input - input.tanh()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return (HardtanhInplace if inplace else Hardtanh).apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return (HardswishInplace if inplace else Hardswish).apply(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return (HardsigmoidInplace if inplace else Hardsigmoid).apply(input)


def logsigmoid(input: Tensor) -> Tensor:
    return LogSigmoid.apply(input)


def softsign(input: Tensor) -> Tensor:
    """input / (1 + |input|), through ordinary ops as torch (DivBackward0)."""
    return input / (input.abs() + 1)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-input): torch's node is the softmax's (SoftmaxBackward0)."""
    if dim is None:
        dim = implicit_softmax_dim("softmin", input.ndim, _stacklevel)
    return softmax(-input, dim, dtype)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    if _amp.on and autocast_applies("prelu", input, weight):
        return autocast_run("prelu", prelu, input, weight)
    if input.dtype != weight.dtype:
        raise RuntimeError("prelu: Type promoting not supported.")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if input.ndim != weight.ndim:  # torch reshapes the slopes to broadcast over dim 1 (a ViewBackward0 node)
        weight = weight.reshape(_channel_shape(weight.numel(), input.ndim) if input.ndim else ())
    return Prelu.apply(input, weight)
