"""1-d and 2-d pooling: max_pool, avg_pool and adaptive average pooling."""
from __future__ import annotations

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._separable import SeparableMap
from .._sliding import _col2im, _pad, _single, _windows
from .._util import formula_zeros
from . import pool_nd as _pool


_SMALL_WINDOW = 16  # up to this many window positions, max pools run over (N, C, OH, OW) planes, one per position


def _plane(x, i: int, j: int, stride: tuple, outs: tuple):
    """The (N, C, OH, OW) view of each window's element (i, j): a strided slice, no copy."""
    (sh, sw), (oh, ow) = stride, outs
    return x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]


def _max_over_planes(windows) -> tuple:
    """(max, its position in the window) of each window of an (N, C, OH, OW, kh, kw) view, as torch's kernel
    picks it (the first maximum; a NaN, the last NaN): the windows copied once as kh·kw contiguous (N, C, OH, OW)
    planes, then a running maximum over them, which saves reshaping every window out element by element and the
    take_along_axis gather."""
    xp = get_array_module(windows)
    kh, kw = windows.shape[4:]
    planes = xp.ascontiguousarray(windows.transpose(4, 5, 0, 1, 2, 3)).reshape((kh * kw,) + windows.shape[:4])
    out = planes[0].copy()
    idx = xp.zeros(out.shape, dtype=np.int8)  # (at most _SMALL_WINDOW positions: a quarter of intp's traffic)
    for p in range(1, kh * kw):
        v = planes[p]
        take = (v > out) | (v != v)  # torch's val > max || isnan(val)
        xp.maximum(out, v, out=out)  # = where(take, v, out): NaN propagates, a tie keeps out (the first)
        idx[take] = p
    return out, idx


def _max_pool_2x2(x) -> tuple:
    """(max, its position in the window) of each 2×2 window of x at stride 2, no padding (nn.MaxPool2d(2)), as
    torch picks it: the first maximum, or the last NaN. Taken in two rounds, first between the two elements of
    each window row, then between the rows: the rule is associative, so this picks what torch's scan picks,
    and the second round reads whole contiguous rows of x."""
    xp = get_array_module(x)
    n, c, h, w = x.shape
    oh, ow = h // 2, w // 2
    rows = x[:, :, :2 * oh, :2 * ow].reshape(n, c, oh, 2, 2 * ow)  # a view: only an axis is split
    best, right = [], []
    for r in (0, 1):
        a, b = rows[:, :, :, r, 0::2], rows[:, :, :, r, 1::2]
        take = xp.greater(b, a)
        take |= xp.isnan(b)  # torch's val > max || isnan(val)
        best.append(xp.maximum(a, b))  # = where(take, b, a): NaN propagates, a tie keeps a (the first)
        right.append(take)
    lower = xp.greater(best[1], best[0])
    lower |= xp.isnan(best[1])
    out = xp.maximum(best[0], best[1])
    # position = 2·lower + (the lower row's take if lower else the upper's), on bytes (cheaper than a where)
    right[0] ^= lower & (right[0] ^ right[1])
    idx = xp.add(right[0], lower, dtype=np.int8)
    idx += lower
    return out, idx


_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _kept(g, keep):
    """where(keep, g, 0) exactly (NaN and inf included), as a bitwise and of g's bits with an all-ones or zero
    mask: a ufunc, several times cheaper than a where and recorded by framework.compile without a copy."""
    xp = get_array_module(g)
    bits = _SAME_SIZE_INT[g.dtype.itemsize]
    return xp.bitwise_and(g.view(bits), xp.subtract(0, keep, dtype=bits)).view(g.dtype)


def _non_overlapping(kernel, stride, padding) -> bool:
    """Windows that tile the input without sharing an element: each input element has at most one window."""
    return tuple(kernel) == tuple(stride) and tuple(padding) == (0, 0)


class MaxPool2d(Function):
    """out = max over each window. Saves x and the argmax positions."""

    node_name, array_forward = "MaxPool2DWithIndicesBackward0", True

    @staticmethod
    def forward(ctx, x, kernel, stride, padding):
        xp = get_array_module(x)
        kh, kw = kernel
        ph, pw = padding
        xpad = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-xp.inf) if ph or pw else x
        cols = _windows(xpad, kh, kw, stride, (1, 1))
        n, c, oh, ow = cols.shape[:4]
        # (over a large window, argmax takes a window's first NaN where torch's val > max || isnan(val) keeps the
        # last: a declared deviation, tests/test_special_values.py; picking the last costs a second argmax)
        if (kh, kw) == (2, 2) and _non_overlapping(kernel, stride, padding):
            out, idx = _max_pool_2x2(x)
        elif kh * kw <= _SMALL_WINDOW:
            out, idx = _max_over_planes(cols)
        else:
            flat = cols.reshape(n, c, oh, ow, kh * kw)
            idx = flat.argmax(axis=-1)
            out = xp.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]
        ctx.idx, ctx.conf = idx, (x.shape, kernel, stride, padding, (oh, ow))
        ctx.save_for_backward(x)  # torch's max_pool2d backward keeps its input (and the indices)
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors  # (the version check on the saved input)
        return _MaxPoolBackward.apply(grad, x, ctx.idx, ctx.conf), None, None, None


class _MaxPoolBackward(Function):
    """out = g scattered to each window's argmax (torch's max_pool2d_with_indices_backward): under create_graph
    a node with edges (g, x), MaxPool2DWithIndicesBackwardBackward0, whose gradient in x is zero. Saves the
    indices."""

    node_name, array_forward = "MaxPool2DWithIndicesBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, idx, conf):
        ctx.idx, ctx.conf = idx, conf
        x_shape, (kh, kw), stride, padding, (oh, ow) = conf
        xp = get_array_module(g)
        n, c = x_shape[:2]
        if kh * kw <= _SMALL_WINDOW and _non_overlapping((kh, kw), stride, padding):
            # each input element is in one window at most: its gradient is written once, into its plane
            h, w = x_shape[2:]
            cover = (oh * kh, ow * kw) == (h, w)
            out = xp.empty(x_shape, dtype=g.dtype) if cover else xp.zeros(x_shape, dtype=g.dtype)
            zero = xp.zeros((), dtype=g.dtype)
            for p in range(kh * kw):
                # (+ 0: torch adds into zeros, so a -0 gradient lands as +0)
                xp.add(_kept(g, idx == p), zero, out=_plane(out, p // kw, p % kw, stride, (oh, ow)))
            return out
        if kh * kw <= _SMALL_WINDOW:  # each window position's share added to its plane: no scatter, no col2im
            (ph, pw), (h, w) = padding, x_shape[2:]
            out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=g.dtype)
            zero = xp.zeros((), dtype=g.dtype)
            for p in range(kh * kw):
                plane = _plane(out, p // kw, p % kw, stride, (oh, ow))
                # added, even where windows share no element: torch adds into zeros, so a -0 gradient lands as +0
                plane += xp.where(idx == p, g, zero)
            # contiguous as torch's max_pool2d_with_indices_backward (a padded result would be a view)
            return xp.ascontiguousarray(out[:, :, ph:ph + h, pw:pw + w])
        cols = xp.zeros((n, c, oh, ow, kh * kw), dtype=g.dtype)
        xp.put_along_axis(cols, idx[..., None], g[..., None], axis=-1)
        cols = cols.reshape(n, c, oh, ow, kh, kw)
        # contiguous as torch's max_pool2d_with_indices_backward (col2im leaves the padding's gaps in a view)
        return xp.ascontiguousarray(_col2im(cols, x_shape, kh, kw, stride, (1, 1), padding))

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        gg = _MaxPoolGather.apply(grad, ctx.idx, ctx.conf) if needs[0] else None
        gx = formula_zeros(grad, tuple(grad.shape)) if needs[1] else None  # torch's zeros_like(self): _version 1
        return gg, gx, None, None


class _MaxPoolGather(Function):
    """out = each window's argmax element of a (torch's max_pool_double_backward: a gather). Saves the indices."""

    node_name, array_forward = "MaxPoolDoubleBackward", True

    @staticmethod
    def forward(ctx, a, idx, conf):
        ctx.idx, ctx.conf = idx, conf
        x_shape, (kh, kw), stride, padding, (oh, ow) = conf
        n, c = x_shape[:2]
        flat = _windows(_pad(a, padding), kh, kw, stride, (1, 1)).reshape(n, c, oh, ow, kh * kw)
        return get_array_module(a).take_along_axis(flat, idx[..., None], axis=-1)[..., 0]

    @staticmethod
    def backward(ctx, grad):
        return _MaxPoolBackward.apply(grad, None, ctx.idx, ctx.conf), None, None


class AvgPool2d(Function):
    """out = mean over each window (zero padding counted, as torch's default). Saves x, as torch's."""

    node_name, array_forward = "AvgPool2DBackward0", True

    @staticmethod
    def forward(ctx, x, kernel, stride, padding):
        kh, kw = kernel
        cols = _windows(_pad(x, padding), kh, kw, stride, (1, 1))
        ctx.conf = (x.shape, kernel, stride, padding, cols.shape[2:4])
        ctx.save_for_backward(x)
        return (_pool.window_sum(cols, 2) / (kh * kw)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors  # (the version check on the saved input)
        return _AvgPoolBackward.apply(grad, x, ctx.conf), None, None, None


class _AvgPoolBackward(Function):
    """out = g / (kh kw) spread over each window (torch's avg_pool2d_backward): under create_graph a node with
    edges (g, x), AvgPool2DBackwardBackward0, whose gradient in g is avg_pool2d again and in x zero. Saves
    nothing."""

    node_name, array_forward = "AvgPool2DBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, conf):
        ctx.conf = conf
        x_shape, (kh, kw), stride, padding, (oh, ow) = conf
        xp = get_array_module(g)
        g = g / (kh * kw)
        cols = xp.broadcast_to(g[..., None, None], g.shape + (kh, kw))
        return _col2im(cols, x_shape, kh, kw, stride, (1, 1), padding)

    @staticmethod
    def backward(ctx, grad):
        x_shape, kernel, stride, padding, _ = ctx.conf
        needs = ctx.needs_input_grad
        gg = AvgPool2d.apply(grad, kernel, stride, padding) if needs[0] else None
        gx = formula_zeros(grad, tuple(grad.shape)) if needs[1] else None  # torch's zeros_like(self): _version 1
        return gg, gx, None


def _adaptive_matrix(n_out: int, n_in: int) -> np.ndarray:
    """Row i averages input cells floor(i n_in / n_out) .. ceil((i + 1) n_in / n_out) - 1, as torch's bins."""
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        start, end = (i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)
        m[i, start:end] = 1.0 / (end - start)
    return m


AdaptiveAvgPool2D = type("AdaptiveAvgPool2D", (SeparableMap,), {
    "node_name": "AdaptiveAvgPool2DBackward0", "saves_input": True,
    "__doc__": "out = the mean over each adaptive bin (separable: rows, then columns). Saves x, as torch's."})


def _pool1d_args(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{name}() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    if dilation != 1 or ceil_mode:
        raise NotImplementedError(f"{name}: dilation and ceil_mode are not supported")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else _single(stride, "stride")
    return (1, k), (1, s), (0, _single(padding, "padding"))


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor:
    if return_indices:
        raise NotImplementedError("max_pool1d: return_indices is not supported")
    kernel, stride, padding = _pool1d_args("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode)
    x = input.unsqueeze(-2)
    if x.ndim == 3:
        out = MaxPool2d.apply(x.unsqueeze(0), kernel, stride, padding).squeeze(0).squeeze(-2)
    else:
        out = MaxPool2d.apply(x, kernel, stride, padding).squeeze(-2)
    if not out.requires_grad:  # torch: without a gradient to track, max_pool1d_impl's result is no view
        return Tensor._make(out._array.copy())
    return out


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    if not count_include_pad:
        raise NotImplementedError("avg_pool1d: count_include_pad=False is not supported")
    kernel, stride, padding = _pool1d_args("avg_pool1d", input, kernel_size, stride, padding, 1, ceil_mode)
    x = input.unsqueeze(-2)
    if x.ndim == 3:
        return AvgPool2d.apply(x.unsqueeze(0), kernel, stride, padding).squeeze(0).squeeze(-2)
    return AvgPool2d.apply(x, kernel, stride, padding).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    sizes = (output_size, output_size) if isinstance(output_size, int) or output_size is None else tuple(output_size)
    sizes = tuple(n if s is None else int(s) for s, n in zip(sizes, input.shape[-2:]))
    if sizes == (1, 1):  # torch takes the mean for a global pool (MeanBackward1)
        return input.mean(dim=(-1, -2), keepdim=True)
    mats = [_adaptive_matrix(o, n) for o, n in zip(sizes, input.shape[-2:])]
    return AdaptiveAvgPool2D.apply(input, mats)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """The mean over each adaptive bin of the last three dims (a global pool is a mean, as torch's)."""
    if _amp.on and autocast_applies("adaptive_avg_pool3d", input, output_size):
        return autocast_run("adaptive_avg_pool3d", adaptive_avg_pool3d, input, output_size)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    sizes = _pool.adaptive_sizes(output_size, tuple(input.shape[-3:]))
    if sizes == (1, 1, 1):
        return input.mean(dim=(-3, -2, -1), keepdim=True)
    mats = [_adaptive_matrix(o, n) for o, n in zip(sizes, input.shape[-3:])]
    return _pool.AdaptiveAvgPool3D.apply(input, mats)
