"""F.interpolate, as torch.nn.functional.interpolate: its argument checks and errors, then one op per mode.

Every mode is a separable linear map (interp_weights.py builds its matrix per spatial dim), run by resample.py's
SeparableMap under torch's node name (UpsampleBicubic2DBackward0...); its backward is the transposed map, itself a
node under create_graph (UpsampleBicubic2DBackwardBackward0...).  'area' is torch's adaptive average pool."""
from __future__ import annotations

import math

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ... import dtypes
from ...tensor import Tensor
from .._separable import _node
from .._util import refuse_half_kernel
from ..pooling import adaptive_avg_pool2d, adaptive_avg_pool3d
from . import interp_weights as W


_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}


_LINEAR_NODE = {1: "UpsampleLinear1D", 2: "UpsampleBilinear2D", 3: "UpsampleTrilinear3D"}


def _is_integer(x) -> bool:
    return isinstance(x, int) or (isinstance(x, Tensor) and not x.is_floating_point() and x.ndim == 0)


def _sizes_and_scales(input: Tensor, size, scale_factor, recompute_scale_factor, dim: int) -> tuple:
    """torch's interpolate preamble: (output_size, scale_factors), exactly one a list, the other None."""
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {spatial} and output size of {size}. Please provide input tensor in (N, C, d1, "
                    "d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            output_size, scales = [int(s) for s in size], None
        else:
            output_size, scales = [int(size)] * dim, None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please provide input "
                    "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        # the output size from the scales, which are then forgotten: the kernel infers them from the sizes
        output_size, scales = [math.floor(n * s) for n, s in zip(spatial, scales)], None
    return output_size, scales


def _check_sizes(input: Tensor, out: list) -> None:
    """ATen's upsample_{1,2,3}d_shape_check on the sizes."""
    names = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}[len(out)]
    if all(n > 0 for n in input.shape[2:]) and all(n > 0 for n in out):
        return
    ins = ", ".join(f"{a}: {n}" for a, n in zip(names, input.shape[2:]))
    outs = ", ".join(f"{a}: {n}" for a, n in zip(names, out))
    sep = " and output" if len(out) == 1 else " output"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} ({outs})")


def _out_sizes(input: Tensor, output_size, scales) -> list:
    return output_size or [int(n * s) for n, s in zip(input.shape[2:], scales)]  # ATen truncates n * scale


def _copy_if_same_size(input: Tensor, output_size, scales, matrix):
    """``matrix``, or the identity when no spatial size changes: torch's kernel then copies (no taps of weight 0
    that would carry a NaN to a neighbour)."""
    if list(_out_sizes(input, output_size, scales)) != list(input.shape[2:]):
        return matrix
    return lambda o, n, s: W.selection(np.arange(n), n)


def _separable(input: Tensor, node: str, output_size, scales, matrix, grad_matrix=None) -> Tensor:
    """Apply ``matrix(n_out, n_in, scale)`` along each spatial dim as one node named ``node`` (whose backward
    applies ``grad_matrix``'s matrices when given, else the transposes)."""
    spatial = list(input.shape[2:])
    out = _out_sizes(input, output_size, scales)
    _check_sizes(input, out)
    scales = scales or [None] * len(spatial)
    mats = [matrix(o, n, s) for o, n, s in zip(out, spatial, scales)]
    if grad_matrix is None:
        return _node(node).apply(input, mats)
    return _node(node).apply(input, mats, [grad_matrix(o, n, s) for o, n, s in zip(out, spatial, scales)])


def _transposed(matrix):
    return lambda o, n, s: matrix(o, n, s).T


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all but N, C) by nearest(-exact), (bi/tri)linear, bicubic, area or lanczos, as torch."""
    if _amp.on and autocast_applies("interpolate", input, size, scale_factor, mode, align_corners,
                                    recompute_scale_factor, antialias):
        return autocast_run("interpolate", interpolate, input, size, scale_factor, mode, align_corners,
                            recompute_scale_factor, antialias)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    output_size, scales = _sizes_and_scales(input, size, scale_factor, recompute_scale_factor, dim)
    if mode == "area" and output_size is None:  # area needs sizes: torch takes the recompute path
        output_size, scales = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)], None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias:
        refuse_half_kernel(input, "compute_index_ranges_weights")  # torch has no float16/bfloat16 weights kernel
    if dim in (1, 2, 3) and mode in ("nearest", "nearest-exact"):
        exact, double = mode == "nearest-exact", input.dtype == dtypes.float64
        node = f"UpsampleNearest{'Exact' if exact else ''}{dim}DBackward0"
        if dim == 2:  # torch's 2-D forward kernel indexes as its backward does (float32 scale and products)
            return _separable(input, node, output_size, scales,
                              lambda o, n, s: W.selection(W.nearest_grad_source(o, n, s, exact), n))
        return _separable(input, node, output_size, scales,
                          lambda o, n, s: W.selection(W.nearest_source(o, n, s, exact, double), n),
                          lambda o, n, s: W.selection(W.nearest_grad_source(o, n, s, exact), n).T)
    if dim in (1, 2, 3) and mode == "area":
        if dim == 1:  # torch's adaptive_avg_pool1d: the 2-D pool on a height-1 view, squeezed
            return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size[0])).squeeze(-2)
        return (adaptive_avg_pool2d if dim == 2 else adaptive_avg_pool3d)(input, output_size)
    if dim in (1, 2, 3) and mode == _LINEAR[dim]:
        if antialias:
            return _separable(input, "UpsampleBilinear2DAaBackward0", output_size, scales,
                              lambda o, n, s: W.antialias_matrix(o, n, s, align_corners, "bilinear"))
        # a dim whose size does not change is copied (torch: whatever the scale, no taps of weight 0)
        return _separable(input, f"{_LINEAR_NODE[dim]}Backward0", output_size, scales, lambda o, n, s: W.selection(
            np.arange(n), n) if o == n else W.linear_matrix(o, n, s, align_corners))
    if dim == 2 and mode == "bicubic":
        if antialias:
            return _separable(input, "UpsampleBicubic2DAaBackward0", output_size, scales,
                              lambda o, n, s: W.antialias_matrix(o, n, s, align_corners, "bicubic"))
        cubic = lambda o, n, s: W.cubic_matrix(o, n, s, align_corners)  # noqa: E731
        # torch's bicubic backward copies when no size changes; its forward computes all taps even then
        return _separable(input, "UpsampleBicubic2DBackward0", output_size, scales, cubic,
                          _transposed(_copy_if_same_size(input, output_size, scales, cubic)))
    if dim == 2 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _separable(input, "UpsampleLanczos2DAaBackward0", output_size, scales,
                          lambda o, n, s: W.antialias_matrix(o, n, s, False, "lanczos"))
    for got, needs in ((1, "bilinear"), (1, "trilinear"), (2, "linear"), (2, "trilinear"), (3, "linear"),
                       (3, "bilinear")):
        if dim == got and mode == needs:
            want = {"linear": 3, "bilinear": 4, "trilinear": 5}[needs]
            raise NotImplementedError(f"Got {input.ndim}D input, but {needs} mode needs {want}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                              "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                              f"nearest-exact (got {mode})")
