"""Gated and smooth activations: silu, mish, hardswish, gelu (its op classes) and glu."""
from __future__ import annotations

import math

from ...autograd.function import Function
from ... import backend
from ...backend import errstate, get_array_module
from ...tensor import Tensor
from ..pointwise.unary import _sigmoid_torch
from ..pointwise.unary_inplace import _inplace
from ...memory_layout import iterator_layout
from .._util import refuse_integer_kernel, wrap_dim
from ..pointwise import Sigmoid, Tanh, tanh as _ops_tanh, where_op
from ..scalar_ops import AddScalar, MulScalar
from ..shape import cat
from .sigmoid_family import _softplus, Softplus


def _erf_array(a):
    """erf elementwise, through the backend (NumPy has none; CuPy's is cupyx.scipy.special.erf)."""
    return backend.erf(a)


class _Erf(Function):
    """out = erf(a). Saves a."""

    node_name, array_forward = "ErfBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _erf_array(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # torch's 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        return MulScalar.apply((-(a.pow(2))).exp(), 2.0 / math.sqrt(math.pi)) * grad


class _Gelu(Function):
    """out = x * Phi(x) (exact, or torch's tanh approximation). Saves x."""

    node_name, array_forward = "GeluBackward0", True

    @staticmethod
    def forward(ctx, x, approximate):
        refuse_integer_kernel(x, "GeluKernelImpl")
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        xp = get_array_module(x)
        if approximate == "tanh":
            return (0.5 * x * (1 + xp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
        return (0.5 * x * (1 + _erf_array(x / math.sqrt(2.0)))).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _GeluBackward.apply(grad, x, ctx.approximate), None

    @staticmethod
    def backward_arrays(ctx, g):
        (x,) = ctx.saved_arrays
        return _gelu_backward(g, x, ctx.approximate), None


def _gelu_backward(g, x, approximate: str):
    """g * gelu'(x) on arrays (torch's gelu_backward)."""
    xp = get_array_module(x)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = xp.tanh(k * (x + 0.044715 * x ** 3))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    else:
        d = 0.5 * (1 + _erf_array(x / math.sqrt(2.0))) + x * xp.exp(-(x * x) / 2) / math.sqrt(2 * math.pi)
    return iterator_layout((g * d).astype(g.dtype, copy=False), (g, x))  # torch's TensorIterator: grad first


class _GeluBackward(Function):
    """out = g * gelu'(x) (torch's gelu_backward: the gradient a create_graph backward through gelu records,
    as GeluBackwardBackward0). Saves g and x."""

    node_name, array_forward = "GeluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, approximate):
        ctx.save_for_backward(g, x)
        ctx.approximate = approximate
        return _gelu_backward(g, x, approximate)

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        gg = _GeluBackward.apply(grad, x, ctx.approximate) if ctx.needs_input_grad[0] else None
        gx = None
        if ctx.needs_input_grad[1]:  # gelu''(x)
            if ctx.approximate == "tanh":
                k, c = math.sqrt(2 / math.pi), 0.044715
                t = _ops_tanh(k * (x + c * x ** 3))
                s, du = 1 - t * t, k * (1 + 3 * c * x * x)
                d2 = s * du - x * t * s * du * du + 3 * c * k * x * x * s
                gx = grad * g * d2
            else:  # torch's gelu_double_backward, op for op: 2 * pdf - x^2 * pdf, pdf = exp(-x^2 / 2) / sqrt(2 pi)
                input_sq = x * x
                pdf = MulScalar.apply(MulScalar.apply(input_sq, -0.5).exp(), 1 / math.sqrt(2 * math.pi))
                gx = grad * g * (MulScalar.apply(pdf, 2) - input_sq * pdf)
        return gg, gx, None


class Silu(Function):
    """out = a * sigmoid(a). Saves a."""

    node_name, array_forward = "SiluBackward0", True

    @staticmethod
    def forward(ctx, a):
        refuse_integer_kernel(a, "silu_cpu")
        ctx.save_for_backward(a)
        return a * _sigmoid_torch(get_array_module(a), a)  # torch's a / (1 + exp(-a)): -0.0 past exp's overflow

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
        refuse_integer_kernel(a, "mish_cpu")
        ctx.save_for_backward(a)
        xp = get_array_module(a)
        return a * xp.tanh(_softplus(xp, a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        t = Tanh.apply(Softplus.apply(a, 1.0, 20.0))
        return grad * (t + a * Sigmoid.apply(a) * (1 - t * t))


class Hardswish(Function):
    """out = a * relu6(a + 3) / 6. Saves a."""

    node_name, array_forward = "HardswishBackward0", True

    @staticmethod
    def forward(ctx, a):
        refuse_integer_kernel(a, "hardswish_cpu")
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

    @staticmethod
    def backward_arrays(ctx, g):
        (a,) = ctx.saved_arrays  # the formula above on arrays, laid out as torch's hardswish_backward: grad first
        xp = get_array_module(a)
        inner = xp.where(a >= 3, g, g * (a / 3 + 0.5)).astype(g.dtype, copy=False)
        return (iterator_layout(xp.where(a <= -3, xp.zeros((), dtype=g.dtype), inner), (g, a)),)


SiluInplace = _inplace(Silu, "SiluInplace", save_input_copy=True)


MishInplace = _inplace(Mish, "MishInplace", save_input_copy=True)


HardswishInplace = _inplace(Hardswish, "HardswishInplace", save_input_copy=True)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return (SiluInplace if inplace else Silu).apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return (MishInplace if inplace else Mish).apply(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return (HardswishInplace if inplace else Hardswish).apply(input)


def glu_grad(g, x, dim: int):
    """torch's glu_backward on arrays: s * g for the first half, (1 - s) * s * a * g for the second (s = sigmoid(b),
    a|b the halves of x along dim), in its order, written into a fresh contiguous array (as torch's)."""
    xp = get_array_module(x)
    h = x.shape[dim] // 2
    a, b = xp.split(x, [h], axis=dim)
    with errstate(xp, over="ignore"):
        s = (1 / (1 + xp.exp(-b))).astype(x.dtype, copy=False)
    out = xp.empty(x.shape, dtype=x.dtype)
    first, second = xp.split(out, [h], axis=dim)  # (views of out)
    first[...] = s * g
    second[...] = (1 - s) * s * a * g
    return out


class GluBackward(Function):
    """out = torch's glu_backward(g, x, dim) (glu_grad). Saves g and x.

    Its own backward is torch's: glu_double_backward_grad_output for g, glu_double_backward for x.
    """

    node_name, array_forward = "GluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, dim):
        ctx.save_for_backward(g, x)
        ctx.dim = dim
        return glu_grad(g, x, dim)

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        dim, h = ctx.dim, x.shape[ctx.dim] // 2
        gg = gx = None
        if ctx.needs_input_grad[0]:  # the halves of grad * glu_backward(ones, x), added
            tmp = grad * GluBackward.apply(g.new_ones(g.shape), x, dim)
            gg = tmp.narrow(dim, 0, h) + tmp.narrow(dim, h, h)
        if ctx.needs_input_grad[1]:
            a, b = x.narrow(dim, 0, h), x.narrow(dim, h, h)
            sig = b.sigmoid()
            one_sub = 1 - sig  # (RsubBackward1, as C++'s 1 - t)
            sig_one_sub = sig * one_sub
            gg_first, gg_second = grad.narrow(dim, 0, h), grad.narrow(dim, h, h)
            first = gg_second * g * sig_one_sub
            second_order = sig_one_sub * one_sub - sig.pow(2) * one_sub
            second = gg_second * a * g * second_order + gg_first * g * sig_one_sub
            gx = cat([first, second], dim)
        return gg, gx, None


class Glu(Function):
    """out = a * sigmoid(b), a and b the two halves of the input along dim. Saves the input."""

    node_name, array_forward = "GluBackward0", True

    @staticmethod
    def forward(ctx, x, dim):
        refuse_integer_kernel(x, "glu_cpu")
        ctx.save_for_backward(x)
        ctx.dim = dim
        xp, h = get_array_module(x), x.shape[dim] // 2
        a, b = xp.split(x, [h], axis=dim)
        return (a * (1 / (1 + xp.exp(-b)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # under create_graph: torch's GluBackwardBackward0
        (x,) = ctx.saved_tensors
        return GluBackward.apply(grad, x, ctx.dim), None

    @staticmethod
    def backward_arrays(ctx, g):
        (x,) = ctx.saved_arrays
        return glu_grad(g, x, ctx.dim), None


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of input along dim."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    return Glu.apply(input, d)
