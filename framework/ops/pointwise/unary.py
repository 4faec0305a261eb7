"""Unary elementwise ops: abs, sign, sgn, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, leaky_relu, nan_to_num, angle, positive."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import errstate as _errstate, get_array_module
from ...tensor import Tensor
from .. import backward_ops as _bw, scalar_ops as _scalar
from ...memory_layout import iterator_layout
from .._util import refuse_integer_kernel


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
        return grad * SgnOfAbs.apply(a)  # torch: grad * self.sgn()


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


class SgnOfAbs(Sign):
    """out = sgn(a), equal to sign(a) for real a (torch's abs backward uses sgn). Saves nothing."""

    node_name = "SgnBackward0"

    @staticmethod
    def backward(ctx, grad):
        zeros = Sign.backward(ctx, grad)
        zeros._efficient_zero = True  # torch's sgn_backward of a real tensor: at::_efficientzerotensor
        return zeros


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
    grad_first = True  # torch's backward kernel lists grad before out: grad's layout decides the result's

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
        fwd = ctx._forward_cls
        return (iterator_layout(fwd.dout(g, out), (g, out) if fwd.grad_first else (out, g)),)


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


def _exp_overflows_from(dt) -> float:
    """The smallest x of float dtype dt whose exp is inf."""
    x = dt(np.log(np.finfo(dt).max))
    with np.errstate(over="ignore"):
        while np.isfinite(np.exp(x)):
            x = np.nextafter(x, dt(np.inf))
    return float(x)


_EXP_OVERFLOWS_FROM = {4: _exp_overflows_from(np.float32), 8: _exp_overflows_from(np.float64)}


def _sigmoid_torch(xp, a):
    """torch's sigmoid kernel, 1 / (1 + exp(-a)) in a's dtype (float32 for the half types): exp(-a) overflows to
    inf, so the result is 0, where -a reaches exp's overflow (float32: a <= -88.72...), not the subnormal e**a."""
    out = _sigmoid(xp, a)
    wide = out if out.dtype.itemsize >= 4 else out.astype(np.float32)  # compare half types' values exactly
    a = a if a.dtype == wide.dtype else a.astype(wide.dtype)
    return xp.where(a <= -_EXP_OVERFLOWS_FROM[wide.dtype.itemsize], xp.zeros_like(out), out)


class Sigmoid(_SavesOutput):
    """out = 1 / (1 + e**-a). Saves out."""

    node_name, backward_op = "SigmoidBackward0", _bw.SigmoidBackward
    f = staticmethod(_sigmoid_torch)
    dout = staticmethod(lambda grad, out: grad * out * (1 - out))


def _relu(xp, a):
    if a.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    # max(0, a) into a zero buffer: torch's sign of zero (relu(-0.0) is -0.0; max(a, 0) gives +0.0), and numpy's
    # maximum of two arrays is ~2x faster than with a scalar operand
    out = xp.zeros_like(a)
    # zeros_like follows a's memory order, which for an expand() is not TensorIterator's (torch: C order there)
    out = xp.maximum(out, a, out=out)
    return out if a.flags.c_contiguous else iterator_layout(out, [a])


class Relu(_SavesOutput):
    """out = max(a, 0). Saves out."""

    node_name, backward_op = "ReluBackward0", _bw.ThresholdBackward
    grad_first = False  # threshold_backward(grad, out, 0) iterates over out first
    f = staticmethod(lambda xp, a: _relu(xp, a))
    dout = staticmethod(lambda grad, out: _bw.threshold_grad(grad, out))  # arrays (tensors go to backward_op)


class LeakyRelu(Function):
    """out = a if a > 0 else slope * a. Saves a."""

    node_name, array_forward = "LeakyReluBackward0", True

    @staticmethod
    def forward(ctx, a, slope=0.01):
        refuse_integer_kernel(a, "leaky_relu_cpu")
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
        return iterator_layout(factor, (a, g)), None  # its TensorIterator: self first, then grad


_leaky_slopes = _bw.slopes


class Rsqrt(Function):
    """out = 1 / sqrt(a). Saves out."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

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


def _zeros(grad: Tensor) -> Tensor:
    return Tensor._make(get_array_module(grad._array).zeros_like(grad._array))


class Sgn(Function):
    """out = sign(a) (torch's sgn, which is sign for real numbers); its gradient is zero. Saves a and out (torch's
    sgn_backward takes both, so an in-place change of either still raises)."""

    node_name, array_forward = "SgnBackward0", True

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        if a.dtype.kind not in "fV":
            out = a.copy() if a.dtype.kind == "b" else xp.sign(a)
        else:
            out = xp.subtract(xp.greater(a, 0), xp.less(a, 0), dtype=a.dtype)  # as torch.sign: sgn(NaN) is 0
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # (unpacking checks the versions, as torch's)
        zeros = _zeros(grad)  # torch's sgn_backward of a real tensor: zeros (not grad * 0: inf * 0 is NaN)
        zeros._efficient_zero = True  # at::_efficientzerotensor: the engine's sum with it is a new tensor
        return zeros


def sgn(input: Tensor) -> Tensor:
    return Sgn.apply(input)


class Angle(Function):
    """out = the argument of a real number: pi below 0, 0 at and above, NaN for NaN; float for integers.
    Its gradient is zero. Saves a."""

    node_name, array_forward = "AngleBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)  # torch's angle_backward takes self
        xp = get_array_module(a)
        a = _float(a)
        out = xp.where(a < 0, a.dtype.type(math.pi), a.dtype.type(0))
        return xp.where(xp.isnan(a), a, out).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # (unpacking checks the version, as torch's)
        return _zeros(grad)  # torch's angle_backward of a real input: at::zeros_like(self)


def angle(input: Tensor) -> Tensor:
    return Angle.apply(input)


def positive(input: Tensor) -> Tensor:
    """input itself (torch returns the very tensor); a bool tensor is refused as torch's + operator."""
    if input._array.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


class _Elementwise(Function):
    """out = f(a), computed by the class's ``f(xp, a)``; ``saves`` says whether a ("input") or out ("output")
    is kept, and ``d(grad, saved)`` is the backward formula on tensors (so double backward works)."""

    array_forward = True
    saves = "input"
    f = None
    d = None

    @staticmethod
    def forward(ctx, a):
        fwd = ctx._forward_cls
        xp = get_array_module(a)
        with _errstate(xp, divide="ignore", invalid="ignore", over="ignore"):
            out = fwd.f(xp, _float(a))
        ctx.save_for_backward(a if fwd.saves == "input" else out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (saved,) = ctx.saved_tensors
        return ctx._forward_cls.d(grad, saved)


class NanToNum(Function):
    """out = a with nan, +inf, -inf replaced by numbers. Saves a (the gradient is zero where a is not finite)."""

    node_name, array_forward = "NanToNumBackward0", True

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.save_for_backward(a)
        if a.dtype.kind not in "fV":
            return a.copy()
        out = get_array_module(a).nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf).astype(a.dtype, copy=False)
        # numpy's copy follows an expand()'s memory order, torch's does not
        return out if a.flags.c_contiguous else iterator_layout(out, [a])

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        finite = get_array_module(a._array).isfinite(a._array)
        return grad * Tensor._make(finite), None, None, None


def _half_limits(input: Tensor, posinf: float | None, neginf: float | None) -> tuple:
    """nan_to_num's posinf/neginf defaults for a float16/bfloat16 tensor: its own dtype's largest and lowest finite
    values, as torch's kernel reads them (bfloat16 is computed in float32, whose max would round to inf)."""
    dt = input._array.dtype
    if dt.kind in "fV" and dt.itemsize == 2:
        info = ml_dtypes.finfo(dt)
        posinf = float(info.max) if posinf is None else posinf
        neginf = float(info.min) if neginf is None else neginf
    return posinf, neginf


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    return NanToNum.apply(input, nan, *_half_limits(input, posinf, neginf))


def absolute(input: Tensor) -> Tensor:
    return Abs.apply(input)


def absolute_(input):
    return input.abs_()
