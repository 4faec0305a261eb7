"""Copies and casts: clone, contiguous, to(dtype/device)."""
from __future__ import annotations

from .. import backend, dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ._layout import copy_preserving_layout


class Clone(Function):
    """out = a copy of a, laid out as ``memory_format`` says (torch's clone). Saves nothing."""

    node_name, array_forward = "CloneBackward0", True

    @staticmethod
    def forward(ctx, a, memory_format=dtypes.preserve_format):
        if memory_format is dtypes.contiguous_format:
            return a.copy()
        # torch's preserve_format: a transposed input gives a transposed copy (a later view() may then refuse it)
        return copy_preserving_layout(a)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


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
            # a float too large for float16 becomes inf, as torch's cast, silently: GradScaler's overflow checks
            # expect it, and NumPy's 'overflow encountered in cast' warning would print on each skipped step
            with backend.errstate(backend.get_array_module(out), over="ignore"):
                out = copy_preserving_layout(out, np_dtype)  # torch's to() keeps the layout, as clone() does
        if out is a:
            out = copy_preserving_layout(a)
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


def clone(a, *, memory_format: dtypes.memory_format = dtypes.preserve_format):
    """A copy with its own memory; by default in ``a``'s dim order (a transposed tensor's clone stays transposed)."""
    _check_memory_format(memory_format, "clone")
    return Clone.apply(a, memory_format)


def contiguous(a, memory_format: dtypes.memory_format = dtypes.contiguous_format):
    """``a`` itself when it is C-contiguous, else a C-contiguous copy (CloneBackward0)."""
    _check_memory_format(memory_format, "contiguous")
    if memory_format is dtypes.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return a if a._array.flags.c_contiguous else Clone.apply(a, dtypes.contiguous_format)


def _check_memory_format(memory_format, fn: str) -> None:
    if not isinstance(memory_format, dtypes.memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")
