"""conv1d, max_pool1d/avg_pool1d, adaptive_avg_pool2d/3d and group_norm, built on conv.py's and resample.py's ops.

conv1d is conv2d over a height-1 image inside one ConvolutionBackward0 node, as torch's (its create_graph backward
one ConvolutionBackwardBackward0 node); the 1-D pools are unsqueeze -> 2-D pool -> squeeze, which is torch's own
graph (SqueezeBackward1 on top). group_norm is one NativeGroupNormBackward0 node whose backward runs on arrays, or
under create_graph is torch's differentiable composite of Tensor ops.
"""
from __future__ import annotations

import types

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from ..tensor import Tensor
from . import conv as _conv, pool as _pool
from ._util import scalar_type_name
from .conv_nd import conv_nd
from .resample import SeparableMap


def _single(v, name: str = "") -> int:
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 1 values to match the "
                               f"convolution dimensions, but got {name}={list(v)}")
        return int(v[0])
    return int(v)


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
        padding_2d = _conv.StringPadding((0, padding[0])) if type(padding) is _conv.StringPadding else (0, padding)
        out = _conv.Conv2d.forward(ctx, x[:, :, None, :], w[:, :, None, :], b, (1, stride), padding_2d,
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
            conf=ctx.conf, needs_input_grad=ctx.needs_input_grad, cols=getattr(ctx, "cols", None))
        ctx.cols = None
        gx, gw, gb = _conv.Conv2d.backward(as_2d, Tensor._make(grad._array[:, :, None, :]))[:3]
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
        gx, gw, gb = _conv._conv_backward_arrays(g[:, :, None, :], x[:, :, None, :], w[:, :, None, :], conf,
                                                 (True, True, True))
        return gx[:, :, 0, :], gw[:, :, 0, :], gb

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        g, x, w = ctx.saved_tensors
        grads = _conv._conv_double_backward(*(None if t is None else t.unsqueeze(2) for t in (g, x, w, ggx, ggw)),
                                            ggb, ctx.conf, ctx.needs_input_grad)[:3]
        return (*(None if d is None else d.squeeze(2) for d in grads), None)


class GroupNorm(Function):
    """out = (x - mean) / sqrt(var + eps) per (sample, group), times weight plus bias per channel.
    Saves x, weight, and the groups' mean and 1/std."""

    node_name, array_forward = "NativeGroupNormBackward0", True

    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        xp = get_array_module(x)
        n, c = x.shape[0], x.shape[1]
        xg = x.reshape(n, groups, -1)
        mean = xg.mean(axis=-1, keepdims=True)
        var = ((xg - mean) ** 2).mean(axis=-1, keepdims=True)
        rstd = 1 / xp.sqrt(var + eps)
        out = ((xg - mean) * rstd).reshape(x.shape)
        channel = (1, c) + (1,) * (x.ndim - 2)
        if weight is not None:
            out = out * weight.reshape(channel)
        if bias is not None:
            out = out + bias.reshape(channel)
        ctx.save_for_backward(x, weight)
        ctx.stats, ctx.groups, ctx.eps = (mean, rstd), groups, eps
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        if is_grad_enabled():  # create_graph: torch's infinitely differentiable composite, of Tensor ops
            return _group_norm_backward_composite(ctx, grad)
        x, weight = ctx.saved_arrays
        mean, rstd = ctx.stats
        g = grad._array
        n, c = x.shape[0], x.shape[1]
        channel = (1, c) + (1,) * (x.ndim - 2)
        reduce = (0,) + tuple(range(2, x.ndim))
        xhat = ((x.reshape(n, ctx.groups, -1) - mean) * rstd).reshape(x.shape)
        needs = ctx.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            gxhat = g * weight.reshape(channel) if weight is not None else g
            gxhat, xh = gxhat.reshape(n, ctx.groups, -1), xhat.reshape(n, ctx.groups, -1)
            gx = rstd * (gxhat - gxhat.mean(axis=-1, keepdims=True) - xh * (gxhat * xh).mean(axis=-1, keepdims=True))
            gx = Tensor._make(gx.reshape(x.shape).astype(x.dtype, copy=False))
        if needs[1]:
            gw = Tensor._make((g * xhat).sum(axis=reduce).astype(x.dtype, copy=False))
        if needs[2]:
            gb = Tensor._make(g.sum(axis=reduce))
        return gx, gw, gb, None, None


def _group_norm_backward_composite(ctx, grad):
    """torch's infinitely_differentiable_native_group_norm_backward (what it runs under create_graph): Tensor ops
    ending in reshapes (ViewBackward0), with the groups' mean and 1/std recomputed from x as Tensors, so second
    derivatives also flow through them (torch's come through its saved mean/rstd outputs: the same maths)."""
    x, weight = ctx.saved_tensors
    needs = ctx.needs_input_grad
    n, c, groups, eps = x.shape[0], x.shape[1], ctx.groups, ctx.eps
    d, hw = c // groups, x.numel() // (x.shape[0] * x.shape[1])
    xt = x.reshape(n, groups, d, hw)
    mean = xt.mean(dim=(2, 3), keepdim=True)
    rstd = (((xt - mean) ** 2).mean(dim=(2, 3), keepdim=True) + eps).rsqrt()
    dy = grad.reshape(n, groups, d, hw)
    ds, db = (dy * xt).sum(3, keepdim=True), dy.sum(3, keepdim=True)
    gamma = None if weight is None else weight.reshape(1, groups, d, 1)
    gx = gw = gb = None
    if needs[0]:
        a = rstd if gamma is None else rstd * gamma
        b = (ds if gamma is None else ds * gamma).sum(2, keepdim=True)
        cc = (db if gamma is None else db * gamma).sum(2, keepdim=True)
        s = 1.0 / (d * hw)
        b = (cc * mean - b) * (rstd * rstd * rstd) * s
        cc = -b * mean - cc * rstd * s
        gx = (a * dy + b * xt + cc).reshape(tuple(x.shape))
    if needs[1]:
        gw = ((ds - db * mean) * rstd).sum(0).reshape(tuple(weight.shape))
    if needs[2]:
        gb = db.sum(0).reshape(c)
    return gx, gw, gb, None, None


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


# ---- functional API ---------------------------------------------------------------------------------

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
        padding = _conv.StringPadding((0 if padding == "valid" else dilation * (weight.shape[2] - 1) // 2,))
    else:
        padding = _single(padding, "padding")
    if input.ndim == 2:  # unbatched: torch adds the batch dim and squeezes it off again
        return Conv1d.apply(input.unsqueeze(0), weight, bias, _single(stride, "stride"), padding, dilation).squeeze(0)
    return Conv1d.apply(input, weight, bias, _single(stride, "stride"), padding, dilation)


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
        out = _conv.MaxPool2d.apply(x.unsqueeze(0), kernel, stride, padding).squeeze(0).squeeze(-2)
    else:
        out = _conv.MaxPool2d.apply(x, kernel, stride, padding).squeeze(-2)
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
        return _conv.AvgPool2d.apply(x.unsqueeze(0), kernel, stride, padding).squeeze(0).squeeze(-2)
    return _conv.AvgPool2d.apply(x, kernel, stride, padding).squeeze(-2)


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


def _check_group_norm_params(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> None:
    """torch's checks on group_norm's weight and bias, in its order: shapes, then its CPU mixed-dtype rules."""
    weight_shape = list(weight.shape) if weight is not None else [0]
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.shape[0] != input.shape[1]):
            # torch's text names weight's shape ([0] without one) for a bias of the wrong size too
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {weight_shape} and input of shape {list(input.shape)}")
    params = [p for p in (weight, bias) if p is not None]
    if params and params[0].dtype != input.dtype:
        # the first parameter's dtype differs: torch takes its mixed-dtype path (meant for half inputs with float
        # parameters), which wants float parameters and a half input
        if any(p.dtype != dtypes.float32 for p in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype != dtypes.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    elif len(params) == 2 and params[1].dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(params[1]._array.dtype)}")


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-05) -> Tensor:
    if _amp.on and autocast_applies("group_norm", input, num_groups, weight, bias, eps):
        return autocast_run("group_norm", group_norm, input, num_groups, weight, bias, eps)
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    _check_group_norm_params(input, weight, bias)
    return GroupNorm.apply(input, weight, bias, int(num_groups), float(eps))

