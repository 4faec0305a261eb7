"""Circular padding as torch's _pad_circular: the input copied into a new tensor, then each padded dim's wrapped
edges copied in from the tensor itself (CopySlices nodes, so the graph and the gradients are torch's)."""
from __future__ import annotations

from ..tensor import Tensor


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
