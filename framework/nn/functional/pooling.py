"""torch.nn.functional's pooling: max pools with indices (1-3 D), max unpooling, adaptive max / average pools,
average pools with ceil_mode / count_include_pad / divisor_override, power-average (LP) pools.

The 1-D forms are torch's own graphs: unsqueeze(-2), the 2-D op, squeeze(-2) (SqueezeBackward1 on top); the plain
2-D calls keep ops/conv/convolution_2d.py's ops, the rest run ops/pooling/pool_nd.py's N-d ones."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...ops._sliding import ntuple
from ...ops.pointwise import relu
from ...ops.pooling import (adaptive_max_pool2d as _pool_adaptive_max_pool2d, adaptive_max_pool_nd, avg_pool_nd,
                            max_pool_nd, max_unpool_nd, pool2d as _conv, pool2d as _conv_more, pool_check)
from ...tensor import Tensor


def _check_1d(name: str, input: Tensor) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """(out, indices): the max of each window and its flat position within the input's (H, W) plane."""
    return max_pool_nd(input, 2, "max_pool2d", kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    if return_indices or ceil_mode or ntuple(dilation, 2) != (1, 1) or input.ndim != 4:
        out = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return out if return_indices else out[0]
    k = ntuple(kernel_size, 2)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else ntuple(stride, 2)
    pool_check("max_pool2d", tuple(input.shape), k, s, ntuple(padding, 2), (1, 1), False, 2)
    return _conv.MaxPool2d.apply(input, k, s, ntuple(padding, 2))


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """(out, indices) of a 1-D max pool: torch's graph, the 2-D op on a height-1 view, squeezed."""
    _check_1d("max_pool1d", input)
    one = lambda v, name: (1,) + ntuple(v, 1, name)  # noqa: E731
    s = None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else one(stride, "stride")
    out, idx = max_pool_nd(input.unsqueeze(-2), 2, "max_pool1d", one(kernel_size, "kernel_size"), s,
                                 (0,) + ntuple(padding, 1), one(dilation, "dilation"), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    _check_1d("max_pool1d", input)
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if ntuple(dilation, 1) == (1,) and not ceil_mode:
        out = _conv_more.max_pool1d(input, kernel_size, stride, padding)
    else:
        out = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]
        if not out.requires_grad:  # as conv_more's: without a gradient to track, torch's result is no view
            out = Tensor._make(out._array.copy())
    if not out.requires_grad and input.ndim == 2 and out._version_counter is not None:
        out._version_counter.bump("max_pool1d")  # torch's max_pool1d_impl squeezes an unbatched result in place
    return out


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """(out, indices): the max of each 3-D window and its flat position within the input's (D, H, W) volume."""
    return max_pool_nd(input, 3, "max_pool3d", kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    if _amp.on and autocast_applies("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode,
                                    return_indices):
        return autocast_run("max_pool3d", max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode,
                            return_indices)
    out = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    if ceil_mode or not count_include_pad or divisor_override is not None or input.ndim != 4:
        return avg_pool_nd(input, 2, "avg_pool2d", kernel_size, stride, padding, ceil_mode, count_include_pad,
                                 divisor_override)
    k = ntuple(kernel_size, 2)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else ntuple(stride, 2)
    pool_check("avg_pool2d", tuple(input.shape), k, s, ntuple(padding, 2), (1, 1), False, 2)
    return _conv.AvgPool2d.apply(input, k, s, ntuple(padding, 2))


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    _check_1d("avg_pool1d", input)
    if not ceil_mode and count_include_pad:
        return _conv_more.avg_pool1d(input, kernel_size, stride, padding)
    one = lambda v, name: (1,) + ntuple(v, 1, name)  # noqa: E731
    s = None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else one(stride, "stride")
    return avg_pool_nd(input.unsqueeze(-2), 2, "avg_pool1d", one(kernel_size, "kernel_size"), s,
                             (0,) + ntuple(padding, 1), ceil_mode, count_include_pad, None).squeeze(-2)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    if _amp.on and autocast_applies("avg_pool3d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                    divisor_override):
        return autocast_run("avg_pool3d", avg_pool3d, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)
    return avg_pool_nd(input, 3, "avg_pool3d", kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value at its index in a zero (N, C, L_out) output: a partial inverse of max_pool1d."""
    return max_unpool_nd(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value at its index in a zero (N, C, H_out, W_out) output: a partial inverse of max_pool2d."""
    if _amp.on and autocast_applies("max_unpool2d", input, indices, kernel_size, stride, padding, output_size):
        return autocast_run("max_unpool2d", max_unpool2d, input, indices, kernel_size, stride, padding, output_size)
    return max_unpool_nd(input, indices, 2, kernel_size, stride, padding, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """(out, indices): the max over each adaptive bin and its flat position within the (H, W) plane."""
    return _pool_adaptive_max_pool2d(input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    out = _pool_adaptive_max_pool2d(input, output_size)
    return out if return_indices else out[0]


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value at its index in a zero (N, C, D_out, H_out, W_out) output: a partial inverse of max_pool3d."""
    if _amp.on and autocast_applies("max_unpool3d", input, indices, kernel_size, stride, padding, output_size):
        return autocast_run("max_unpool3d", max_unpool3d, input, indices, kernel_size, stride, padding, output_size)
    return max_unpool_nd(input, indices, 3, kernel_size, stride, padding, output_size)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """(out, indices): the max over each adaptive 3-D bin and its flat position within the (D, H, W) volume."""
    return adaptive_max_pool_nd(input, output_size, 3)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    if _amp.on and autocast_applies("adaptive_max_pool3d", input, output_size, return_indices):
        return autocast_run("adaptive_max_pool3d", adaptive_max_pool3d, input, output_size, return_indices)
    out = adaptive_max_pool_nd(input, output_size, 3)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """(out, indices) of a 1-D adaptive max pool: torch's graph, the 2-D op on a height-1 view, squeezed."""
    _check_1d("adaptive_max_pool1d", input)
    out, idx = _pool_adaptive_max_pool2d(input.unsqueeze(-2), (1,) + ntuple(output_size, 1, "output_size"))
    return out.squeeze(-2), idx.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """The mean over each adaptive bin of the last dim: torch's graph, the 2-D op on a height-1 view, squeezed."""
    _check_1d("adaptive_avg_pool1d", input)
    return _conv_more.adaptive_avg_pool2d(input.unsqueeze(-2),
                                          (1,) + ntuple(output_size, 1, "output_size")).squeeze(-2)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p): torch's composite, the average pool of x^p times the window size."""
    kw, kh = ntuple(kernel_size, 2)
    if norm_type == float("inf"):
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each (kD, kH, kW) window of x^p)^(1/p): torch's composite over avg_pool3d."""
    kd, kw, kh = ntuple(kernel_size, 3)
    if norm_type == float("inf"):
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kd * kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) along the last dim: torch's composite over avg_pool1d."""
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)
