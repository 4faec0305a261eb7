"""Activations (torch.nn.modules.activation): the same objects as framework.nn."""
from ..activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from ..attention import MultiheadAttention  # noqa: F401

from ..activation_more import (ELU, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6,  # noqa: F401
                               SiLU, Softmin, Softplus, Softsign)

__all__ = ["ELU", "GELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish",
           "MultiheadAttention", "PReLU", "ReLU", "ReLU6", "SiLU", "Sigmoid", "Softmax", "Softmin", "Softplus",
           "Softsign", "Tanh"]
