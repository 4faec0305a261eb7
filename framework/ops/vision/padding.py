"""Padding (F.pad): constant, reflect, replicate and circular modes."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import copy_preserving_layout
from .._separable import _node, _selection


def pad_circular(input: Tensor, pad: tuple) -> Tensor:
    """Pad the last len(pad) // 2 dims of ``input`` with its own wrapped-around values (negative pads crop)."""
    k = len(pad) // 2
    shape = list(input.shape)
    for i in range(k):
        dim = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > shape[dim] or hi > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[dim] += lo + hi
        if shape[dim] < 0:
            raise RuntimeError(f"Negative padding value is resulting in an empty dimension, dim {dim}")
    out = input.new_empty(tuple(shape))
    out_idx, in_idx = [slice(None)] * input.ndim, [slice(None)] * input.ndim
    for i in range(k):
        dim, (lo, hi) = input.ndim - 1 - i, (pad[2 * i], pad[2 * i + 1])
        out_idx[dim] = slice(max(lo, 0), shape[dim] - max(hi, 0))
        in_idx[dim] = slice(max(-lo, 0), input.shape[dim] - max(-hi, 0))
    out[tuple(out_idx)].copy_(input[tuple(in_idx)])
    # then each dim's left and right pads from the opposite edge (corners are written more than once, as torch's)
    for i in range(k):
        dim, (lo, hi) = input.ndim - 1 - i, (pad[2 * i], pad[2 * i + 1])
        n = shape[dim]
        if lo > 0:
            out.narrow(dim, 0, lo).copy_(out.narrow(dim, n - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(dim, n - hi, hi).copy_(out.narrow(dim, max(lo, 0), hi))
    return out


class ConstantPad(Function):
    """out = a surrounded by ``value`` (negative pads crop). Saves nothing."""

    node_name, array_forward = "ConstantPadNdBackward0", True

    @staticmethod
    def forward(ctx, a, pads, value):
        xp = get_array_module(a)
        ctx.pads = pads
        out_shape, src, dst = list(a.shape), [], []
        for d, (lo, hi) in enumerate(pads):
            n = a.shape[d]
            out_shape[d] = n + lo + hi
            if out_shape[d] < 0:
                raise RuntimeError(f"The input size {n}, plus negative padding {lo} and {hi} resulted in a "
                                   f"negative output size, which is invalid. Check dimension {d} of your input.")
            start, stop = max(-lo, 0), n - max(-hi, 0)
            src.append(slice(start, max(stop, start)))
            dst.append(slice(max(lo, 0), max(lo, 0) + max(stop - start, 0)))
        if all(lo <= 0 and hi <= 0 for lo, hi in pads):  # torch's narrow().clone(): the input's layout kept
            return copy_preserving_layout(a[tuple(src)])
        out = xp.full(out_shape, value, dtype=a.dtype)
        out[tuple(dst)] = a[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, grad):
        # input element i sits at output i + lo: padding the gradient by (-lo, -hi) crops it back
        return ConstantPad.apply(grad, tuple((-lo, -hi) for lo, hi in ctx.pads), 0.0), None, None


def pad(input: Tensor, pad: tuple, mode: str = "constant", value: float | None = None) -> Tensor:
    """torch.nn.functional.pad: ``pad`` lists (left, right) pairs starting from the last dim."""
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length must be divisible by 2" if len(pad) % 2 else
                           "Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    k = len(pad) // 2
    pairs = [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(k)][::-1]  # first padded dim first
    if mode == "constant":
        full = [(0, 0)] * (input.ndim - k) + pairs
        return ConstantPad.apply(input, tuple(full), 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if input.ndim not in (k + 1, k + 2) or k > 3:
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    if mode == "circular":  # torch's composite of copies (CopySlices), not a map
        return pad_circular(input, tuple(int(p) for p in pad))
    mats = []
    for d, (lo, hi) in zip(range(input.ndim - k, input.ndim), pairs):
        n = input.shape[d]
        pos = np.arange(-lo, n + hi)
        if mode == "reflect":
            if lo >= n or hi >= n:
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                                   f"{list(input.shape)}")
            period = 2 * (n - 1) if n > 1 else 1
            pos = np.abs(pos) % period
            src = np.where(pos >= n, period - pos, pos)
        else:  # replicate
            src = np.clip(pos, 0, n - 1)
        mats.append(_selection(src, n))

    name = {"reflect": "ReflectionPad", "replicate": "ReplicationPad"}[mode]
    return _node(f"{name}{k}DBackward0").apply(input, mats)
