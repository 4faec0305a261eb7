"""Shuffles: pixel_shuffle, pixel_unshuffle, channel_shuffle."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor


def _check(name: str, what: str, input: Tensor, r: int) -> None:
    """torch's checks: a positive factor, at least 3 dims (the ones before C, H, W are batch dims)."""
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")


class PixelShuffle(Function):
    """out[..., c, h*r + i, w*r + j] = a[..., c*r*r + i*r + j, h, w]. Saves nothing."""

    node_name, array_forward = "PixelShuffleBackward0", True

    @staticmethod
    def forward(ctx, a, r):
        ctx.r = r
        *batch, c, h, w = a.shape
        n = len(batch)
        x = a.reshape(*batch, c // (r * r), r, r, h, w)
        x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (..., C, H, r, W, r)
        return get_array_module(a).ascontiguousarray(x).reshape(*batch, c // (r * r), h * r, w * r)

    @staticmethod
    def backward(ctx, grad):
        return PixelUnshuffle.apply(grad, ctx.r), None


class PixelUnshuffle(Function):
    """out[..., c*r*r + i*r + j, h, w] = a[..., c, h*r + i, w*r + j]. Saves nothing."""

    node_name, array_forward = "PixelUnshuffleBackward0", True

    @staticmethod
    def forward(ctx, a, r):
        ctx.r = r
        *batch, c, h, w = a.shape
        n = len(batch)
        x = a.reshape(*batch, c, h // r, r, w // r, r)
        x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (..., C, r, r, H, W)
        return get_array_module(a).ascontiguousarray(x).reshape(*batch, c * r * r, h // r, w // r)

    @staticmethod
    def backward(ctx, grad):
        return PixelShuffle.apply(grad, ctx.r), None


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r), r = upscale_factor."""
    r = int(upscale_factor)
    _check("pixel_shuffle", "upscale_factor", input, r)
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return PixelShuffle.apply(input, r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), r = downscale_factor."""
    r = int(downscale_factor)
    _check("pixel_unshuffle", "downscale_factor", input, r)
    for name, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={input.shape[d]} is not divisible by {r}")
    return PixelUnshuffle.apply(input, r)


class ChannelShuffle(Function):
    """out = the channels (dim 1) of x regrouped: (g, C/g) -> (C/g, g). Saves nothing."""

    node_name, array_forward = "ChannelShuffleBackward0", True

    @staticmethod
    def forward(ctx, x, groups):
        n, c = x.shape[0], x.shape[1]
        ctx.groups = groups
        out = x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
        return get_array_module(x).ascontiguousarray(out).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        # the inverse permutation: a shuffle with C/g groups
        return ChannelShuffle.apply(grad, grad.shape[1] // ctx.groups), None


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Regroup the channels: split into ``groups`` groups and interleave them (ShuffleNet)."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    return ChannelShuffle.apply(input, int(groups))
