"""Activations (torch.nn.modules.activation): the same objects as framework.nn."""
from ..activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from ..attention import MultiheadAttention  # noqa: F401

from ..activation_more import (CELU, ELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish,  # noqa: F401
                               PReLU, ReLU6, SiLU, Softmin, Softplus, Softsign, Tanhshrink)

from ..layers_extra import GLU, Hardshrink, RReLU, Softmax2d, Softshrink, Threshold  # noqa: F401

__all__ = ["CELU", "ELU", "GELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid", "LogSoftmax",
           "Mish", "MultiheadAttention", "PReLU", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softmax", "Softmin",
           "Softplus", "Softsign", "Tanh", "Tanhshrink", "GLU", "Hardshrink", "RReLU", "Softmax2d", "Softshrink", "Threshold"]
