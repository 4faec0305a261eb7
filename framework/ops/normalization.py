"""Normalization ops: batch_norm (torch's native_batch_norm), layer_norm (native_layer_norm), group_norm and the
weight-norm interface."""
from __future__ import annotations

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from .. import dtypes
from ..backend import get_array_module
from ..tensor import Tensor
from ._util import scalar_type_name


def _layout(x) -> tuple:
    """(the axes reduced: all but the channel dim 1, the shape a per-channel vector broadcasts with)."""
    return (0,) + tuple(range(2, x.ndim)), (1, -1) + (1,) * (x.ndim - 2)


class NativeBatchNorm(Function):
    """out = (x - mean) * invstd * weight + bias per channel, with the batch's statistics (training) or the running
    ones. Saves x, weight and the running statistics (as torch: changed in place before backward, they are refused
    there); keeps mean and invstd (torch's result1/result2) for the backward."""

    node_name, array_forward, none_edges = "NativeBatchNormBackward0", True, True  # (x, weight, bias) always
    index_args = (4, 5)  # the running statistics: saved, no edges

    @staticmethod
    def forward(ctx, x, weight, bias, conf, running_mean=None, running_var=None):
        training, momentum, eps = conf
        xp = get_array_module(x)
        axes, shape = _layout(x)
        if training:
            n = x.size // x.shape[1]
            mean = x.mean(axis=axes)
            centred = x - mean.reshape(shape)
            var = (centred * centred).mean(axis=axes)  # two passes, as torch's CPU kernel
            if running_mean is not None:  # updated in place, as torch's kernel does: no version bump
                running_mean *= 1 - momentum
                running_mean += mean * momentum
                running_var *= 1 - momentum
                running_var += var * (momentum * n / (n - 1))
        else:
            mean, var = running_mean, running_var
        invstd = 1 / xp.sqrt(var + eps)
        # torch's batch_norm_cpu_transform_input: out = x * alpha + beta, two passes over x
        alpha = invstd if weight is None else invstd * weight
        beta = -mean * alpha if bias is None else bias - mean * alpha
        out = x * alpha.reshape(shape)
        out += beta.reshape(shape)
        ctx.save_for_backward(x, weight, running_mean, running_var)
        ctx.mean, ctx.invstd, ctx.training, ctx.eps = mean, invstd, training, eps
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward_arrays(ctx, g):
        """torch's batch_norm_backward_cpu: the batch statistics' share of the gradient is projected out."""
        x, weight, _, _ = ctx.saved_arrays
        axes, shape = _layout(x)
        mean, invstd = ctx.mean.reshape(shape), ctx.invstd
        scale = invstd if weight is None else invstd * weight
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g_sum = g.sum(axis=axes)
        centred = x - mean
        dotp = (centred * g).sum(axis=axes) if (need_w or (need_x and ctx.training)) else None
        gx = None
        if need_x:
            if ctx.training:
                n = x.size // x.shape[1]
                proj = centred * (dotp * invstd * invstd / n).reshape(shape)
                gx = g - (g_sum / n).reshape(shape)
                gx -= proj
                gx *= scale.reshape(shape)
            else:
                gx = g * scale.reshape(shape)
        gw = dotp * invstd if need_w else None
        gb = g_sum if need_b else None
        return gx, gw, gb, None, None, None

    @staticmethod
    def backward(ctx, grad):
        """The same formulas on Tensors, with the batch statistics recomputed from x (so create_graph=True
        differentiates through them too: exact second derivatives)."""
        x, weight, _, _ = ctx.saved_tensors
        axes, shape = _layout(x)
        if ctx.training:
            mean = x.mean(dim=axes, keepdim=True)
            invstd = (x.var(dim=axes, unbiased=False, keepdim=True) + ctx.eps).rsqrt()
        else:
            mean = Tensor._make(ctx.mean.reshape(shape))
            invstd = Tensor._make(ctx.invstd.reshape(shape))
        xhat = (x - mean) * invstd
        gw = (grad * xhat).sum(dim=axes) if ctx.needs_input_grad[1] else None
        gb = grad.sum(dim=axes) if ctx.needs_input_grad[2] else None
        gx = None
        if ctx.needs_input_grad[0]:
            scale = invstd if weight is None else invstd * weight.reshape(shape)
            if ctx.training:
                gx = scale * (grad - grad.mean(dim=axes, keepdim=True)
                              - xhat * (grad * xhat).mean(dim=axes, keepdim=True))
            else:
                gx = grad * scale
        return gx, gw, gb, None, None, None


def batch_norm(x: Tensor, running_mean, running_var, weight, bias, training: bool, momentum: float,
               eps: float) -> Tensor:
    """NativeBatchNorm.apply; the settings travel as one tuple, the running statistics (both or neither) last: none
    of them are edges."""
    stats = () if running_mean is None else (running_mean, running_var)
    return NativeBatchNorm.apply(x, weight, bias, (training, momentum, eps), *stats)


def _wide(dtype):
    """The dtype a layer norm computes in: float32 for float16 and bfloat16 (rounded once at the end)."""
    return dtype if dtype.char in "fd" else np.dtype(np.float32)


class NativeLayerNorm(Function):
    """out = (x - mean) * rstd * weight + bias over the last ``ndims`` dims, one node as torch's native_layer_norm.
    Saves bias, x and weight (torch NativeLayerNormBackward0 unpacks them in that order, so an in-place error names
    the first changed), and each row's mean and rstd (as torch: no normalised copy of x is held between forward and
    backward). float16 and bfloat16 are computed in float32 and rounded once, as torch's CPU kernel."""

    node_name, array_forward, none_edges = "NativeLayerNormBackward0", True, True  # (x, weight, bias) always

    @staticmethod
    def forward(ctx, x, weight, bias, conf):
        ndims, eps = conf
        xp = get_array_module(x)
        size = 1
        for n in x.shape[x.ndim - ndims:]:
            size *= n
        ctx.save_for_backward(bias, x, weight)  # the inputs themselves (before any cast): their edges
        wide = _wide(x.dtype)
        xhat = x.reshape(-1, size).astype(wide, copy=False)
        if weight is not None:
            weight = weight.astype(wide, copy=False)
        if bias is not None:
            bias = bias.astype(wide, copy=False)
        mean = xhat.mean(axis=1, keepdims=True)
        xhat = xhat - mean  # the one fresh (rows, size) buffer: centred, then normalised in place
        var = (xhat * xhat).mean(axis=1, keepdims=True)  # two passes, as torch's CPU kernel
        rstd = 1 / xp.sqrt(var + eps)
        xhat *= rstd
        out = xhat * weight.reshape(-1) if weight is not None else xhat.copy()
        if bias is not None:
            out += bias.reshape(-1)
        ctx.mean, ctx.rstd, ctx.conf = mean, rstd, conf
        return out.reshape(x.shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward_arrays(ctx, g):
        """torch's layer_norm_backward_cpu: gx = rstd (gxhat - mean(gxhat) - xhat mean(gxhat xhat)) per row,
        gxhat = g weight; the weight and bias gradients sum over the rows."""
        bias, x, weight = ctx.saved_arrays
        xp = get_array_module(g)
        rstd = ctx.rstd
        xhat = x.reshape(rstd.shape[0], -1).astype(rstd.dtype, copy=False) - ctx.mean  # recomputed, as torch's
        xhat *= rstd
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g = g.reshape(xhat.shape).astype(xhat.dtype, copy=False)
        gx = gw = gb = None
        if need_w:
            gw = (g * xhat).sum(axis=0).reshape(weight.shape).astype(weight.dtype, copy=False)
        if need_b:
            gb = g.sum(axis=0).reshape(bias.shape).astype(bias.dtype, copy=False)
        if need_x:
            gxhat = g * weight.reshape(-1).astype(xhat.dtype, copy=False) if weight is not None else g
            t = gxhat * xhat
            m2 = t.mean(axis=1, keepdims=True)
            xp.multiply(xhat, m2, out=t)
            gx = gxhat - gxhat.mean(axis=1, keepdims=True)
            gx -= t
            gx *= rstd
            gx = gx.reshape(x.shape).astype(x.dtype, copy=False)
        return gx, gw, gb, None

    @staticmethod
    def backward(ctx, grad):
        """The same formulas on Tensors, with mean and rstd recomputed from x (so create_graph=True
        differentiates through them too: exact second derivatives)."""
        _, x, weight = ctx.saved_tensors
        ndims, eps = ctx.conf
        dims = tuple(range(x.ndim - ndims, x.ndim))
        lead = tuple(range(x.ndim - ndims))
        mean = x.mean(dim=dims, keepdim=True)
        rstd = (x.var(dim=dims, unbiased=False, keepdim=True) + eps).rsqrt()
        xhat = (x - mean) * rstd
        over_rows = (lambda t: t.sum(dim=lead)) if lead else (lambda t: t)  # noqa: E731
        needs = ctx.needs_input_grad
        gw = over_rows(grad * xhat) if needs[1] else None
        gb = over_rows(grad) if needs[2] else None
        gx = None
        if needs[0]:
            gxhat = grad * weight if weight is not None else grad
            gx = rstd * (gxhat - gxhat.mean(dim=dims, keepdim=True)
                         - xhat * (gxhat * xhat).mean(dim=dims, keepdim=True))
        return gx, gw, gb, None


def check_mixed_dtypes(input: Tensor, params: list) -> bool:
    """torch's CPU norms (layer_norm, group_norm): parameters whose first dtype is not the input's take its
    mixed-dtype path, meant for a half input with float32 parameters, and anything else is refused. True when the
    mixed path is taken."""
    if not params or params[0].dtype == input.dtype:
        return False
    if any(p.dtype != dtypes.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def layer_norm(x: Tensor, normalized_shape: tuple, weight: Tensor | None, bias: Tensor | None,
               eps: float) -> Tensor | None:
    """NativeLayerNorm.apply for floating input whose trailing dims are ``normalized_shape`` (and weight,
    bias of that shape and dtype); None otherwise (the caller composes the op from Tensor ops)."""
    shape = tuple(normalized_shape)
    dtype = x._array.dtype
    if not shape or dtype.char not in "fdeE" or x.ndim < len(shape) or tuple(x.shape[x.ndim - len(shape):]) != shape \
            or x.numel() == 0:
        return None
    params = [p for p in (weight, bias) if p is not None]
    mixed = check_mixed_dtypes(x, params)  # a half x with float32 parameters: computed in float32 all the same
    for p in params:
        if tuple(p.shape) != shape or (p._array.dtype != dtype and not mixed):
            return None
    return NativeLayerNorm.apply(x, weight, bias, (len(shape), float(eps)))


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The p-norm of v over every dim but ``dim``, shaped to broadcast against v (dim=-1: over all of v)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.ndim - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(*shape)
    if dim == v.ndim - 1:
        shape = (1,) * (v.ndim - 1) + (v.shape[-1],)
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(*shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _norms(xp, v, dim: int):
    """The 2-norms over every dim but ``dim`` (0 or the last), shaped to broadcast (an array helper)."""
    if dim == 0:
        flat = v.reshape(v.shape[0], -1)
        return xp.sqrt((flat * flat).sum(1)).reshape((v.shape[0],) + (1,) * (v.ndim - 1))
    flat = v.reshape(-1, v.shape[-1])
    return xp.sqrt((flat * flat).sum(0)).reshape((1,) * (v.ndim - 1) + (v.shape[-1],))


class WeightNormInterface(Function):
    """out = v * (g / ||v||) for dim 0 or the last dim. Saves v, g and the norms."""

    node_name, array_forward = "WeightNormInterfaceBackward0", True

    @staticmethod
    def forward(ctx, v, g, dim):
        xp = get_array_module(v)
        norms = _norms(xp, v, dim)
        ctx.dim = dim
        ctx.norms = Tensor._make(norms)
        ctx.save_for_backward(v, g)
        return v * (g / norms)

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        dim = ctx.dim
        # torch saves the norms as an output of this node, so under create_graph they depend on v: recompute them
        # with differentiable ops then (the plain backward reuses the forward's)
        norms = norm_except_dim(v, 2, dim) if is_grad_enabled() else ctx.norms
        # torch's _weight_norm_differentiable_backward: differentiable ops, so double backward works too
        if dim == 0:
            shape = (v.shape[0],) + (1,) * (v.ndim - 1)
            per_dim_sums = (grad * v).view(v.shape[0], -1).sum(1).view(*shape)
        else:
            shape = (1,) * (v.ndim - 1) + (v.shape[-1],)
            per_dim_sums = (grad * v).reshape(-1, v.shape[-1]).sum(0).view(*shape)
        grad_v = (g / norms) * (grad - v * (per_dim_sums / (norms * norms)))
        grad_g = per_dim_sums / norms
        return grad_v, grad_g, None


def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """torch._weight_norm(v, g, dim): g * v / ||v|| (the norm over every dim but ``dim``; dim=-1: all of v)."""
    v, g = v.contiguous(), g.contiguous()
    if dim == -1 or dim < -1:
        dim = dim if dim == -1 else dim + v.ndim
    if dim == 0 or dim == v.ndim - 1:
        return WeightNormInterface.apply(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))


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
    if needs[1] and not needs[0]:  # torch's mean and rstd are outputs of the forward node, requiring grad with weight
        mean, rstd = GroupNormStats.apply(weight, mean._array, rstd._array)
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


class GroupNormStats(Function):
    """The groups' mean and 1/std as outputs of a node on weight, for the create_graph backward of an input that
    needs no gradient: torch's native_group_norm returns them, so they require grad when weight does (the weight's
    gradient then does too), and their gradients reach only the input (here: none, so weight's is None)."""

    node_name, array_forward = "NativeGroupNormBackward0", True

    @staticmethod
    def forward(ctx, weight, mean, rstd):
        return mean.copy(), rstd.copy()

    @staticmethod
    def backward(ctx, grad_mean, grad_rstd):
        return None, None, None


def _check_group_norm_params(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> None:
    """torch's checks on group_norm's weight and bias, in its order: shapes, then its CPU mixed-dtype rules."""
    weight_shape = list(weight.shape) if weight is not None else [0]
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.shape[0] != input.shape[1]):
            # torch's text names weight's shape ([0] without one) for a bias of the wrong size too
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {weight_shape} and input of shape {list(input.shape)}")
    params = [p for p in (weight, bias) if p is not None]
    if not check_mixed_dtypes(input, params) and len(params) == 2 and params[1].dtype != input.dtype:
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
