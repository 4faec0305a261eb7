"""Batch normalisation as one node, torch's native_batch_norm: NativeBatchNormBackward0 with edges (input, weight,
bias), the running statistics updated in the forward (without a version bump, as torch's kernel)."""
from __future__ import annotations

from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor


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
