"""In-place fills and copies: zero_, fill_, copy_, uniform_, normal_ (the last two as in nn.init)."""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import device_of, get_array_module, to_device
from ..random import _gen
from ..tensor import Tensor
from ._util import grad_for, inplace_shape


class Zero(Function):
    """a[...] = 0 in place. Saves nothing; the gradient to a is zero."""

    node_name, array_forward, inplace = "ZeroBackward0", True, True
    checks_internal_overlap = False  # torch's fill kernel: zero_() of an expand() writes its one element

    @staticmethod
    def forward(ctx, a):
        a[...] = 0
        return a

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Fill(Function):
    """a[...] = value (a number) in place. Saves nothing; the gradient to a is zero."""

    node_name, array_forward, inplace, scalar_edges = "FillBackward2", True, True, True
    checks_internal_overlap = False  # torch's fill kernel: fill_() of an expand() writes its one element

    @staticmethod
    def forward(ctx, a, value):
        if hasattr(value, "ndim") and value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        a[...] = value
        return a

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


class FillTensor(Fill):
    """a[...] = value (a 0-d tensor, or a number torch wraps in one: ``a[idx] = 1.5``) in place. Saves nothing;
    a's gradient is zero, value's the sum of the gradient (torch's fill_.Tensor)."""

    node_name = "FillBackward3"
    checks_overlap = False  # torch reads the value as a number before writing: `a.fill_(a[1])` is fine
    checks_internal_overlap = True  # unlike fill_ of a number, torch refuses to write an expand() here

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), (grad.sum() if ctx.needs_input_grad[1] else None)


def _zeros_like(grad):
    # torch's zeros_like(grad): not grad * 0, which is -0.0 for a negative and nan for an infinite gradient
    return Tensor._make(get_array_module(grad._array).zeros_like(grad._array))


class Copy(Function):
    """a[...] = src (broadcast, cast) in place. Saves nothing; src gets the summed gradient."""

    node_name, array_forward, inplace = "torch::autograd::CopyBackwards", True, True  # a C++ node: name() namespaced
    copy_skips_same_data = True

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_meta = (src.shape, src.dtype)
        if src.shape != a.shape:
            inplace_shape(a.shape, src.shape)
            src = get_array_module(a).broadcast_to(src, a.shape)
        a[...] = src
        return a

    @staticmethod
    def backward(ctx, grad):
        ga = _zeros_like(grad) if ctx.needs_input_grad[0] else None
        gs = grad_for(grad, *ctx.src_meta) if ctx.needs_input_grad[1] else None
        return ga, gs


class _Random(Function):
    """a[...] ~ a distribution in place. Saves nothing; the gradient to a is zero."""

    array_forward, inplace = True, True
    _draw = None  # the numpy Generator method: "uniform" or "normal"

    @staticmethod
    def forward(ctx, a, p0, p1, generator=None):
        # drawn by the (seeded, host-side) generator, then placed on a's device
        draw = getattr(_gen(generator), ctx._forward_cls._draw)
        a[...] = to_device(draw(p0, p1, a.shape).astype(a.dtype), device_of(a))
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None, None, None


class Uniform(_Random):
    """a[...] ~ U(low, high) in place. Saves nothing; the gradient to a is zero."""

    node_name, _draw = "UniformBackward0", "uniform"


class Normal(_Random):
    """a[...] ~ N(mean, std**2) in place. Saves nothing; the gradient to a is zero."""

    node_name, _draw = "NormalBackward0", "normal"
