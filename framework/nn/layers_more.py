"""More layers: Conv1d, GroupNorm, MaxPool1d, AvgPool1d, AdaptiveAvgPool2d, Upsample (torch's defaults and reprs)."""
from __future__ import annotations

from .. import creation
from ..ops import conv_more as C
from ..ops.interpolate import interpolate
from ..ops.resample import pad
from . import functional_pool as FP
from .layers import _WeightBias, check_conv_args, reversed_padding_twice
from .module import Module
from .parameter import Parameter


def _one(v) -> tuple:
    return (v,) if isinstance(v, int) else tuple(v)


class Conv1d(_WeightBias):
    """1-D cross-correlation over (N, C, L) inputs; groups split the channels, padding_mode pads with F.pad's modes
    first; torch's default init."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        check_conv_args(in_channels, out_channels, groups, padding, _one(stride), padding_mode, False,
                        "Conv1d")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _one(kernel_size), _one(stride)
        self.padding = padding if isinstance(padding, str) else _one(padding)
        self.dilation, self.groups, self.padding_mode = _one(dilation), groups, padding_mode
        self._make_parameters((out_channels, in_channels // groups) + self.kernel_size,
                              out_channels if bias else None, dtype, device)

    def forward(self, input):
        if self.padding_mode != "zeros":
            input = pad(input, reversed_padding_twice(self.padding, self.kernel_size, self.dilation),
                        mode=self.padding_mode)
            return C.conv1d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return C.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding not in ((0,), "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1,):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class GroupNorm(Module):
    """Normalise each sample's channels in ``num_groups`` groups, then a per-channel affine transform."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(creation.ones(num_channels, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(creation.zeros(num_channels, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            self.weight.data.fill_(1.0)
        if self.bias is not None:
            self.bias.data.zero_()

    def forward(self, input):
        return C.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


class MaxPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def forward(self, input):
        return FP.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                             self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _one(kernel_size)
        self.stride = _one(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode, self.count_include_pad = _one(padding), ceil_mode, count_include_pad

    def forward(self, input):
        return FP.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average over bins chosen so the output has ``output_size`` (None keeps that dim's size)."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return C.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class Upsample(Module):
    """F.interpolate as a layer: a ``size`` or a ``scale_factor`` and any of its modes."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"
