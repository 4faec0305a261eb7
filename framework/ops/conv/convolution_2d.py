"""2-d convolution and transposed convolution as im2col + one GEMM (conv2d, conv_transpose2d), with their backward and double-backward nodes."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import backend, dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from .._sliding import _col2im, _pad, _windows
from .._util import c_type_name, scalar_type_name, type_string


def _check_input(x, weight_in_channels, name="conv2d", groups=1):
    if x.ndim != 4:
        raise RuntimeError(f"Expected 4D (batched) input to {name}, but got input of size: {list(x.shape)}")
    if x.shape[1] != weight_in_channels * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size [.., {weight_in_channels}, ..], expected input"
                           f"{list(x.shape)} to have {weight_in_channels * groups} channels, but got {x.shape[1]} "
                           "channels instead")


def _uses_mkldnn(x, w) -> bool:
    """Whether torch's CPU convolution picks its MKLDNN backend for a float32 (N,C,H,W) input and an ungrouped
    (O,C,kh,kw) weight (ConvParams::use_mkldnn, taking torch as multi-threaded, its default on a multi-core machine)."""
    n, kh, kw = x.shape[0], w.shape[2], w.shape[3]
    if x.dtype == dtypes.BFLOAT16_NP:  # as torch's mkldnn_bf16_device_check on a CPU with AVX-512
        return True
    return x.dtype == np.float32 and ((kh > 3 and kw > 3) or n > 1 or x.size > 20480)


class StringPadding(tuple):
    """Padding computed from 'same' or 'valid': torch's _convolution_mode then checks only the weight's dtype,
    and the bias's on its MKLDNN path alone (elsewhere a bias of another dtype is added in the input's)."""


def mkldnn_mismatch(x, other, name: str) -> RuntimeError:
    """torch's MKLDNN backend's error for a weight or bias whose dtype is not the input's."""
    return RuntimeError(f"Input type ({type_string(x.dtype)}) and {name} type ({type_string(other.dtype)}) should be "
                        f"the same or input should be a MKLDNN tensor and {name} is a dense tensor")


def _check_dtypes(x, w, b, mkldnn: bool = False, string_padding: bool = False) -> None:
    """torch's CPU checks, in its order: the bias's dtype against the input's, then the weight's (whose text
    depends on the backend torch picks); with a string padding, the weight's, then the MKLDNN bias check."""
    if string_padding:
        _check_dtypes(x, w, None, mkldnn)
        if b is not None and b.dtype != x.dtype and mkldnn:
            raise mkldnn_mismatch(x, b, "bias")
        return
    if b is not None and b.dtype != x.dtype:
        raise RuntimeError(f"Input type ({c_type_name(x.dtype)}) and bias type ({c_type_name(b.dtype)}) should be "
                           "the same")
    if w.dtype != x.dtype and mkldnn:
        raise mkldnn_mismatch(x, w, "weight")
    if w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found {scalar_type_name(w.dtype)}")


class Conv2d(Function):
    """out = cross-correlation of x (N,C,H,W) with w (O,C,kh,kw) + b. Saves x and w."""

    node_name, array_forward = "ConvolutionBackward0", True
    none_edges = True  # torch's node has a bias edge even without a bias: (None, 0)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation):
        _check_input(x, w.shape[1])
        _check_dtypes(x, w, b, _uses_mkldnn(x, w), type(padding) is StringPadding)
        xp = get_array_module(x)
        kh, kw = w.shape[2], w.shape[3]
        cols = _windows(_pad(x, padding), kh, kw, stride, dilation)
        if cols.shape[2] <= 0 or cols.shape[3] <= 0:
            raise RuntimeError(f"Calculated output size is too small for input of size {list(x.shape)} and kernel "
                               f"{kh}x{kw}")
        n, o, oh, ow = x.shape[0], w.shape[0], cols.shape[2], cols.shape[3]
        # one (O, C·kh·kw) @ (C·kh·kw, rows·OW·N) product per chunk of output rows, on columns laid out with the
        # samples innermost (see _row_columns), then moved to NCHW with the bias added in the same pass
        out_t = xp.empty((o, oh, ow, n), dtype=np.result_type(w.dtype, x.dtype))
        w2 = w.reshape(o, -1)
        for lo, hi, chunk in _row_columns(x, kh, kw, stride, padding, dilation, (oh, ow)):
            backend.matmul(w2, chunk, out=out_t[:, lo:hi].reshape(o, -1))
        out = xp.empty((n, o, oh, ow), dtype=x.dtype if b is not None and b.dtype != out_t.dtype else out_t.dtype)
        if b is None:
            out[...] = out_t.transpose(3, 0, 1, 2)
        else:  # (a bias of another dtype, which torch's string padding lets through, adds in its dtype)
            xp.add(out_t.transpose(3, 0, 1, 2), b.reshape(1, -1, 1, 1), out=out, casting="unsafe")
        # (x, not its columns: those of a batch take C·kh·kw times x's size, so backward builds them again, a
        # chunk at a time, and only for the weight gradient)
        ctx.save_for_backward(x, w)
        ctx.conf = (stride, padding, dilation)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if is_grad_enabled():  # create_graph: torch's ConvolutionBackwardBackward0 node, itself differentiable
            gx, gw, gb = _ConvBackward.apply(grad, x, w, ctx.conf)
            return gx if needs[0] else None, gw if needs[1] else None, gb if needs[2] else None, None, None, None
        gx, gw, gb = _conv_backward_arrays(grad._array, x._array, w._array, ctx.conf, needs[:3])
        return (None if gx is None else Tensor._make(gx), None if gw is None else Tensor._make(gw),
                None if gb is None else Tensor._make(gb), None, None, None)


def _im2col(windows):
    """(N, C·kh·kw, OH·OW) columns of an (N, C, OH, OW, kh, kw) window view: one copy whose inner loop runs along
    an output row (OW long), not along a kernel row (kw long), which is what makes this copy cheap."""
    n, c, oh, ow, kh, kw = windows.shape
    xp = get_array_module(windows)
    return xp.ascontiguousarray(windows.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, oh * ow)


_CHUNK_BYTES = 1 << 19  # columns of about this size at a time: they stay in the cache between the copy and the GEMM


def _batch_last(x):
    """A (C, H, W, N) copy of an (N, C, H, W) array: the samples innermost."""
    xp = get_array_module(x)
    out = xp.empty(x.shape[1:] + x.shape[:1], dtype=x.dtype)
    out[...] = x.transpose(1, 2, 3, 0)
    return out


def _row_columns(x, kh, kw, stride, padding, dilation, outs):
    """(lo, hi, columns) for output rows lo:hi of conv2d of x (N, C, H, W): (C·kh·kw, (hi - lo)·OW·N) columns
    laid out (c, i, j, row, col, sample). Copied from x with the samples innermost, each (c, i, j, row) is one
    contiguous run of OW·N elements at stride 1 (N otherwise), against OW in an (N, ..., OH, OW) layout: a copy
    several times faster. The rows come a chunk at a time into (at most two) buffers reused from chunk to chunk,
    so about _CHUNK_BYTES of columns are live at once (a whole batch's take C·kh·kw times x's size)."""
    xp = get_array_module(x)
    xt = _batch_last(_pad(x, padding))
    c, _, _, n = xt.shape
    (oh, ow), (sh, sw), (dh, dw), st = outs, stride, dilation, xt.strides
    windows = xp.lib.stride_tricks.as_strided(  # (C, kh, kw, OH, OW, N), read only
        xt, (c, kh, kw, oh, ow, n), (st[0], st[1] * dh, st[2] * dw, st[1] * sh, st[2] * sw, st[3]))
    buffers: dict = {}
    for lo, hi in _sample_chunks(oh, c * kh * kw * ow * n * xt.itemsize):
        buf = buffers.get(hi - lo)
        if buf is None:
            buf = buffers[hi - lo] = xp.empty((c, kh, kw, hi - lo, ow, n), dtype=xt.dtype)
        buf[...] = windows[:, :, :, lo:hi]  # (into a buffer: a replay copies, no allocation)
        yield lo, hi, buf.reshape(c * kh * kw, -1)


def _sample_chunks(n: int, per_sample: int) -> list:
    """(lo, hi) ranges of n samples (or rows), as few as keep per_sample · (hi - lo) bytes within _CHUNK_BYTES,
    of even sizes (so at most two sizes, whose buffers a loop can reuse)."""
    if n == 0:
        return []
    parts = -(-n // max(1, _CHUNK_BYTES // max(per_sample, 1)))
    size = -(-n // parts)
    return [(lo, min(lo + size, n)) for lo in range(0, n, size)]


def _input_grad(g_t, w, x_shape, stride, padding, dilation):
    """conv2d's input gradient (N, C, H, W) for the output gradient g_t (O, OH, OW, N): for each kernel offset
    (i, j), one (C, O) @ (O, OH·OW·N) product of w's slice with g laid out with the samples innermost, added onto
    the input positions that offset reads (a strided view of the padded input, in runs OW·N long at stride 1):
    kh·kw GEMMs and additions on g-sized arrays, where a columns' gradient would be C·kh·kw times x's size."""
    xp = get_array_module(g_t)
    o, oh, ow, n = g_t.shape
    c, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    dtype = np.result_type(w.dtype, g_t.dtype)
    g_t = g_t.reshape(o, -1)
    w_t = xp.empty((kh, kw, c, o), dtype=w.dtype)
    w_t[...] = w.transpose(2, 3, 1, 0)  # (each offset's (C, O) slice contiguous, as BLAS takes it)
    padded = xp.zeros((c, x_shape[2] + 2 * ph, x_shape[3] + 2 * pw, n), dtype=dtype)
    part = xp.empty((c, oh, ow, n), dtype=dtype)
    for i in range(kh):
        for j in range(kw):
            backend.matmul(w_t[i, j], g_t, out=part.reshape(c, -1))
            run = padded[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            run += part  # (on a named view: no setitem, which a compiled replay would copy)
    gx = xp.empty(x_shape, dtype=dtype)
    gx[...] = padded[:, ph:ph + x_shape[2], pw:pw + x_shape[3]].transpose(3, 0, 1, 2)
    return gx


def _conv_backward_arrays(g, x, w, conf, needs) -> tuple:
    """conv2d's (input, weight, bias) gradients on arrays, for the gradient g (N, O, OH, OW) of its output."""
    stride, padding, dilation = conf
    xp = get_array_module(g)
    n, o, oh, ow = g.shape
    c, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    gx = gw = gb = None
    g_t = _batch_last(g) if needs[0] or needs[1] else None  # (O, OH, OW, N), as the columns
    if needs[0]:
        gx = _input_grad(g_t, w, x.shape, stride, padding, dilation)
    if needs[1]:  # the columns of x built again, a chunk of output rows at a time, each chunk's product added up
        acc = xp.zeros((c * kh * kw, o), dtype=np.result_type(w.dtype, g.dtype))
        for lo, hi, cols in _row_columns(x, kh, kw, stride, padding, dilation, (oh, ow)):
            acc += backend.matmul(cols, g_t[:, lo:hi].reshape(o, -1).T)  # (C·kh·kw, O)
        gw = xp.ascontiguousarray(acc.T).reshape(w.shape)
    if needs[2]:
        gb = g.sum(axis=(0, 2, 3))
    return gx, gw, gb


class _ConvBackward(Function):
    """(gx, gw, gb) = conv2d's gradients for the output gradient g (torch's convolution_backward, recorded as
    ConvolutionBackwardBackward0 under create_graph). Saves g, x and w."""

    node_name, array_forward = "ConvolutionBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, w, conf):
        ctx.save_for_backward(g, x, w)
        ctx.conf = conf
        ctx.set_materialize_grads(False)  # an output with no gradient gives no term (torch: undefined, not zeros)
        return _conv_backward_arrays(g, x, w, conf, (True, True, True))

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        # each output is linear in g and in x or w: differentiate with conv2d / conv_transpose2d themselves
        g, x, w = ctx.saved_tensors
        return _conv_double_backward(g, x, w, ggx, ggw, ggb, ctx.conf, ctx.needs_input_grad)


def _conv_double_backward(g, x, w, ggx, ggw, ggb, conf, needs) -> tuple:
    """Gradients in (g, x, w) of conv2d's backward, given those of its (gx, gw, gb); None where no term reaches
    an input (as torch's convolution_backward's backward: x's needs ggw, w's needs ggx)."""
    stride, padding, dilation = conf
    d_g = d_x = d_w = None
    if needs[0]:
        terms = []
        if ggx is not None or ggb is not None:
            gx_in = ggx if ggx is not None else x.new_zeros(x.shape)
            terms.append(Conv2d.apply(gx_in, w, ggb, stride, padding, dilation))
        if ggw is not None:
            terms.append(Conv2d.apply(x, ggw, None, *conf))
        d_g = terms[0] + terms[1] if len(terms) == 2 else (terms[0] if terms else None)
    if needs[1] and ggw is not None:
        d_x = ConvTranspose2d.apply(g, ggw, None, stride, padding, _output_padding(x.shape, g.shape, w.shape, conf),
                                    dilation)
    if needs[2] and ggx is not None:
        d_w = _weight_grad(ggx, g, w.shape, conf)
    return d_g, d_x, d_w, None


def _output_padding(x_shape, g_shape, w_shape, conf) -> tuple:
    """The output_padding that makes conv_transpose2d of g give back x's spatial size."""
    stride, padding, dilation = conf
    return tuple(x_shape[2 + i] + 2 * padding[i] - ((g_shape[2 + i] - 1) * stride[i] + dilation[i] *
                                                    (w_shape[2 + i] - 1) + 1) for i in range(2))


def _weight_grad(x, g, w_shape, conf):
    """conv2d's weight gradient as a differentiable conv2d: samples as channels, channels as the batch (stride and
    dilation trade places), cropped to the kernel's size."""
    stride, padding, dilation = conf
    gw = Conv2d.apply(x.transpose(0, 1), g.transpose(0, 1), None, dilation, padding, stride)  # (C, O, >=kh, >=kw)
    return gw[:, :, :w_shape[2], :w_shape[3]].transpose(0, 1)


class ConvTranspose2d(Function):
    """out = the transpose (gradient) of conv2d: x (N,C,H,W), w (C,O,kh,kw) + b. Saves x and w."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward = "ConvolutionBackward0", True
    none_edges = True  # torch's node has a bias edge even without a bias: (None, 0)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, output_padding, dilation):
        _check_input(x, w.shape[0], "conv_transpose2d")
        mkldnn = _uses_mkldnn(x, w)
        _check_dtypes(x, w, None, mkldnn)
        if mkldnn and b is not None and b.dtype != x.dtype:  # only torch's MKLDNN path checks the bias's dtype here
            raise mkldnn_mismatch(x, b, "bias")
        xp = get_array_module(x)
        n, c, h, wd = x.shape
        kh, kw = w.shape[2], w.shape[3]
        (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
        oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
        ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
        # (O·kh·kw, C) @ (C, H·W) per sample, batched: columns laid out (N, O, kh, kw, H, W), so col2im adds
        # kh·kw contiguous (H, W) planes (as conv2d's input gradient)
        cols = backend.matmul(w.reshape(c, -1).T, x.reshape(n, c, h * wd)).reshape(n, w.shape[1], kh, kw, h, wd)
        full = _col2im(cols.transpose(0, 1, 4, 5, 2, 3), (n, w.shape[1], oh + 2 * ph, ow + 2 * pw), kh, kw, stride,
                       dilation, (0, 0))
        out = full[:, :, ph:ph + oh, pw:pw + ow]
        if b is not None:
            out = out + b.reshape(1, -1, 1, 1)
            if out.dtype != x.dtype:  # a bias of another dtype, which torch's string padding lets through
                out = out.astype(x.dtype)
        ctx.save_for_backward(x, w)
        ctx.conf = (stride, padding, dilation)
        return xp.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if is_grad_enabled():  # create_graph: torch's ConvolutionBackwardBackward0 node, itself differentiable
            gx, gw, gb = _ConvTransposeBackward.apply(grad, x, w, ctx.conf)
            return (gx if needs[0] else None, gw if needs[1] else None, gb if needs[2] else None,
                    None, None, None, None)
        gx, gw, gb = _conv_transpose_backward_arrays(grad._array, x._array, w._array, ctx.conf, needs[:3])
        return (None if gx is None else Tensor._make(gx), None if gw is None else Tensor._make(gw),
                None if gb is None else Tensor._make(gb), None, None, None, None)


def _conv_transpose_backward_arrays(g, x, w, conf, needs) -> tuple:
    """conv_transpose2d's (input, weight, bias) gradients on arrays: conv2d of g with w, conv2d's weight
    gradient for input g and output gradient x, and g summed per channel."""
    stride, padding, dilation = conf
    xp = get_array_module(g)
    kh, kw = w.shape[2], w.shape[3]
    n, c, h, wd = x.shape
    cols = _im2col(_windows(_pad(g, padding), kh, kw, stride, dilation))  # (N, O·kh·kw, H·W)
    gx = gw = gb = None
    if needs[0]:  # conv2d of g with w: (C, O·kh·kw) @ columns per sample, NCHW as it comes
        gx = backend.matmul(w.reshape(c, -1), cols).reshape(n, c, h, wd)
    if needs[1]:  # conv2d's weight gradient for input g and output gradient x
        x3 = x.reshape(n, c, h * wd)
        if c <= h * wd:  # per-sample products then a sum: the partials are no bigger than the columns
            gw = backend.matmul(x3, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
        else:
            gw = backend.tensordot(xp, x3, cols, axes=((0, 2), (0, 2))).reshape(w.shape)
    if needs[2]:
        gb = g.sum(axis=(0, 2, 3))
    return gx, gw, gb


class _ConvTransposeBackward(Function):
    """(gx, gw, gb) = conv_transpose2d's gradients for the output gradient g (torch's convolution_backward with
    transposed=True, recorded as ConvolutionBackwardBackward0 under create_graph). Saves g, x and w."""

    node_name, array_forward = "ConvolutionBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, w, conf):
        ctx.save_for_backward(g, x, w)
        ctx.conf = conf
        ctx.set_materialize_grads(False)  # an output with no gradient gives no term (torch: undefined)
        return _conv_transpose_backward_arrays(g, x, w, conf, (True, True, True))

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        # gx = conv2d(g, w), gw = conv2d's weight gradient (input g, output gradient x), gb = sum of g: each is
        # linear in g and in x or w, so their adjoints are conv_transpose2d / conv2d / the weight gradient again
        g, x, w = ctx.saved_tensors
        stride, padding, dilation = ctx.conf
        needs = ctx.needs_input_grad
        d_g = d_x = d_w = None
        if needs[0]:
            outpad = _output_padding(g.shape, x.shape, w.shape, ctx.conf)
            terms = [ConvTranspose2d.apply(t, k, None, stride, padding, outpad, dilation)
                     for t, k in ((ggx, w), (x, ggw)) if t is not None and k is not None]
            if ggb is not None:
                terms.append(ggb.reshape(1, -1, 1, 1).expand(*g.shape))
            for t in terms:
                d_g = t if d_g is None else d_g + t
        if needs[1] and ggw is not None:
            d_x = Conv2d.apply(g, ggw, None, stride, padding, dilation)
        if needs[2] and ggx is not None:
            d_w = _weight_grad(g, ggx, w.shape, ctx.conf)
        return d_g, d_x, d_w, None
