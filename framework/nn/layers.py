"""Layers with parameters: Linear, Conv2d, ConvTranspose2d, BatchNorm1d/2d/3d, LayerNorm, Embedding."""
from __future__ import annotations

import math

from .. import creation
from ..autograd.grad_mode import no_grad
from . import functional as F, init
from .module import Module
from .parameter import Parameter


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


class _NormBase(Module):
    """What batch and instance norm share (torch's _NormBase): weight/bias, running stats, the repr."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats, self.use_bias = affine, track_running_stats, bias
        if affine:
            self.weight = Parameter(creation.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(creation.zeros(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", creation.tensor(0, device=device))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """running_mean = 0, running_var = 1, num_batches_tracked = 0, in place (so, as torch's, at version 1 after
        __init__: a graph that saved them sees later changes)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, weight = 1 and bias = 0 (in place, as torch's)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    _expected_dims: tuple = ()

    def forward(self, input):
        if input.dim() not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input (got {input.dim()}D "
                             "input)")
        use_batch = self.training or not self.track_running_stats
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average, as torch
                momentum = 1.0 / float(self.num_batches_tracked.item())
        return F.batch_norm(input, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None, self.weight, self.bias,
                            use_batch, momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs, with running statistics for eval."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs, with running statistics for eval."""

    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) inputs, with running statistics for eval."""

    _expected_dims = (5,)


class LayerNorm(Module):
    """Normalise over the last ``normalized_shape`` dims, with an elementwise affine transform."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(*self.normalized_shape, dtype=dtype, device=device))
            self.bias = Parameter(creation.zeros(*self.normalized_shape, dtype=dtype, device=device)) if bias else None
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Embedding(Module):
    """A lookup table: row i of ``weight`` for index i (gradients accumulate for repeated indices)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        for name, value in (("max_norm", max_norm is not None), ("scale_grad_by_freq", scale_grad_by_freq),
                            ("sparse", sparse)):
            if value:
                raise NotImplementedError(f"nn.Embedding({name}=...) is not supported")
        if padding_idx is not None:  # a negative index counts from the end, and is stored as the positive one
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, False, False
        if _weight is not None:  # the given table as it is (from_pretrained's path): no init, no zeroed padding row
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
            return
        self.weight = Parameter(creation.randn(num_embeddings, embedding_dim, dtype=dtype, device=device),
                                requires_grad=not _freeze)
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding whose table is ``embeddings`` itself (frozen unless freeze=False)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, embeddings, freeze)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"
