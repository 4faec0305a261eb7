"""F.unfold and F.fold: sliding blocks of an image as columns (im2col) and back (col2im)."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._sliding import windows
from .convolution_nd import _col2im, _pad


def _pair(v) -> tuple:
    return tuple(int(i) for i in v) if isinstance(v, (tuple, list)) else (int(v), int(v))


def _blocks(spatial, kernel, dilation, padding, stride) -> tuple:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(spatial, kernel, dilation, padding, stride))


class Im2Col(Function):
    """out (N, C*kh*kw, L) = every sliding (kh, kw) block of the zero-padded x as a column. Saves nothing."""

    node_name, array_forward = "Im2ColBackward0", True

    @staticmethod
    def forward(ctx, x, kernel, dilation, padding, stride):
        xp = get_array_module(x)
        xb = x if x.ndim == 4 else x[None]
        n, c = xb.shape[:2]
        outs = _blocks(xb.shape[2:], kernel, dilation, padding, stride)
        cols = windows(_pad(xb, padding), kernel, stride, dilation, outs)  # (N, C, oh, ow, kh, kw)
        out = xp.ascontiguousarray(cols.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kernel[0] * kernel[1], -1)
        ctx.conf = (tuple(x.shape[-2:]), kernel, dilation, padding, stride)
        return out if x.ndim == 4 else out[0]

    @staticmethod
    def backward(ctx, grad):
        return Col2Im.apply(grad, *ctx.conf), None, None, None, None


class Col2Im(Function):
    """out (N, C, H, W) = the columns (N, C*kh*kw, L) summed back into their blocks' places. Saves nothing."""

    node_name, array_forward = "Col2ImBackward0", True

    @staticmethod
    def forward(ctx, cols, output_size, kernel, dilation, padding, stride):
        cb = cols if cols.ndim == 3 else cols[None]
        n = cb.shape[0]
        kh, kw = kernel
        outs = _blocks(output_size, kernel, dilation, padding, stride)
        blocks = cb.reshape(n, -1, kh, kw, outs[0], outs[1]).transpose(0, 1, 4, 5, 2, 3)
        c = blocks.shape[1]
        out = get_array_module(cols).ascontiguousarray(
            _col2im(blocks, (n, c) + tuple(output_size), kernel, stride, dilation, padding))
        ctx.conf = (kernel, dilation, padding, stride)
        return out if cols.ndim == 3 else out[0]

    @staticmethod
    def backward(ctx, grad):
        return Im2Col.apply(grad, *ctx.conf), None, None, None, None, None


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """(N, C*kh*kw, L): the sliding blocks of an (N, C, H, W) or (C, H, W) input as columns."""
    kernel, dilation, padding, stride = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    if input.ndim not in (3, 4):
        if input.ndim < 3:  # torch reads input.size(2) first
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                             f"{max(input.ndim, 1) - 1}], but got 2)")
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and non-zero dimensions "
                           f"for input, but got: {list(input.shape)}")
    blocks = _blocks(input.shape[-2:], kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(input.shape[-2:])}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as {blocks}, but its components must be at least one.")
    return Im2Col.apply(input, kernel, dilation, padding, stride)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """(N, C, H, W): columns (N, C*kh*kw, L) summed back into an image of ``output_size`` (overlaps add up)."""
    size, kernel = _pair(output_size), _pair(kernel_size)
    dilation, padding, stride = _pair(dilation), _pair(padding), _pair(stride)
    if input.ndim not in (2, 3) or any(n == 0 for n in input.shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    c_dim, l_dim = input.ndim - 2, input.ndim - 1
    if input.shape[c_dim] % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={input.shape[c_dim]} and kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != input.shape[l_dim]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"stride={stride}, expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={input.shape[l_dim]}.")
    return Col2Im.apply(input, size, kernel, dilation, padding, stride)
