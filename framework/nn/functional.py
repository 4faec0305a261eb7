"""The ``F`` namespace: stateless layer and loss functions (as torch.nn.functional)."""
from __future__ import annotations

from .. import ops
from ..ops import unary as _un


def relu(x, inplace: bool = False):
    return _un.ReluInplace.apply(x) if inplace else ops.relu(x)


def leaky_relu(x, negative_slope: float = 0.01, inplace: bool = False):
    return _un.LeakyReluInplace.apply(x, negative_slope) if inplace else ops.leaky_relu(x, negative_slope)


def sigmoid(x):
    return ops.sigmoid(x)


def tanh(x):
    return ops.tanh(x)


def softmax(x, dim: int, dtype=None):
    return ops.softmax(x, dim, dtype)


def log_softmax(x, dim: int, dtype=None):
    return ops.log_softmax(x, dim, dtype)
