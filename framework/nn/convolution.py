"""Convolution layers beyond Conv1d/Conv2d/ConvTranspose2d: Conv3d, ConvTranspose1d, ConvTranspose3d (torch's
arguments, groups and padding modes, default initialisation and reprs)."""
from __future__ import annotations

from ..ops import conv_nd as C
from ..tensor import Size, Tensor
from ..ops.resample import pad
from .layers import _WeightBias, check_conv_args, reversed_padding_twice


def _ntuple(v, k: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * k


class _ConvNd(_WeightBias):
    """What the k-d convolutions share: their arguments, parameters and torch's _ConvNd.extra_repr."""

    _dims, _transposed = 3, False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__()
        k = self._dims
        check_conv_args(in_channels, out_channels, groups, padding, _ntuple(stride, k), padding_mode,
                        self._transposed, type(self).__name__)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _ntuple(kernel_size, k), _ntuple(stride, k)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, k)
        self.dilation, self.output_padding = _ntuple(dilation, k), _ntuple(output_padding, k)
        self.groups, self.padding_mode, self.transposed = groups, padding_mode, self._transposed
        channels = (in_channels, out_channels // groups) if self._transposed else (out_channels, in_channels // groups)
        self._make_parameters(channels + self.kernel_size, out_channels if bias else None, dtype, device)

    def extra_repr(self) -> str:
        k = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * k:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * k:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * k:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv3d(_ConvNd):
    """3-D cross-correlation over (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation, groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            input = pad(input, reversed_padding_twice(self.padding, self.kernel_size, self.dilation),
                        mode=self.padding_mode)
            return C.conv3d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return C.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation, groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size) -> tuple:
        """torch's: the output_padding that gives ``output_size`` (checked against the sizes reachable)."""
        if output_size is None:
            return self.output_padding
        k = self._dims
        size = list(output_size)[-k:] if len(output_size) in (k + 1, k + 2) else list(output_size)
        if len(size) != k:
            raise ValueError(f"ConvTranspose{k}D: for {input.dim()}D input, output_size must have {k} or "
                             f"{input.dim()} elements (got {len(output_size)})")
        spatial = list(input.shape[-k:])
        lo = [(n - 1) * s - 2 * p + d * (kk - 1) + 1 for n, s, p, d, kk in
              zip(spatial, self.stride, self.padding, self.dilation, self.kernel_size)]
        hi = [m + s - 1 for m, s in zip(lo, self.stride)]
        for d in range(k):
            if not lo[d] <= size[d] <= hi[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {lo} to {hi} (for "
                                 f"an input of {Size(input.shape[-k:])!r})")
        return tuple(s - m for s, m in zip(size, lo))


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of Conv1d (a learned upsampling) over (N, C, L) or (C, L); weight (in, out, k)."""

    _dims = 1

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        return C.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """The transpose of Conv3d over (N, C, D, H, W) or (C, D, H, W); weight (in, out, kD, kH, kW)."""

    _dims = 3

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        return C.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)
