"""The ReLU family beyond relu itself: hardtanh, relu6, prelu, threshold and rrelu."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function, OriginalSelf
from ... import backend
from ...backend import get_array_module
from ...random import _gen
from ...tensor import Tensor
from ..pointwise.unary_inplace import _inplace
from ..backward_ops import masked_grad, RreluWithNoiseBackward, ThresholdBackward
from ..pointwise import where_op
from ...memory_layout import elementwise_layout
from .._util import formula_zeros, refuse_integer_kernel, scalar_type_name


def _mask(t: Tensor, cond) -> Tensor:
    """A constant tensor (no graph) of 0/1 in t's dtype: piecewise-constant factors keep double backward exact."""
    return Tensor._make(cond.astype(t._array.dtype, copy=False))


class Hardtanh(Function):
    """out = a clamped to [min_val, max_val]. Saves a; the gradient passes strictly inside the bounds."""

    node_name, array_forward = "HardtanhBackward0", True

    @staticmethod
    def forward(ctx, a, lo, hi):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        if a.dtype.kind == "b":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if a.dtype.kind == "u" and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
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


class Prelu(Function):
    """out = a if a > 0 else w * a, w one slope per channel (dim 1) or one for all. Saves a and w."""

    node_name, array_forward = "PreluKernelBackward0", True

    @staticmethod
    def forward(ctx, a, w):  # (torch's _prelu_kernel: prelu() has given w a's number of dims)
        refuse_integer_kernel(a, "prelu_cpu")
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
        ctx.set_materialize_grads(False)  # torch's formulas ask which output got a gradient
        xp = get_array_module(a)
        pos = a > 0
        ga = xp.where(pos, g, g * w).astype(g.dtype, copy=False)
        gw = xp.where(pos, 0, a * g).astype(g.dtype, copy=False)
        # torch's TensorIterator over (self, weight, grad) lays both outputs out
        return elementwise_layout(ga, (a, w, g)), elementwise_layout(gw, (a, w, g))

    @staticmethod
    def backward(ctx, gga, ggw):
        # torch's formulas (its masks are a >= 0 here), by which outputs got a gradient (None: none); a missing
        # one's term is zeros_like(self), empty_like().zero_() (_version 1; fuzz seed 5604586)
        g, a, w = ctx.saved_tensors
        nonneg = a >= 0
        zero = Tensor._make(get_array_module(a._array).zeros((), dtype=a._array.dtype))
        needs = ctx.needs_input_grad
        d_g = d_a = d_w = None
        if needs[0]:
            if gga is None:
                d_g = where_op(nonneg, zero, ggw * a)
            else:
                d_g = where_op(nonneg, gga, gga * w + ggw * a if ggw is not None else gga * w)
        if needs[1]:
            d_a = where_op(nonneg, zero, g * ggw) if ggw is not None else formula_zeros(a, tuple(a.shape))
        if needs[2]:  # (torch's zeros_like(self) there too, summed down to the weight's shape)
            d_w = sum_to(where_op(nonneg, zero, g * gga) if gga is not None else formula_zeros(a, tuple(a.shape)),
                         tuple(w.shape))
        return d_g, d_a, d_w


def _channel_shape(n: int, ndim: int) -> tuple:
    """w's shape to broadcast over the channel dim 1 (below 2-D there is no channel dim and one slope)."""
    return (1, n) + (1,) * (ndim - 2) if ndim >= 2 else (1,) * ndim


HardtanhInplace = _inplace(Hardtanh, "HardtanhInplace", save_input_copy=True)  # torch keeps the old input too


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return (HardtanhInplace if inplace else Hardtanh).apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    if _amp.on and autocast_applies("prelu", input, weight):
        return autocast_run("prelu", prelu, input, weight)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {scalar_type_name(input._array.dtype)} and "
                           f"{scalar_type_name(weight._array.dtype)}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if input.ndim != weight.ndim:  # torch reshapes the slopes to broadcast over dim 1 (a ViewBackward0 node)
        weight = weight.reshape(_channel_shape(weight.numel(), input.ndim) if input.ndim else ())
    return Prelu.apply(input, weight)


class Threshold(Function):
    """out = x where x > threshold, else value. Saves x."""

    node_name, array_forward = "ThresholdBackward0", True

    @staticmethod
    def forward(ctx, x, threshold, value):
        if x.dtype.kind == "b":
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
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
        if x.dtype.kind == "b":
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
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
        refuse_integer_kernel(x, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
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
        (x,) = ctx.saved_tensors  # (also the version check: torch saves self)
        return RreluWithNoiseBackward.apply(grad, x, ctx.noise), None, None, None  # one node under create_graph


class RreluWithNoiseInplace(RreluWithNoise):
    """In-place rrelu_: saves its output (torch's RreluWithNoiseBackward1)."""

    node_name, inplace = "RreluWithNoiseBackward1", True

    @staticmethod
    def forward(ctx, x, lower, upper, training):
        out = RreluWithNoise.forward(ctx, x, lower, upper, training)
        x[...] = out
        ctx.save_for_backward(x)
        return x


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
