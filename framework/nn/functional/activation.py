"""Activation functions of torch.nn.functional: relu, leaky_relu, sigmoid, tanh, softmax, log_softmax, gelu, gumbel_softmax.

Thin wrappers over the ops in framework/ops/activation and ops/pointwise; in-place forms keep torch's inplace= argument."""
from __future__ import annotations

import warnings

from ...ops.activation.gated import _Gelu
from ...ops.activation import implicit_softmax_dim
from ...ops.pointwise import unary_inplace as _un
from ... import backend, creation, ops
from ...random import _gen
from ...tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _un.ReluInplace.apply(input) if inplace else ops.relu(input)


def relu_(x: Tensor) -> Tensor:
    return _un.ReluInplace.apply(x)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _un.LeakyReluInplace.apply(input, negative_slope) if inplace else ops.leaky_relu(input, negative_slope)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _un.LeakyReluInplace.apply(x, negative_slope)


def sigmoid(input: Tensor) -> Tensor:
    return ops.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return ops.tanh(input)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``; without one, torch's legacy choice with its deprecation warning."""
    if dim is None:
        dim = implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return ops.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``; without one, torch's legacy choice with its deprecation warning."""
    if dim is None:
        dim = implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ops.log_softmax(input, dim, dtype)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x); approximate='tanh' uses torch's tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _Gelu.apply(x, approximate)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); hard=True: the one-hot of its argmax, with the soft gradient."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    draw = _gen(None).exponential(size=tuple(logits.shape)).astype(logits._array.dtype)
    gumbels = -Tensor._make(backend.to_device(draw, logits.device)).log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
