"""The ELU family: elu, selu, celu and their in-place forms."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...backend import errstate as _errstate, get_array_module
from ...tensor import Tensor
from ...memory_layout import iterator_layout
from .._util import scalar_type_name
from ..scalar_ops import MulScalar
from .relu_family import _mask


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
        out = xp.where(x <= 0, neg, g * poscoef).astype(g.dtype, copy=False)  # NaN: g * scale, as torch
        return iterator_layout(out, (g, x))  # torch's TensorIterator: grad first

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
