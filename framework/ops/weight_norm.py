"""Weight normalisation's op: w = g * v / ||v|| with the norm over every dim but ``dim`` (torch._weight_norm and
norm_except_dim). For dim 0 or the last dim torch runs one fused op (WeightNormInterfaceBackward0); other dims
compose ordinary ops, as there."""
from __future__ import annotations

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from ..tensor import Tensor


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
