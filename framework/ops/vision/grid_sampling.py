"""grid_sample (2-D, bilinear or nearest; zeros, border or reflection padding) and affine_grid: the spatial
transformer's two ops, with torch's node names (GridSampler2DBackward0, AffineGridGeneratorBackward0).

The forwards compute on arrays. The backwards are written with Tensor ops on the saved input and grid (a gather
of the four neighbours, their weights, an index_put that accumulates), so gradients of gradients work too; the
coordinate mapping and its derivative follow torch's GridSampler.h (unnormalize, clip, reflect) step by step."""
from __future__ import annotations

import warnings

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import scalar_type_name
from ..shape import stack


_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


def _reflect(xp, x, twice_low: int, twice_high: int):
    """torch's reflect_coordinates_set_grad: x folded into [low, high] by reflections; and d(out)/d(x) (+-1)."""
    if twice_low == twice_high:
        return xp.zeros_like(x), xp.zeros_like(x)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    sign = xp.where(x < lo, -1, 1).astype(x.dtype)
    x = xp.abs(x - lo)
    extra = xp.fmod(x, span)
    flips = xp.floor(x / span)
    odd = xp.fmod(flips, 2) != 0
    return xp.where(odd, span - extra + lo, extra + lo), xp.where(odd, -sign, sign)


def _clip(xp, x, size: int):
    """torch's clip_coordinates_set_grad: x clamped to [0, size - 1]; its derivative is 0 outside, 1 inside."""
    limit = size - 1
    grad = ((x >= 0) & (x <= limit)).astype(x.dtype)
    return xp.minimum(xp.maximum(x, 0), limit), grad


def _source(xp, coord, size: int, padding: str, align_corners: bool):
    """The input coordinate (in pixels) of normalised ``coord`` along a dim of ``size``, and d(pixel)/d(coord)."""
    if align_corners:
        x, mult = (coord + 1) / 2 * (size - 1), (size - 1) / 2
    else:
        x, mult = ((coord + 1) * size - 1) / 2, size / 2
    mult = xp.full_like(x, mult)
    if padding == "border":
        x, g = _clip(xp, x, size)
        mult = mult * g
    elif padding == "reflection":
        x, g = _reflect(xp, x, 0, 2 * (size - 1)) if align_corners else _reflect(xp, x, -1, 2 * size - 1)
        mult = mult * g
        x, g = _clip(xp, x, size)
        mult = mult * g
    return x, mult


def _taps(xp, ix, iy, mode: str):
    """The neighbours each output point reads: [(row, col, corner)]; corner names the tap's side ('w'/'e',
    'n'/'s') for its bilinear weight, None for the one nearest tap (weight 1)."""
    if mode == "nearest":
        return [(xp.rint(iy), xp.rint(ix), None)]  # nearbyint: half to even, as torch's
    x0, y0 = xp.floor(ix), xp.floor(iy)
    return [(y0, x0, ("w", "n")), (y0, x0 + 1, ("e", "n")), (y0 + 1, x0, ("w", "s")), (y0 + 1, x0 + 1, ("e", "s"))]


def _inside(xp, row, col, height: int, width: int):
    return (row >= 0) & (row <= height - 1) & (col >= 0) & (col <= width - 1)


class GridSampler2D(Function):
    """out[n, c, h, w] = input[n, c] read at grid[n, h, w] (normalised (x, y) in [-1, 1]) by bilinear or nearest
    interpolation, outside points by the padding mode. Saves input and grid."""

    node_name, array_forward = "GridSampler2DBackward0", True

    @staticmethod
    def forward(ctx, input, grid, mode, padding, align_corners):
        ctx.conf = (mode, padding, align_corners)
        ctx.save_for_backward(input, grid)
        xp = get_array_module(input)
        n, c, height, width = input.shape
        ix, _ = _source(xp, grid[..., 0], width, padding, align_corners)
        iy, _ = _source(xp, grid[..., 1], height, padding, align_corners)
        out = xp.zeros((n, c) + grid.shape[1:3], dtype=input.dtype)
        batch = xp.arange(n).reshape(n, 1, 1)
        for row, col, corner in _taps(xp, ix, iy, mode):
            inside = _inside(xp, row, col, height, width)
            r = xp.clip(row, 0, height - 1).astype(np.int64)
            k = xp.clip(col, 0, width - 1).astype(np.int64)
            vals = input[batch, :, r, k]  # (n, h, w, c)
            if corner is None:
                w = inside.astype(input.dtype)
            else:
                w = _weight(ix, iy, row, col, corner) * inside
            out += xp.moveaxis(vals * w[..., None], -1, 1)
        return out

    @staticmethod
    def backward(ctx, grad):
        input, grid = ctx.saved_tensors
        mode, padding, align_corners = ctx.conf
        return (*_grid_sample_backward(grad, input, grid, mode, padding, align_corners, ctx.needs_input_grad),
                None, None, None)


def _weight(ix, iy, row, col, corner):
    """The bilinear weight of the tap at (row, col): the area of the opposite sub-rectangle."""
    wx = (ix - (col - 1)) if corner[0] == "e" else ((col + 1) - ix)
    wy = (iy - (row - 1)) if corner[1] == "s" else ((row + 1) - iy)
    return wx * wy


def _grid_sample_backward(grad, input, grid, mode, padding, align_corners, needs):
    """grad_input and grad_grid with Tensor ops (differentiable in grad, input and grid)."""
    xp = get_array_module(input._array)
    n, c, height, width = input.shape
    # the integer taps and masks are constants of the grid's values (no gradient flows through floor)
    gx, gy = grid.detach()._array[..., 0], grid.detach()._array[..., 1]
    ix_a, _ = _source(xp, gx, width, padding, align_corners)
    iy_a, _ = _source(xp, gy, height, padding, align_corners)
    # the differentiable source coordinates, with torch's derivative multipliers (clip and reflection)
    ix = _source_tensor(grid[..., 0], width, padding, align_corners, xp)
    iy = _source_tensor(grid[..., 1], height, padding, align_corners, xp)
    batch = Tensor._make(xp.arange(n).reshape(n, 1, 1))
    grad_hw = grad.permute(0, 2, 3, 1)  # (n, h, w, c)
    grad_input = input.new_zeros(input.shape) if needs[0] else None
    grad_ix = grad_iy = None
    for row, col, corner in _taps(xp, ix_a, iy_a, mode):
        inside = _inside(xp, row, col, height, width)
        r = Tensor._make(xp.clip(row, 0, height - 1).astype(np.int64))
        k = Tensor._make(xp.clip(col, 0, width - 1).astype(np.int64))
        mask = Tensor._make(inside.astype(input._array.dtype))
        rowt, colt = Tensor._make(row.astype(input._array.dtype)), Tensor._make(col.astype(input._array.dtype))
        if corner is None:
            w = mask
        else:
            wx = (ix - (colt - 1)) if corner[0] == "e" else ((colt + 1) - ix)
            wy = (iy - (rowt - 1)) if corner[1] == "s" else ((rowt + 1) - iy)
            w = wx * wy * mask
        if needs[0]:
            contribution = (grad_hw * w.unsqueeze(-1)).permute(0, 3, 1, 2)  # (n, c, h, w)
            grad_input = grad_input.index_put(
                (batch.expand(*r.shape).unsqueeze(1), Tensor._make(xp.arange(c).reshape(1, c, 1, 1)),
                 r.unsqueeze(1), k.unsqueeze(1)), contribution, accumulate=True)
        if needs[1] and corner is not None:
            vals = input.permute(0, 2, 3, 1)[batch, r, k]  # (n, h, w, c)
            dot = (vals * grad_hw).sum(-1) * mask  # sum over channels of value * incoming gradient
            dwx = 1.0 if corner[0] == "e" else -1.0
            dwy = 1.0 if corner[1] == "s" else -1.0
            wy = (iy - (rowt - 1)) if corner[1] == "s" else ((rowt + 1) - iy)
            wx = (ix - (colt - 1)) if corner[0] == "e" else ((colt + 1) - ix)
            tx, ty = dot * wy * dwx, dot * wx * dwy
            grad_ix = tx if grad_ix is None else grad_ix + tx
            grad_iy = ty if grad_iy is None else grad_iy + ty
    grad_grid = None
    if needs[1]:
        if grad_ix is None:  # nearest: the output is piecewise constant in the grid
            grad_grid = grid.new_zeros(grid.shape)
        else:
            mult_x = _multiplier(xp, gx, width, padding, align_corners)
            mult_y = _multiplier(xp, gy, height, padding, align_corners)
            grad_grid = stack([grad_ix * mult_x, grad_iy * mult_y], -1)
    return grad_input, grad_grid


def _multiplier(xp, coord, size, padding, align_corners) -> Tensor:
    _, mult = _source(xp, coord, size, padding, align_corners)
    return Tensor._make(mult)


def _source_tensor(coord: Tensor, size: int, padding: str, align_corners: bool, xp) -> Tensor:
    """The source pixel coordinate as a Tensor of ``coord`` whose derivative is torch's multiplier: the exact
    mapping's value, plus (coord - coord.detach()) times the multiplier (a straight line through the point)."""
    value, mult = _source(xp, coord.detach()._array, size, padding, align_corners)
    return Tensor._make(value) + (coord - coord.detach()) * Tensor._make(mult)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` (N, C, H, W) at ``grid`` (N, H_out, W_out, 2) normalised (x, y) locations."""
    if _amp.on and autocast_applies("grid_sample", input, grid, mode, padding_mode, align_corners):
        return autocast_run("grid_sample", grid_sample, input, grid, mode, padding_mode, align_corners)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    dims = input.ndim - 2
    if grid.shape[-1] != dims:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {dims} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input._array.dtype != grid._array.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(grid._array.dtype)}")
    if input.ndim != 4 or mode == "bicubic":
        raise NotImplementedError(f"grid_sample: only 4-D input with mode 'bilinear' or 'nearest' is supported "
                                  f"here (got {input.ndim}-D, mode '{mode}')")
    return GridSampler2D.apply(input, grid, mode, padding_mode, bool(align_corners))


def _base_grid(xp, height: int, width: int, align_corners: bool, dtype):
    """(H, W, 3): x, y of each output pixel in [-1, 1] and a 1 (torch's affine_grid_generator base grid)."""
    def line(steps):
        if steps <= 1:
            return xp.zeros(max(steps, 0), dtype=dtype)
        out = xp.linspace(-1, 1, steps, dtype=dtype)
        return out if align_corners else out * ((steps - 1) / steps)

    base = xp.empty((height, width, 3), dtype=dtype)
    base[..., 0] = line(width)
    base[..., 1] = line(height)[:, None]
    base[..., 2] = 1
    return base


class AffineGridGenerator(Function):
    """grid[n, h, w] = theta[n] @ (x_w, y_h, 1): the sampling grid of an affine transform. Saves nothing (the base
    grid is a constant)."""
    half_in_steps = ("float16",)  # torch's float16 kernel rounds as NumPy's float16 (op-table probe)

    node_name, array_forward = "AffineGridGeneratorBackward0", True

    @staticmethod
    def forward(ctx, theta, size, align_corners):
        n, _, height, width = size
        xp = get_array_module(theta)
        base = _base_grid(xp, height, width, align_corners, theta.dtype)
        ctx.base = Tensor._make(base.reshape(1, height * width, 3))
        ctx.hw = (height, width)
        return (ctx.base._array @ xp.swapaxes(theta, 1, 2)).reshape(n, height, width, 2)

    @staticmethod
    def backward(ctx, grad):
        height, width = ctx.hw
        # torch's affine_grid_generator_backward: base^T @ grad, transposed to theta's (N, 2, 3)
        flat = grad.reshape(grad.shape[0], height * width, 2)
        return ctx.base.transpose(1, 2).matmul(flat).transpose(1, 2), None, None


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The (N, H, W, 2) grid that grid_sample needs to apply the affine maps ``theta`` (N, 2, 3)."""
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if theta._array.dtype.kind not in "fV":
        raise ValueError(f"Expected theta to have floating point type, but got {str(theta.dtype).replace('framework', 'torch')}")
    size = tuple(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"torch.Size({list(theta.shape)}).")
    elif len(size) == 5:
        raise NotImplementedError("affine_grid: 3-D (5-D size) transforms are not supported here; 2-D ones are")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, 3] but got: "
                           f"[{theta.shape[0]}, 3].")
    return AffineGridGenerator.apply(theta, size, bool(align_corners))
