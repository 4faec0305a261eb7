"""Linear layers (torch.nn.modules.linear): Identity, Linear, Bilinear, LazyLinear."""
from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ...ops.linalg import linear
from ... import creation
from ..functional.linear_maps import bilinear
from .. import functional as F, init
from ..parameter import is_lazy, Parameter, UninitializedParameter
from .module import Module


def _param(*shape, dtype=None, device=None) -> Parameter:
    return Parameter(creation.empty(*shape, dtype=dtype, device=device))


def _fan_in_bias_(bias, weight) -> None:
    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Identity(Module):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class _WeightBias(Module):
    """Linear and the convolutions: a weight, an optional bias, and torch's default initialisation."""

    def _make_parameters(self, weight_shape: tuple, bias_size: int | None, dtype, device) -> None:
        self.weight = _param(*weight_shape, dtype=dtype, device=device)
        if bias_size is not None:
            self.bias = _param(bias_size, dtype=dtype, device=device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as torch
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _fan_in_bias_(self.bias, self.weight)


class Linear(_WeightBias):
    """y = x @ W.T + b, with W of shape (out_features, in_features); torch's default init."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self._make_parameters((out_features, in_features), out_features if bias else None, dtype, device)

    def forward(self, input):
        if input.shape[-1] != self.in_features:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.numel() // max(input.shape[-1], 1)}x"
                               f"{input.shape[-1]} and {self.in_features}x{self.out_features})")
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear", "LazyLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """torch's name for MultiheadAttention's out_proj (a plain Linear)."""


class Bilinear(Module):
    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(creation.empty(out_features, in1_features, in2_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(Module):
    """Linear whose in_features is read from the first input; it then becomes a Linear (as torch's)."""

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in self._parameters.values() if p is not None)

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_features = input.shape[-1]
        with no_grad():
            self.weight = self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias = self.bias.materialize((self.out_features,))
            _WeightBias.reset_parameters(self)
        self.__class__ = Linear  # torch's cls_to_become

    def forward(self, input):
        self.initialize_parameters(input)
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
