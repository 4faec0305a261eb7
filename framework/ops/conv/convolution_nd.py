"""N-d convolution and transposed convolution (conv3d, conv_transpose1d, conv_transpose3d) on the backend's arrays.

The same im2col as conv.py's 2-D ops for any number of spatial dims: the receptive fields are one strided view
(N, C, *out, *kernel) of the padded input, one tensordot does the work, and backward scatters the columns back
(col2im).  Under create_graph each backward is a node of its own, torch's ConvolutionBackwardBackward0, whose
derivatives are these convolutions again."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ... import backend, dtypes
from ...backend import get_array_module
from ...tensor import Tensor
from .._sliding import windows
from .._util import scalar_type_name
from ..shape import cat
from ..vision import pad
from . import convolution_2d as _conv


def _pad(x, padding):
    if not any(padding):
        return x
    return get_array_module(x).pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])


def _out_sizes(spatial, kernel, stride, padding, dilation) -> tuple:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))


def _col2im(cols, x_shape, kernel, stride, dilation, padding):
    """Sum (N, C, *out, *kernel) window gradients back into an (N, C, *spatial) input gradient."""
    xp = get_array_module(cols)
    k = len(kernel)
    outs = cols.shape[2:2 + k]
    full = xp.zeros(tuple(x_shape[:2]) + tuple(n + 2 * p for n, p in zip(x_shape[2:], padding)), dtype=cols.dtype)
    for offs in itertools.product(*(range(kk) for kk in kernel)):
        sl = tuple(slice(o * d, o * d + s * n, s) for o, d, s, n in zip(offs, dilation, stride, outs))
        view = full[(slice(None), slice(None)) + sl]
        view += cols[(Ellipsis,) + offs]  # (on a named view: no setitem, which a compiled replay would copy)
    return full[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(padding, x_shape[2:]))]


def _group_columns(cols, groups: int):
    """The receptive fields (N, C, *out, *kernel) as one matrix per group: (G, N * out positions, C/G * kernel)."""
    n, c = cols.shape[:2]
    k = (cols.ndim - 2) // 2
    out, kernel = cols.shape[2:2 + k], cols.shape[2 + k:]
    a = cols.reshape((n, groups, c // groups) + out + kernel)
    a = a.transpose((1, 0) + tuple(range(3, 3 + k)) + (2,) + tuple(range(3 + k, 3 + 2 * k)))
    return a.reshape(groups, n * math.prod(out), (c // groups) * math.prod(kernel))


def _group_rows(g, groups: int):
    """An (N, O, *out) array as (G, N * out positions, O/G): each group's channels as the columns of a matrix."""
    n, o = g.shape[:2]
    k = g.ndim - 2
    a = g.reshape((n, groups, o // groups) + g.shape[2:]).transpose((1, 0) + tuple(range(3, 3 + k)) + (2,))
    return a.reshape(groups, n * math.prod(g.shape[2:]), o // groups)


def _grouped_conv(cols, w, groups: int):
    """Grouped cross-correlation: group i's output channels see only group i's input channels. cols (N, C, *out,
    *kernel), w (O, C/G, *kernel) -> (N, O, *out), one batched matmul over the groups."""
    n, k = cols.shape[0], w.ndim - 2
    out, og = cols.shape[2:2 + k], w.shape[0] // groups
    res = backend.matmul(_group_columns(cols, groups), w.reshape(groups, og, -1).transpose(0, 2, 1))
    res = res.reshape((groups, n) + out + (og,)).transpose((1, 0, 2 + k) + tuple(range(2, 2 + k)))
    return res.reshape((n, groups * og) + out)


def _grouped_cols_grad(g, w, groups: int):
    """The receptive fields' gradient of a grouped conv: g (N, O, *out), w (O, C/G, *kernel) -> (N, C, *out,
    *kernel), which col2im sums into the input's gradient."""
    n, k = g.shape[0], g.ndim - 2
    out, kernel, cg = g.shape[2:], w.shape[2:], w.shape[1]
    res = backend.matmul(_group_rows(g, groups), w.reshape(groups, w.shape[0] // groups, -1))
    res = res.reshape((groups, n) + out + (cg,) + kernel)
    res = res.transpose((1, 0, 2 + k) + tuple(range(2, 2 + k)) + tuple(range(3 + k, 3 + 2 * k)))
    return res.reshape((n, groups * cg) + out + kernel)


def _grouped_weight_grad(g, cols, groups: int):
    """A grouped conv's weight gradient: g (N, O, *out), cols (N, C, *out, *kernel) -> (O, C/G, *kernel)."""
    kernel = cols.shape[2 + (cols.ndim - 2) // 2:]
    res = backend.matmul(_group_rows(g, groups).transpose(0, 2, 1), _group_columns(cols, groups))
    return res.reshape((g.shape[1], cols.shape[1] // groups) + kernel)


def conv_arrays(x, w, stride, padding, dilation, groups: int = 1):
    """Cross-correlation of x (N, C, *spatial) with w (O, C/groups, *kernel), no bias: (N, O, *out)."""
    xp = get_array_module(x)
    k = w.ndim - 2
    kernel = w.shape[2:]
    cols = windows(_pad(x, padding), kernel, stride, dilation, _out_sizes(x.shape[2:], kernel, stride, padding,
                                                                            dilation))
    if groups > 1:
        return _grouped_conv(cols, w, groups)
    # one (O, C·kernel) @ (C·kernel, out positions) product per sample, batched: the result is (N, O, *out) as it
    # comes, no transposed copy of it (as conv.py's conv2d)
    out = backend.matmul(w.reshape(w.shape[0], -1), _im2col(cols))
    return out.reshape((x.shape[0], w.shape[0]) + cols.shape[2:2 + k])


def _im2col(windows):
    """(N, C·prod(kernel), prod(out)) columns of an (N, C, *out, *kernel) window view: one copy whose inner loop
    runs along the output's last dim, not the kernel's (conv.py's _im2col, k-d)."""
    xp = get_array_module(windows)
    k = (windows.ndim - 2) // 2
    n, c = windows.shape[:2]
    cols = xp.ascontiguousarray(windows.transpose((0, 1) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(2, 2 + k))))
    return cols.reshape(n, c * math.prod(windows.shape[2 + k:]), math.prod(windows.shape[2:2 + k]))


def _conv_backward_arrays(g, x, w, conf, needs) -> tuple:
    """conv's (input, weight, bias) gradients on arrays for the output gradient g (N, O, *out)."""
    stride, padding, dilation, groups = conf
    xp = get_array_module(g)
    k = w.ndim - 2
    kernel = w.shape[2:]
    gx = gw = gb = None
    if needs[0]:
        if groups > 1:
            cols_grad = _grouped_cols_grad(g, w, groups)
        else:  # (C·kernel, O) @ (O, out positions) per sample: laid out (N, C, *kernel, *out), so col2im adds
            # contiguous output-shaped blocks
            n, o, outs = g.shape[0], g.shape[1], g.shape[2:]
            cols_grad = backend.matmul(w.reshape(o, -1).T, g.reshape(n, o, -1))
            cols_grad = cols_grad.reshape((n, x.shape[1]) + tuple(kernel) + tuple(outs))
            cols_grad = cols_grad.transpose((0, 1) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(2, 2 + k)))
        gx = xp.ascontiguousarray(_col2im(cols_grad, x.shape, kernel, stride, dilation, padding))
    if needs[1]:
        cols = windows(_pad(x, padding), kernel, stride, dilation, g.shape[2:])
        if groups > 1:
            gw = _grouped_weight_grad(g, cols, groups)
        else:
            n, o = g.shape[:2]
            g3, cols = g.reshape(n, o, -1), _im2col(cols)
            if o <= g3.shape[2]:  # per-sample products then a sum: the partials are no bigger than cols
                gw = backend.matmul(g3, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
            else:
                gw = backend.tensordot(xp, g3, cols, axes=((0, 2), (0, 2))).reshape(w.shape)
    if needs[2]:
        gb = g.sum(axis=(0,) + tuple(range(2, 2 + k)))
    return gx, gw, gb


def conv_transpose_arrays(x, w, stride, padding, output_padding, dilation, groups: int = 1):
    """The transpose of conv: x (N, C, *spatial), w (C, O/groups, *kernel), no bias: (N, O, *out)."""
    xp = get_array_module(x)
    k = w.ndim - 2
    kernel = w.shape[2:]
    outs = tuple((n - 1) * s - 2 * p + d * (kk - 1) + op + 1
                 for n, s, p, op, d, kk in zip(x.shape[2:], stride, padding, output_padding, dilation, kernel))
    if groups > 1:  # a grouped conv's input gradient, with x as the output gradient and w as its weight
        cols = _grouped_cols_grad(x, w, groups)
    else:
        cols = xp.moveaxis(backend.tensordot(xp, x, w, axes=((1,), (0,))), 1 + k, 1)  # (N, O, *in, *kernel)
    full = _col2im(cols, (x.shape[0], w.shape[1] * groups) + tuple(o + 2 * p for o, p in zip(outs, padding)), kernel,
                   stride, dilation, (0,) * k)
    return full[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(padding, outs))]


def _conv_transpose_backward_arrays(g, x, w, conf, needs) -> tuple:
    """conv_transpose's (input, weight, bias) gradients on arrays: conv of g with w, conv's weight gradient for
    input g and output gradient x, and g summed per channel."""
    stride, padding, dilation, groups = conf
    xp = get_array_module(g)
    k = w.ndim - 2
    kernel = w.shape[2:]
    cols = windows(_pad(g, padding), kernel, stride, dilation, x.shape[2:])  # (N, O, *in, *kernel)
    gx = gw = gb = None
    if needs[0]:
        if groups > 1:
            gx = xp.ascontiguousarray(_grouped_conv(cols, w, groups))
        else:
            out = backend.tensordot(xp, cols, w,
                                    axes=((1,) + tuple(range(2 + k, 2 + 2 * k)), (1,) + tuple(range(2, 2 + k))))
            gx = xp.ascontiguousarray(xp.moveaxis(out, -1, 1))
    if needs[1]:
        gw = _grouped_weight_grad(x, cols, groups) if groups > 1 else \
            backend.tensordot(xp, x, cols, axes=((0,) + tuple(range(2, 2 + k)), (0,) + tuple(range(2, 2 + k))))
    if needs[2]:
        gb = g.sum(axis=(0,) + tuple(range(2, 2 + k)))
    return gx, gw, gb


def _uses_mkldnn(x, w, groups: int = 1) -> bool:
    """Whether torch's CPU convolution picks its MKLDNN backend (whose dtype-mismatch text differs): a float32
    input, grouped or seen as 4-D at least (a 1-D one as height 1) big enough, as conv.py's _uses_mkldnn."""
    shape = tuple(x.shape) if x.ndim >= 4 else (x.shape[0], x.shape[1], 1, x.shape[2])
    kernel = tuple(w.shape[2:]) if w.ndim >= 4 else (1, w.shape[2])
    if x.dtype == dtypes.BFLOAT16_NP:  # as torch's mkldnn_bf16_device_check on a CPU with AVX-512
        return True
    return x.dtype == np.float32 and (groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or shape[0] > 1 or
                                      shape[0] * shape[1] * shape[2] * shape[3] > 20480)


def _check_transpose_dtypes(x, w, b, groups: int = 1) -> None:
    """torch's CPU checks for a transposed convolution: the weight's dtype, then the bias's, which only its MKLDNN
    backend and its 3-D kernel check (the 1-D/2-D kernels add a bias of another dtype in the input's)."""
    mkldnn = _uses_mkldnn(x, w, groups)
    _conv._check_dtypes(x, w, None, mkldnn)
    if b is None or b.dtype == x.dtype:
        return
    if mkldnn:
        raise _conv.mkldnn_mismatch(x, b, "bias")
    if w.ndim == 5:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found {scalar_type_name(b.dtype)}")


def _add_bias(out, b):
    return out if b is None else out + b.reshape((1, -1) + (1,) * (out.ndim - 2))


def _wrap(arrays) -> tuple:
    return tuple(None if a is None else Tensor._make(a) for a in arrays)


class ConvNd(Function):
    """out = cross-correlation of x (N,C,*spatial) with w (O,C/groups,*kernel) + b. Saves x and w."""

    node_name, array_forward = "ConvolutionBackward0", True
    none_edges = True  # torch's node has a bias edge even without a bias: (None, 0)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups=1):
        _conv._check_dtypes(x, w, b, _uses_mkldnn(x, w, groups), type(padding) is _conv.StringPadding)
        out = _add_bias(conv_arrays(x, w, stride, padding, dilation, groups), b)
        ctx.save_for_backward(x, w)
        ctx.conf = (stride, padding, dilation, groups)
        return get_array_module(x).ascontiguousarray(out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if is_grad_enabled():  # create_graph: torch's ConvolutionBackwardBackward0 node, itself differentiable
            gx, gw, gb = _ConvNdBackward.apply(grad, x, w, ctx.conf)
            return (gx if needs[0] else None, gw if needs[1] else None, gb if needs[2] else None) + (None,) * 4
        return _wrap(_conv_backward_arrays(grad._array, x._array, w._array, ctx.conf, needs[:3])) + (None,) * 4


def _weight_grad(x, g, w_shape, conf):
    """conv's weight gradient as a differentiable conv: samples as channels, channels as the batch (stride and
    dilation trade places), cropped to the kernel's size; grouped, one such conv per group."""
    stride, padding, dilation, groups = conf
    if groups > 1:
        cx, cg = x.shape[1] // groups, g.shape[1] // groups
        one = ((w_shape[0] // groups,) + tuple(w_shape[1:]), (stride, padding, dilation, 1))
        return cat([_weight_grad(x[:, i * cx:(i + 1) * cx], g[:, i * cg:(i + 1) * cg], *one)
                    for i in range(groups)], 0)
    gw = ConvNd.apply(x.transpose(0, 1), g.transpose(0, 1), None, dilation, padding, stride)
    return gw[(slice(None), slice(None)) + tuple(slice(0, n) for n in w_shape[2:])].transpose(0, 1)


def _output_padding(x_shape, g_shape, w_shape, conf) -> tuple:
    """The output_padding that makes conv_transpose of g give back x's spatial size."""
    stride, padding, dilation = conf[:3]
    return tuple(x_shape[2 + i] + 2 * padding[i] - ((g_shape[2 + i] - 1) * stride[i] + dilation[i] *
                                                    (w_shape[2 + i] - 1) + 1) for i in range(len(stride)))


class _ConvNdBackward(Function):
    """(gx, gw, gb) = conv's gradients for the output gradient g (ConvolutionBackwardBackward0 under create_graph).
    Saves g, x and w."""

    node_name, array_forward = "ConvolutionBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, w, conf):
        ctx.save_for_backward(g, x, w)
        ctx.conf = conf
        ctx.set_materialize_grads(False)  # an output with no gradient gives no term (torch: undefined, not zeros)
        return _conv_backward_arrays(g, x, w, conf, (True, True, True))

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        g, x, w = ctx.saved_tensors
        stride, padding, dilation, groups = conf = ctx.conf
        needs = ctx.needs_input_grad
        d_g = d_x = d_w = None
        if needs[0]:
            terms = []
            if ggx is not None or ggb is not None:
                terms.append(ConvNd.apply(ggx if ggx is not None else x.new_zeros(x.shape), w, ggb, *conf))
            if ggw is not None:
                terms.append(ConvNd.apply(x, ggw, None, *conf))
            for t in terms:
                d_g = t if d_g is None else d_g + t
        if needs[1] and ggw is not None:
            d_x = ConvTransposeNd.apply(g, ggw, None, stride, padding,
                                        _output_padding(x.shape, g.shape, w.shape, conf), dilation, groups)
        if needs[2] and ggx is not None:
            d_w = _weight_grad(ggx, g, w.shape, conf)
        return d_g, d_x, d_w, None


class ConvTransposeNd(Function):
    """out = the transpose (gradient) of conv: x (N,C,*spatial), w (C,O/groups,*kernel) + b. Saves x and w."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward = "ConvolutionBackward0", True
    none_edges = True  # torch's node has a bias edge even without a bias: (None, 0)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, output_padding, dilation, groups=1):
        _check_transpose_dtypes(x, w, b, groups)
        out = _add_bias(conv_transpose_arrays(x, w, stride, padding, output_padding, dilation, groups), b)
        ctx.save_for_backward(x, w)
        ctx.conf = (stride, padding, dilation, groups)
        return get_array_module(x).ascontiguousarray(out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if is_grad_enabled():
            gx, gw, gb = _ConvTransposeNdBackward.apply(grad, x, w, ctx.conf)
            return (gx if needs[0] else None, gw if needs[1] else None, gb if needs[2] else None) + (None,) * 5
        return _wrap(_conv_transpose_backward_arrays(grad._array, x._array, w._array, ctx.conf, needs[:3])) + \
            (None,) * 5


class _ConvTransposeNdBackward(Function):
    """(gx, gw, gb) = conv_transpose's gradients for the output gradient g (ConvolutionBackwardBackward0 under
    create_graph). Saves g, x and w."""

    node_name, array_forward = "ConvolutionBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, w, conf):
        ctx.save_for_backward(g, x, w)
        ctx.conf = conf
        ctx.set_materialize_grads(False)
        return _conv_transpose_backward_arrays(g, x, w, conf, (True, True, True))

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        # gx = conv(g, w), gw = conv's weight gradient (input g, output gradient x), gb = sum of g: each is linear
        # in g and in x or w, so their adjoints are conv_transpose / conv / the weight gradient again
        g, x, w = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.conf
        needs = ctx.needs_input_grad
        d_g = d_x = d_w = None
        if needs[0]:
            outpad = _output_padding(g.shape, x.shape, w.shape, ctx.conf)
            terms = [ConvTransposeNd.apply(t, kk, None, stride, padding, outpad, dilation, groups)
                     for t, kk in ((ggx, w), (x, ggw)) if t is not None and kk is not None]
            if ggb is not None:
                terms.append(ggb.reshape((1, -1) + (1,) * (g.ndim - 2)).expand(*g.shape))
            for t in terms:
                d_g = t if d_g is None else d_g + t
        if needs[1] and ggw is not None:
            d_x = ConvNd.apply(g, ggw, None, stride, padding, dilation, groups)
        if needs[2] and ggx is not None:
            d_w = _weight_grad(g, ggx, w.shape, ctx.conf)
        return d_g, d_x, d_w, None


def _tuple(v, k: int, name: str) -> tuple:
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and k != 1:
            return (int(v[0]),) * k
        if len(v) != k:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} values to match the "
                               f"convolution dimensions, but got {name}={list(v)}")
        return tuple(int(i) for i in v)
    return (int(v),) * k


def _check(name: str, input: Tensor, weight: Tensor, k: int, transposed: bool, groups: int, stride: tuple) -> bool:
    """torch's checks on the groups, the input's and weight's dims and channels; True when the input is unbatched."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if weight.ndim != k + 2:  # torch: the stride (expanded to k values) against the weight's spatial dims
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to "
                           f"match the convolution dimensions, but got stride={list(stride)}")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    shape = list(input.shape) if input.ndim == k + 2 else [1] + list(input.shape)
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if shape[1] != channels:
        what = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {what}, weight of size {list(weight.shape)}, expected input{shape} to have "
                           f"{channels} channels, but got {shape[1]} channels instead")
    return input.ndim == k + 1


_warned_same = [False]  # torch warns once per process (TORCH_WARN_ONCE) about the padded copy


def conv_nd(input: Tensor, weight: Tensor, bias, stride, padding, dilation, groups: int, k: int, name: str):
    """torch's conv{k}d: padding an int, a tuple, 'valid' or 'same'; an unbatched input gets a batch dim."""
    stride, dilation = _tuple(stride, k, "stride"), _tuple(dilation, k, "dilation")
    unbatched = _check(name, input, weight, k, False, groups, stride)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [0] * k if padding == "valid" else [d * (kk - 1) for d, kk in zip(dilation, weight.shape[2:])]
        padding = _conv.StringPadding(t // 2 for t in totals)
    else:
        totals, padding = None, _tuple(padding, k, "padding")
    x = input.unsqueeze(0) if unbatched else input
    if totals is not None and any(t % 2 for t in totals):
        # torch's _convolution_mode: an odd total padding puts the extra zero on the right, by padding the input
        # first (a ConstantPadNdBackward0 node), then pads both sides equally
        if not _warned_same[0]:
            _warned_same[0] = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", UserWarning, stacklevel=3)
        extra = []
        for t in reversed(totals):  # F.pad's order: the last dim first
            extra += [0, t % 2]
        x = pad(x, tuple(extra))
    padded = tuple(n + 2 * p for n, p in zip(x.shape[2:], padding))
    span = tuple(d * (kk - 1) + 1 for d, kk in zip(dilation, weight.shape[2:]))
    if any(n < s for n, s in zip(padded, span)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, span))}). Kernel size can't be greater than actual input "
                           "size")
    out = ConvNd.apply(x, weight, bias, stride, padding, dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv_transpose_nd(input: Tensor, weight: Tensor, bias, stride, padding, output_padding, groups: int, dilation,
                      k: int, name: str):
    """torch's conv_transpose{k}d; an unbatched input gets a batch dim."""
    stride, padding = _tuple(stride, k, "stride"), _tuple(padding, k, "padding")
    unbatched = _check(name, input, weight, k, True, groups, stride)
    output_padding, dilation = _tuple(output_padding, k, "output_padding"), _tuple(dilation, k, "dilation")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # torch runs a 1-D one as 2-D (height: output_padding 0, stride 1, dilation 1)
        names = ("depth", "height", "width") if k == 3 else ("height", "width")
        lists = [(0,) + output_padding, (1,) + stride, (1,) + dilation] if k == 1 else \
            [output_padding, stride, dilation]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(
            f"{label}_{n}: {v}" for label, vals in zip(("output_padding", "stride", "dilation"), lists)
            for n, v in zip(names, vals)))
    x = input.unsqueeze(0) if unbatched else input
    out = ConvTransposeNd.apply(x, weight, bias, stride, padding, output_padding, dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if _amp.on and autocast_applies("conv3d", input, weight, bias, stride, padding, dilation, groups):
        return autocast_run("conv3d", conv3d, input, weight, bias, stride, padding, dilation, groups)
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    if _amp.on and autocast_applies("conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                                    dilation):
        return autocast_run("conv_transpose1d", conv_transpose1d, input, weight, bias, stride, padding, output_padding,
                            groups, dilation)
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                             "conv_transpose1d")


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    if _amp.on and autocast_applies("conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                                    dilation):
        return autocast_run("conv_transpose3d", conv_transpose3d, input, weight, bias, stride, padding, output_padding,
                            groups, dilation)
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                             "conv_transpose3d")
