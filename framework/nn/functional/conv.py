"""Convolutions of torch.nn.functional: conv2d and conv_transpose2d (the 1-d and 3-d forms are the ops of framework/ops/conv, re-exported by the package)."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...ops.conv import convolution_2d as _conv, convolution_nd as _conv_nd


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    if _amp.on and autocast_applies("conv2d", x, weight, bias, stride, padding, dilation, groups):
        return autocast_run("conv2d", conv2d, x, weight, bias, stride, padding, dilation, groups)
    if groups != 1:  # grouped (depthwise): the N-d convolution's grouped kernels
        return _conv_nd.conv_nd(x, weight, bias, stride, padding, dilation, groups, 2, "conv2d")
    if isinstance(padding, str):  # marked: torch checks the dtypes differently for a string padding
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(d * (k - 1) % 2 for d, k in zip(_pair(dilation), weight.shape[2:])):
            return _conv_nd.conv_nd(x, weight, bias, stride, padding, dilation, groups, 2, "conv2d")  # padded first
        padding = _conv.StringPadding((0, 0) if padding == "valid" else
                                      tuple(d * (k - 1) // 2 for d, k in zip(_pair(dilation), weight.shape[2:])))
    else:
        padding = _pair(padding)
    return _conv.Conv2d.apply(x, weight, bias, _pair(stride), padding, _pair(dilation))


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1):
    if _amp.on and autocast_applies("conv_transpose2d", x, weight, bias, stride, padding, output_padding, groups,
                                    dilation):
        return autocast_run("conv_transpose2d", conv_transpose2d, x, weight, bias, stride, padding, output_padding,
                            groups, dilation)
    if groups != 1:
        return _conv_nd.conv_transpose_nd(x, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                                          "conv_transpose2d")
    return _conv.ConvTranspose2d.apply(x, weight, bias, _pair(stride), _pair(padding), _pair(output_padding),
                                       _pair(dilation))
