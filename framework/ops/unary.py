"""Elementwise functions: abs, sign, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, leaky_relu, clamp.

Each docstring says what the op saves, which is exactly what torch's saves (exp, sqrt, tanh, sigmoid
and relu keep their *output*; the others their input), so in-place changes raise when torch's do.
The op classes come first, then the functional API; the in-place twins are in unary_inplace.py.
"""
from __future__ import annotations

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function
from ..backend import errstate as _errstate
from ..backend import get_array_module
from ._util import binary_dtype
from . import backward_ops as _bw, scalar_ops as _scalar
from .combine import where_op
from ..tensor import Tensor


def _float(a):
    """Integer inputs to transcendental functions give float32, as in torch."""
    if a.dtype.kind not in "fV":
        return a.astype(dtypes.default_float.np)
    return a


class Abs(Function):
    """out = |a|. Saves a."""

    node_name, array_forward = "AbsBackward0", True

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        ctx.save_for_backward(a)
        return get_array_module(a).abs(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * Sgn.apply(a)  # torch: grad * self.sgn()


class Sign(Function):
    """out = sign(a). Saves nothing; its gradient is zero."""

    node_name, array_forward = "SignBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        if a.dtype.kind not in "fV":
            return xp.sign(a)
        # torch's (0 < a) - (a < 0): sign(NaN) is 0 there (numpy's is NaN), sign(-0.0) is +0.0
        return xp.subtract(xp.greater(a, 0), xp.less(a, 0), dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        # torch's zeros_like(grad): grad * 0 gave NaN for an infinite grad and -0.0 for a negative one
        return Tensor._make(get_array_module(grad._array).zeros(grad.shape, dtype=grad._array.dtype))


class Sgn(Sign):
    """out = sgn(a), equal to sign(a) for real a (torch's abs backward uses sgn). Saves nothing."""

    node_name = "SgnBackward0"


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
        return grad / _scalar.MulScalar.apply(out, 2)  # torch: grad / (2 * result), a MulBackward1 node


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
        return grad * -a.sin()  # torch's grad * -self.sin(): NegBackward0 under create_graph


class _SavesOutput(Function):
    """out = f(a) where the derivative is a function of out alone: forward saves out, and one formula,
    ``dout(grad, out)``, serves both backward (on tensors) and backward_arrays (on raw arrays)."""

    array_forward = True

    @staticmethod
    def forward(ctx, a):
        out = ctx._forward_cls.f(get_array_module(a), a)
        ctx.save_for_backward(out)
        return out

    backward_op = None  # an op computing dout as one node (torch's double-backward node), if torch has one

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        fwd = ctx._forward_cls
        if fwd.backward_op is not None:
            return fwd.backward_op.apply(grad, out)
        return fwd.dout(grad, out)

    @staticmethod
    def backward_arrays(ctx, g):
        (out,) = ctx.saved_arrays
        return (ctx._forward_cls.dout(g, out),)


class Exp(_SavesOutput):
    """out = e**a. Saves out."""

    node_name = "ExpBackward0"
    f = staticmethod(lambda xp, a: xp.exp(_float(a)))
    dout = staticmethod(lambda grad, out: grad * out)


class Tanh(_SavesOutput):
    """out = tanh(a). Saves out."""

    node_name, backward_op = "TanhBackward0", _bw.TanhBackward
    f = staticmethod(lambda xp, a: xp.tanh(_float(a)))
    dout = staticmethod(lambda grad, out: grad * (1 - out * out))


def _sigmoid(xp, a):
    # numerically stable on both tails: exp of a non-positive number only
    a = _float(a)
    e = xp.exp(-xp.abs(a))
    return xp.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


class Sigmoid(_SavesOutput):
    """out = 1 / (1 + e**-a). Saves out."""

    node_name, backward_op = "SigmoidBackward0", _bw.SigmoidBackward
    f = staticmethod(_sigmoid)
    dout = staticmethod(lambda grad, out: grad * out * (1 - out))


def _relu(xp, a):
    if a.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    # max(0, a) into a zero buffer: torch's sign of zero (relu(-0.0) is -0.0; max(a, 0) gives +0.0), and numpy's
    # maximum of two arrays is ~2x faster than with a scalar operand
    out = xp.zeros_like(a)
    return xp.maximum(out, a, out=out)


class Relu(_SavesOutput):
    """out = max(a, 0). Saves out."""

    node_name, backward_op = "ReluBackward0", _bw.ThresholdBackward
    f = staticmethod(lambda xp, a: _relu(xp, a))
    dout = staticmethod(lambda grad, out: _bw.threshold_grad(grad, out))  # arrays (tensors go to backward_op)


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
        return _bw.LeakyReluBackward.apply(grad, a, ctx.slope), None  # one node under create_graph, as torch

    @staticmethod
    def backward_arrays(ctx, g):
        (a,) = ctx.saved_arrays
        factor = _leaky_slopes(get_array_module(a), a, ctx.slope, g.dtype)
        factor *= g  # g where a > 0, else g * slope: torch's leaky_relu_backward, bit for bit
        return factor, None


_leaky_slopes = _bw.slopes


class Clamp(Function):
    """out = min(max(a, lo), hi). Saves a."""

    node_name, array_forward = "ClampBackward1", True

    @staticmethod
    def forward(ctx, a, lo=None, hi=None):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        dt = a.dtype  # torch promotes: int_tensor.clamp(0.5) is float32
        for bound in (lo, hi):
            if bound is not None:
                dt = binary_dtype(a.astype(dt, copy=False), bound)
        xp, out = get_array_module(a), a.astype(dt, copy=False)
        # the bound first: numpy's maximum/minimum return the second operand on a tie, so clamp(-0.0, min=0) keeps
        # -0.0 as torch's max(a, lo) does (np.clip gives +0.0); a NaN stays NaN
        if lo is not None:
            out = xp.maximum(lo, out)
        if hi is not None:
            out = xp.minimum(hi, out)
        return out.astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = a >= ctx.lo
        if ctx.hi is not None:
            upper = a <= ctx.hi
            mask = upper if mask is None else mask & upper
        # torch's clamp_backward: where(mask, grad, 0), a WhereBackward0 node under create_graph
        zero = Tensor._make(get_array_module(grad._array).zeros((), dtype=grad._array.dtype))
        return where_op(mask, grad, zero), None, None


class Rsqrt(Function):
    """out = 1 / sqrt(a). Saves out."""

    node_name, array_forward = "RsqrtBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        with _errstate(xp, divide="ignore", invalid="ignore"):
            out = 1 / xp.sqrt(_float(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        # torch's -0.5 * grad * result.pow(3): a Scalar product (MulBackward1) and a PowBackward0
        return _scalar.MulScalar.apply(grad, -0.5) * out.pow(3)


# ---- functional API ---------------------------------------------------------------------------------

def abs(a):
    return Abs.apply(a)


def sign(a):
    return Sign.apply(a)


def exp(a):
    if _amp.on and autocast_applies("exp", a):
        return autocast_run("exp", exp, a)
    return Exp.apply(a)


def log(a):
    if _amp.on and autocast_applies("log", a):
        return autocast_run("log", log, a)
    return Log.apply(a)


def sqrt(a):
    return Sqrt.apply(a)


def rsqrt(a):
    if _amp.on and autocast_applies("rsqrt", a):
        return autocast_run("rsqrt", rsqrt, a)
    return Rsqrt.apply(a)


def sin(a):
    return Sin.apply(a)


def cos(a):
    return Cos.apply(a)


def tanh(a):
    return Tanh.apply(a)


def sigmoid(a):
    return Sigmoid.apply(a)


def relu(a):
    return Relu.apply(a)


def leaky_relu(a, negative_slope: float = 0.01):
    return LeakyRelu.apply(a, negative_slope)


def clamp(a, min=None, max=None):
    return Clamp.apply(a, min, max)


clip = clamp
