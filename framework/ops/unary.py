"""Elementwise functions: abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu, leaky_relu, clamp.

Each docstring says what the op saves, which is exactly what torch's saves (exp, sqrt, tanh, sigmoid
and relu keep their *output*; the others their input), so in-place changes raise when torch's do.
"""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ..tensor import Tensor


def _float(a):
    """Integer inputs to transcendental functions give float32, as in torch."""
    if a.dtype.kind != "f":
        from .. import dtypes

        return a.astype(dtypes.default_float.np)
    return a


class Abs(Function):
    """out = |a|. Saves a."""

    node_name, array_forward = "AbsBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return abs(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.sign()


class Sign(Function):
    """out = sign(a). Saves nothing; its gradient is zero."""

    node_name, array_forward = "SignBackward0", True

    @staticmethod
    def forward(ctx, a):
        return get_array_module(a).sign(a)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class Exp(Function):
    """out = e**a. Saves out."""

    node_name, array_forward = "ExpBackward0", True

    @staticmethod
    def forward(ctx, a):
        out = get_array_module(a).exp(_float(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out

    @staticmethod
    def backward_arrays(ctx, g):
        (out,) = ctx.saved_arrays
        return (g * out,)


class Log(Function):
    """out = ln(a). Saves a."""

    node_name, array_forward = "LogBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _errstate(get_array_module(a), divide="ignore", invalid="ignore"):
            return get_array_module(a).log(_float(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Sqrt(Function):
    """out = sqrt(a). Saves out."""

    node_name, array_forward = "SqrtBackward0", True

    @staticmethod
    def forward(ctx, a):
        with _errstate(get_array_module(a), invalid="ignore"):
            out = get_array_module(a).sqrt(_float(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad / (2 * out)


class Sin(Function):
    """out = sin(a). Saves a."""

    node_name, array_forward = "SinBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return get_array_module(a).sin(_float(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Function):
    """out = cos(a). Saves a."""

    node_name, array_forward = "CosBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return get_array_module(a).cos(_float(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()


class Tanh(Function):
    """out = tanh(a). Saves out."""

    node_name, array_forward = "TanhBackward0", True

    @staticmethod
    def forward(ctx, a):
        out = get_array_module(a).tanh(_float(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)

    @staticmethod
    def backward_arrays(ctx, g):
        (out,) = ctx.saved_arrays
        return (g * (1 - out * out),)


def _sigmoid(xp, a):
    # numerically stable on both tails: exp of a non-positive number only
    a = _float(a)
    e = xp.exp(-xp.abs(a))
    return xp.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


class Sigmoid(Function):
    """out = 1 / (1 + e**-a). Saves out."""

    node_name, array_forward = "SigmoidBackward0", True

    @staticmethod
    def forward(ctx, a):
        out = _sigmoid(get_array_module(a), a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out * (1 - out)

    @staticmethod
    def backward_arrays(ctx, g):
        (out,) = ctx.saved_arrays
        return (g * out * (1 - out),)


class Relu(Function):
    """out = max(a, 0). Saves out."""

    node_name, array_forward = "ReluBackward0", True

    @staticmethod
    def forward(ctx, a):
        out = get_array_module(a).maximum(a, 0).astype(a.dtype, copy=False)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (out > 0)

    @staticmethod
    def backward_arrays(ctx, g):
        (out,) = ctx.saved_arrays
        return (g * (out > 0),)


class LeakyRelu(Function):
    """out = a if a > 0 else slope * a. Saves a."""

    node_name, array_forward = "LeakyReluBackward0", True

    @staticmethod
    def forward(ctx, a, slope=0.01):
        ctx.save_for_backward(a)
        ctx.slope = slope
        if 0 <= slope <= 1:  # then leaky_relu(a) == max(a, slope * a): one pass fewer than where()
            return get_array_module(a).maximum(a, a * slope)
        return get_array_module(a).where(a > 0, a, a * slope).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # the slope mask is piecewise constant in a, so a constant tensor keeps double backward exact
        xp = get_array_module(a._array)
        mask = xp.where(a._array > 0, 1.0, ctx.slope).astype(grad._array.dtype, copy=False)
        return grad * Tensor._make(mask), None

    @staticmethod
    def backward_arrays(ctx, g):
        (a,) = ctx.saved_arrays
        return get_array_module(a).where(a > 0, g, g * ctx.slope), None


class Clamp(Function):
    """out = min(max(a, lo), hi). Saves a."""

    node_name, array_forward = "ClampBackward1", True

    @staticmethod
    def forward(ctx, a, lo=None, hi=None):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        out = get_array_module(a).clip(a, lo, hi)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = a >= ctx.lo
        if ctx.hi is not None:
            upper = a <= ctx.hi
            mask = upper if mask is None else mask & upper
        return grad * mask, None, None


# ---- in-place twins (same node names; they save their output where the out-of-place op does) -----

def _inplace(base, name, save_input_copy=False):
    """Make ``base``'s in-place twin: compute out-of-place, then write the result into arg 0."""

    def forward(ctx, a, *args):
        out = base.forward(ctx, a, *args)
        if save_input_copy:  # backward needs the old input: keep a copy, as torch's original_self
            ctx.save_for_backward(a.copy())
            a[...] = out
        else:
            a[...] = out
            if ctx._to_save and ctx._to_save[0] is out:
                ctx.save_for_backward(a)  # the output now lives in a's array
        return a

    return type(name, (base,), {"node_name": base.node_name, "inplace": True,
                                "forward": staticmethod(forward), "__doc__": f"In-place {base.__doc__}"})


ExpInplace = _inplace(Exp, "ExpInplace")
SqrtInplace = _inplace(Sqrt, "SqrtInplace")
TanhInplace = _inplace(Tanh, "TanhInplace")
SigmoidInplace = _inplace(Sigmoid, "SigmoidInplace")
ReluInplace = _inplace(Relu, "ReluInplace")
AbsInplace = _inplace(Abs, "AbsInplace", save_input_copy=True)
LogInplace = _inplace(Log, "LogInplace", save_input_copy=True)
SinInplace = _inplace(Sin, "SinInplace", save_input_copy=True)
CosInplace = _inplace(Cos, "CosInplace", save_input_copy=True)
class LeakyReluInplace(LeakyRelu):
    """In-place leaky_relu_: saves its *output* (torch's LeakyReluBackward1), whose sign is the input's."""

    node_name, inplace = "LeakyReluBackward1", True

    @staticmethod
    def forward(ctx, a, slope=0.01):
        if slope < 0:
            raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is "
                               "not supported. This is caused by calling in-place forward function with a negative "
                               "slope, please call out-of-place version instead.")
        a[...] = LeakyRelu.forward(ctx, a, slope)
        ctx.save_for_backward(a)
        return a
ClampInplace = _inplace(Clamp, "ClampInplace", save_input_copy=True)
