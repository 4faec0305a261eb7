"""Copies and casts: clone, contiguous, to(dtype/device)."""
from __future__ import annotations

from .. import backend, dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad


class Clone(Function):
    """out = a copy of a. Saves nothing."""

    node_name, array_forward = "CloneBackward0", True

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Function):
    """out = a cast to another dtype and/or moved to another device. Saves the source dtype/device."""

    node_name, array_forward = "ToCopyBackward0", True

    @staticmethod
    def forward(ctx, a, np_dtype, device):
        ctx.src_dtype, ctx.src_device = a.dtype, backend.device_of(a)
        out = a
        if device is not None and device != ctx.src_device:
            out = backend.to_device(out, device)
        if np_dtype is not None and out.dtype != np_dtype:
            out = out.astype(np_dtype)
        if out is a:
            out = a.copy()
        return out

    @staticmethod
    def backward(ctx, grad):
        return ToCopy.apply(grad, ctx.src_dtype, ctx.src_device), None, None


def to(t, dtype=None, device=None, copy: bool = False):
    """Cast/move ``t``; returns ``t`` itself when nothing changes (as torch), unless copy=True."""
    np_dtype = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    dev = backend.norm_device(device) if device is not None else None
    same_dtype = np_dtype is None or np_dtype == t._array.dtype
    same_device = dev is None or dev == t.device
    if same_dtype and same_device and not copy:
        return t
    if np_dtype is not None and np_dtype.kind != "f" and t.requires_grad:
        with no_grad():
            return ToCopy.apply(t, np_dtype, dev)
    return ToCopy.apply(t, np_dtype, dev)


def clone(a):
    return Clone.apply(a)


def contiguous(a):
    return a if a._array.flags.c_contiguous else clone(a)
