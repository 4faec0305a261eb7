"""Convolution layers (torch.nn.modules.conv): Conv1d/2d/3d and ConvTranspose1d/2d/3d, with torch's argument checks and padding modes."""
from __future__ import annotations

from ...ops.conv import conv1d, convolution_nd as C
from ...ops.vision import pad
from ...tensor import Size, Tensor
from .. import functional as F
from .linear import _WeightBias


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
            return conv1d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

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


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def check_conv_args(in_channels: int, out_channels: int, groups: int, padding, stride: tuple, padding_mode: str,
                    transposed: bool, name: str) -> None:
    """torch's _ConvNd checks on a convolution module's arguments, in its order (ValueError, its texts)."""
    if transposed and padding_mode != "zeros":  # _ConvTransposeNd checks this first
        raise ValueError(f'Only "zeros" padding mode is supported for {name}')
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {({'same', 'valid'})}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    modes = {"zeros", "reflect", "replicate", "circular"}  # a set, as torch's: its text lists them in set order
    if padding_mode not in modes:
        raise ValueError(f"padding_mode must be one of {modes}, but got padding_mode='{padding_mode}'")


def reversed_padding_twice(padding, kernel_size: tuple, dilation: tuple) -> tuple:
    """F.pad's argument for a padding_mode other than zeros (torch's _reversed_padding_repeated_twice): each dim's
    padding on both sides, last dim first; 'same' splits the kernel's span, the extra element on the right."""
    if padding == "valid":
        padding = (0,) * len(kernel_size)
    pads = []
    for i in reversed(range(len(kernel_size))):
        if padding == "same":
            total = dilation[i] * (kernel_size[i] - 1)
            pads += [total // 2, total - total // 2]
        else:
            pads += [padding[i], padding[i]]
    return tuple(pads)


class Conv2d(_WeightBias):
    """2-D cross-correlation over (N, C, H, W) inputs; groups split the channels (depthwise: groups=in_channels),
    padding_mode pads with F.pad's modes first."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        check_conv_args(in_channels, out_channels, groups, padding, _pair(stride), padding_mode, False, "Conv2d")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self._make_parameters((out_channels, in_channels // groups) + self.kernel_size,
                              out_channels if bias else None, dtype, device)

    def forward(self, input):
        if self.padding_mode != "zeros":
            input = F.pad(input, reversed_padding_twice(self.padding, self.kernel_size, self.dilation),
                          mode=self.padding_mode)
            return F.conv2d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class ConvTranspose2d(_WeightBias):
    """The transpose of Conv2d (a learned upsampling), weight of shape (in, out / groups, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__()
        check_conv_args(in_channels, out_channels, groups, padding, _pair(stride), padding_mode, True,
                        "ConvTranspose2d")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = _pair(kernel_size), _pair(stride), _pair(padding)
        self.output_padding, self.dilation, self.groups = _pair(output_padding), _pair(dilation), groups
        self.padding_mode = padding_mode
        self._make_parameters((in_channels, out_channels // groups) + self.kernel_size,
                              out_channels if bias else None, dtype, device)

    def forward(self, input, output_size: list[int] | None = None):
        output_padding = self.output_padding if output_size is None else self._output_padding_for(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)

    def _output_padding_for(self, input, output_size) -> tuple:
        """The output_padding that makes the output ``output_size`` (its spatial sizes, or with batch/channels)."""
        output_size = list(output_size)
        leading = 2 if input.dim() == 4 else 1
        if len(output_size) == leading + 2:
            output_size = output_size[leading:]
        if len(output_size) != 2:
            raise ValueError(f"ConvTranspose2D: for {input.dim()}D input, output_size must have 2 or {leading + 2} "
                             f"elements (got {len(output_size)})")
        smallest = [(input.size(d + leading) - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(2)]
        largest = [smallest[d] + self.stride[d] - 1 for d in range(2)]
        if any(not smallest[d] <= output_size[d] <= largest[d] for d in range(2)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {input.size()[leading:]})")
        return tuple(output_size[d] - smallest[d] for d in range(2))

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        for name, default in (("padding", (0, 0)), ("dilation", (1, 1)), ("output_padding", (0, 0))):
            if getattr(self, name) != default:
                s += f", {name}={getattr(self, name)}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + (", bias=False" if self.bias is None else "")
