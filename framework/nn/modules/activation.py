"""Activations (torch.nn.modules.activation): the same objects as framework.nn."""
from ..activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from ..attention import MultiheadAttention  # noqa: F401

__all__ = ["GELU", "LeakyReLU", "LogSoftmax", "MultiheadAttention", "ReLU", "Sigmoid", "Softmax", "Tanh"]
