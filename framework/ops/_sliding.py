"""Sliding-window helpers shared by convolution, pooling and unfold: int-or-tuple arguments (ntuple), output sizes, strided window views, padding and col2im."""
from __future__ import annotations

from ..backend import get_array_module


def _pair(v) -> tuple:
    return (v, v) if isinstance(v, int) else tuple(v)


def _windows(x, kh, kw, stride, dilation):
    """(N, C, OH, OW, kh, kw) strided view of the (already padded) input."""
    xp = get_array_module(x)
    n, c, h, w = x.shape
    sh, sw = stride
    dh, dw = dilation
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    s = x.strides
    # overlapping windows share memory, so this view is only ever read (CuPy's as_strided has no writeable=)
    return xp.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow, kh, kw), (s[0], s[1], s[2] * sh, s[3] * sw, s[2] * dh, s[3] * dw))


def _pad(x, padding):
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    xp = get_array_module(x)
    return xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))


def _col2im(cols, x_shape, kh, kw, stride, dilation, padding):
    """Sum (N, C, OH, OW, kh, kw) window gradients back into an (N, C, H, W) input gradient."""
    xp = get_array_module(cols)
    n, c, h, w = x_shape
    ph, pw = padding
    sh, sw = stride
    dh, dw = dilation
    out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    oh, ow = cols.shape[2], cols.shape[3]
    for i in range(kh):
        for j in range(kw):
            hs, ws = i * dh, j * dw
            view = out[:, :, hs:hs + sh * oh:sh, ws:ws + sw * ow:sw]
            view += cols[:, :, :, :, i, j]  # (on a named view: no setitem, which a compiled replay would copy)
    return out[:, :, ph:ph + h, pw:pw + w]


def _single(v, name: str = "") -> int:
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 1 values to match the "
                               f"convolution dimensions, but got {name}={list(v)}")
        return int(v[0])
    return int(v)


def ntuple(v, n: int, name: str = "") -> tuple:
    """An int repeated n times, or a length-n sequence of ints (a length-1 one is repeated, as torch)."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * n
        if len(v) != n:
            raise RuntimeError(f"{name} must either be a single int, or a tuple of {n} ints")
        return tuple(int(i) for i in v)
    return (int(v),) * n


def out_size(length: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape: a last window starting in the right padding is dropped under ceil_mode."""
    span = length + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (o - 1) * s >= length + p:
        o -= 1
    return o


def windows(x, kernel: tuple, stride: tuple, dilation: tuple, outs: tuple):
    """(N, C, *outs, *kernel) strided view of the (already padded) (N, C, *spatial) array; read only."""
    xp = get_array_module(x)
    st = x.strides
    k = len(kernel)
    shape = tuple(x.shape[:2]) + tuple(outs) + tuple(kernel)
    strides = tuple(st[:2]) + tuple(st[2 + i] * stride[i] for i in range(k)) + \
        tuple(st[2 + i] * dilation[i] for i in range(k))
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def _pads(spatial, kernel, stride, padding, dilation, outs) -> list:
    """(left, right) pads per spatial dim: the padding, and on the right whatever a ceil_mode window needs more."""
    return [(p, max(p, (o - 1) * s + d * (kk - 1) + 1 - n - p))
            for n, kk, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, outs)]
