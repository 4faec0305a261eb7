"""Rearranging elements: flip, roll, repeat, tile, rot90."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result, copy_in_order, preserve_format_order
from .._util import shape_args, wrap_dim


def _dims(dims, ndim: int) -> tuple:
    """An int or a sequence of dims -> a tuple of non-negative dims, in the order given."""
    if isinstance(dims, int):
        dims = (dims,)
    return tuple(wrap_dim(int(d), ndim) for d in dims)


class Flip(Function):
    """out = a reversed along ``dims`` (a copy). Saves nothing."""

    node_name, array_forward = "FlipBackward0", True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        flipped = get_array_module(a).flip(a, axis=dims)
        if a.flags.c_contiguous:
            return flipped.copy()  # always new memory (ascontiguousarray kept a size-1 flip's view)
        return copy_in_order(flipped, preserve_format_order(a.shape, a.strides))  # torch's: the input's layout

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None


class Roll(Function):
    """out = a rolled by ``shifts`` along ``dims`` (all elements, flattened, when dims is None). Saves nothing."""

    node_name, array_forward = "RollBackward0", True

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return contiguous_result(get_array_module(a).roll(a, shifts, axis=dims))  # torch's: row-major, always

    @staticmethod
    def backward(ctx, grad):
        back = -ctx.shifts if ctx.dims is None else tuple(-s for s in ctx.shifts)
        return Roll.apply(grad, back, ctx.dims), None, None


class Repeat(Function):
    """out = a tiled ``sizes`` times along each dim (a copy; extra leading sizes add dims). Saves nothing."""

    node_name, array_forward = "RepeatBackward0", True

    @staticmethod
    def forward(ctx, a, sizes):
        if len(sizes) < a.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                               "of tensor")
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
        ctx.shape, ctx.sizes = a.shape, sizes
        return get_array_module(a).tile(a, sizes)

    @staticmethod
    def backward(ctx, grad):
        # out dim i (of the trailing ones) is (sizes[i], shape[i]) flattened: split it and sum the repeat axis
        lead = len(ctx.sizes) - len(ctx.shape)
        split = []
        for i, r in enumerate(ctx.sizes):
            split += [r] if i < lead else [r, ctx.shape[i - lead]]
        summed = tuple(range(lead)) + tuple(lead + 2 * j for j in range(len(ctx.shape)))
        g = grad.reshape(tuple(split))
        return (g.sum(dim=summed) if summed else g), None


def flip(input: Tensor, *args, dims=None) -> Tensor:
    """input reversed along ``dims`` (``flip(x, [0, 1])``, ``x.flip(0, 1)`` or ``dims=``): a copy."""
    dims = _dims(shape_args(args) if dims is None else dims, input.ndim)
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(input, dims)


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    if dims is None or (isinstance(dims, (tuple, list)) and not dims):
        if not isinstance(shifts, int):
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
            shifts = shifts[0]
        return Roll.apply(input, int(shifts), None)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    dims = _dims(dims, input.ndim)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(input, shifts, dims)


def repeat(input: Tensor, *sizes) -> Tensor:
    """input tiled ``sizes`` times (Tensor.repeat: torch has no top-level torch.repeat)."""
    return Repeat.apply(input, tuple(int(s) for s in shape_args(sizes)))


def tile(input: Tensor, *args, dims=None) -> Tensor:
    dims = tuple(int(s) for s in (shape_args(args) if dims is None else dims))
    dims = (1,) * (input.ndim - len(dims)) + dims  # fewer reps than dims: the leading dims are kept as they are
    return Repeat.apply(input, dims)


class Rot90(Function):
    """out = a rotated k quarter turns in the plane of dims (d0, d1), from d0 towards d1 (a copy). Saves nothing."""

    node_name, array_forward = "Rot90Backward0", True

    @staticmethod
    def forward(ctx, a, k, d0, d1):
        ctx.k, ctx.dims = k, (d0, d1)
        xp = get_array_module(a)
        k %= 4
        # torch's layout: k = 1, 3 flip into a copy laid out as a (empty_like's preserve format), then transpose
        # it (a non-contiguous result for a contiguous a); k = 2 flips both dims, k = 0 clones (contiguous)
        if k == 1:
            return xp.swapaxes(xp.flip(a, d1).copy(order="K"), d0, d1)
        if k == 3:
            return xp.swapaxes(xp.flip(a, d0).copy(order="K"), d0, d1)
        if k == 2:
            return xp.ascontiguousarray(xp.flip(xp.flip(a, d0), d1))
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, -ctx.k, *ctx.dims), None, None, None


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """input rotated by k * 90 degrees in the plane of dims, from the first towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return Rot90.apply(input, int(k), d0, d1)
