"""1-d convolution (conv1d), through the N-d convolution."""
from __future__ import annotations

import types

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor
from .._sliding import _single
from .convolution_2d import _conv_backward_arrays, _conv_double_backward, Conv2d, StringPadding
from .convolution_nd import conv_nd


class Conv1d(Function):
    """out = cross-correlation of x (N,C,L) with w (O,C,k) + b. Saves x and w."""

    node_name, array_forward = "ConvolutionBackward0", True
    none_edges = True  # torch's node has a bias edge even without a bias: (None, 0)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation):
        if w.ndim != 3:
            raise RuntimeError(f"Expected 3-dimensional weight for 3-dimensional input {list(x.shape)}, but got "
                               f"weight of size {list(w.shape)} instead")
        # (a padding from 'same'/'valid' stays marked as such: torch checks dtypes differently then)
        padding_2d = StringPadding((0, padding[0])) if type(padding) is StringPadding else (0, padding)
        out = Conv2d.forward(ctx, x[:, :, None, :], w[:, :, None, :], b, (1, stride), padding_2d,
                                   (1, dilation))
        ctx.save_for_backward(x, w)  # the 3-D inputs themselves, so in-place changes to them are caught
        return out[:, :, 0, :]

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: torch's ConvolutionBackwardBackward0 node, itself differentiable
            needs = ctx.needs_input_grad
            gx, gw, gb = _Conv1dBackward.apply(grad, x, w, ctx.conf)
            return gx if needs[0] else None, gw if needs[1] else None, gb if needs[2] else None, None, None, None
        as_2d = types.SimpleNamespace(  # conv2d's backward on height-1 views of the same arrays
            saved_tensors=(Tensor._make(x._array[:, :, None, :]), Tensor._make(w._array[:, :, None, :])),
            conf=ctx.conf, needs_input_grad=ctx.needs_input_grad)
        gx, gw, gb = Conv2d.backward(as_2d, Tensor._make(grad._array[:, :, None, :]))[:3]
        gx = None if gx is None else Tensor._make(gx._array[:, :, 0, :])
        gw = None if gw is None else Tensor._make(gw._array[:, :, 0, :])
        return gx, gw, gb, None, None, None


class _Conv1dBackward(Function):
    """(gx, gw, gb) = conv1d's gradients for the output gradient g: conv.py's 2-D node on height-1 views
    (torch's ConvolutionBackwardBackward0 under create_graph). Saves g, x and w."""

    node_name, array_forward = "ConvolutionBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, w, conf):
        ctx.save_for_backward(g, x, w)
        ctx.conf = conf
        ctx.set_materialize_grads(False)  # an output with no gradient gives no term, as conv2d's node
        gx, gw, gb = _conv_backward_arrays(g[:, :, None, :], x[:, :, None, :], w[:, :, None, :], conf,
                                                 (True, True, True))
        return gx[:, :, 0, :], gw[:, :, 0, :], gb

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        g, x, w = ctx.saved_tensors
        grads = _conv_double_backward(*(None if t is None else t.unsqueeze(2) for t in (g, x, w, ggx, ggw)),
                                            ggb, ctx.conf, ctx.needs_input_grad)[:3]
        return (*(None if d is None else d.squeeze(2) for d in grads), None)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if _amp.on and autocast_applies("conv1d", input, weight, bias, stride, padding, dilation, groups):
        return autocast_run("conv1d", conv1d, input, weight, bias, stride, padding, dilation, groups)
    if groups != 1:  # grouped (depthwise): the N-d convolution's grouped kernels
        return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{list(input.shape)}")
    dilation = _single(dilation, "dilation")
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and dilation * (weight.shape[2] - 1) % 2:  # padded first, as torch's
            return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")
        padding = StringPadding((0 if padding == "valid" else dilation * (weight.shape[2] - 1) // 2,))
    else:
        padding = _single(padding, "padding")
    if input.ndim == 2:  # unbatched: torch adds the batch dim and squeezes it off again
        return Conv1d.apply(input.unsqueeze(0), weight, bias, _single(stride, "stride"), padding, dilation).squeeze(0)
    return Conv1d.apply(input, weight, bias, _single(stride, "stride"), padding, dilation)
