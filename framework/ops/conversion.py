"""Copies and casts: clone, contiguous, to(dtype/device)."""
from __future__ import annotations

from .. import backend, dtypes
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ._layout import (check_format_rank, copy_in_order, copy_preserving_layout, format_order, is_contiguous_as,
                      suggest_memory_format)


class Clone(Function):
    """out = a copy of a, laid out as ``memory_format`` says (torch's clone). Saves nothing."""

    node_name, array_forward = "CloneBackward0", True

    @staticmethod
    def forward(ctx, a, memory_format=dtypes.preserve_format):
        if memory_format is not dtypes.preserve_format:  # contiguous_format, channels_last(_3d)
            return copy_in_order(a, format_order(memory_format, a.ndim))
        # torch's preserve_format: a transposed input gives a transposed copy (a later view() may then refuse it)
        return copy_preserving_layout(a)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class ToCopy(Function):
    """out = a cast to another dtype and/or moved to another device. Saves the source dtype/device."""

    node_name, array_forward = "ToCopyBackward0", True
    exact_in_bfloat16 = True

    @staticmethod
    def forward(ctx, a, np_dtype, device, memory_format=dtypes.preserve_format):
        ctx.src_dtype, ctx.src_device = a.dtype, backend.device_of(a)
        backend.check_gpu_dtype(np_dtype if np_dtype is not None else a.dtype, device or ctx.src_device)
        out = a
        if device is not None and device != ctx.src_device:
            out = backend.to_device(out, device)
        if memory_format is not dtypes.preserve_format:  # to(memory_format=): one copy in that format, cast too
            with backend.errstate(backend.get_array_module(out), over="ignore"):
                return copy_in_order(out, format_order(memory_format, out.ndim),
                                     None if np_dtype is None or out.dtype == np_dtype else np_dtype)
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
        return ToCopy.apply(grad, ctx.src_dtype, ctx.src_device), None, None, None


def to(t, dtype=None, device=None, copy: bool = False, memory_format: dtypes.memory_format | None = None):
    """Cast/move ``t`` and/or lay it out in ``memory_format``; returns ``t`` itself when nothing changes (as
    torch's to_will_alias: same dtype and device, and t's suggested memory format is the one asked), unless
    copy=True."""
    np_dtype = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    dev = backend.norm_device(device) if device is not None else None
    fmt = dtypes.preserve_format if memory_format is None else memory_format
    _check_memory_format(fmt, "to")
    check_format_rank(fmt, t.ndim)
    same_dtype = np_dtype is None or np_dtype == t._array.dtype
    same_device = dev is None or dev == t.device
    same_format = fmt is dtypes.preserve_format or fmt.name == suggest_memory_format(t.shape, t.stride())
    if same_dtype and same_device and same_format and not copy:
        return t
    if np_dtype is not None and np_dtype.kind not in "fV" and t.requires_grad:
        with no_grad():
            return ToCopy.apply(t, np_dtype, dev, fmt)
    return ToCopy.apply(t, np_dtype, dev, fmt)


def clone(a, *, memory_format: dtypes.memory_format = dtypes.preserve_format):
    """A copy with its own memory; by default in ``a``'s dim order (a transposed tensor's clone stays transposed)."""
    _check_memory_format(memory_format, "clone")
    check_format_rank(memory_format, a.ndim)
    return Clone.apply(a, memory_format)


def contiguous(a, memory_format: dtypes.memory_format = dtypes.contiguous_format):
    """``a`` itself when it is contiguous in ``memory_format``, else a copy laid out so (CloneBackward0)."""
    _check_memory_format(memory_format, "contiguous")
    if is_contiguous(a, memory_format):
        return a
    if memory_format is dtypes.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    check_format_rank(memory_format, a.ndim)
    return Clone.apply(a, memory_format)


def is_contiguous(a, memory_format: dtypes.memory_format = dtypes.contiguous_format) -> bool:
    """Whether ``a``'s strides are dense in ``memory_format``'s dim order (torch's is_contiguous)."""
    _check_memory_format(memory_format, "is_contiguous")
    if memory_format is dtypes.contiguous_format or memory_format is dtypes.preserve_format:
        return bool(a._array.flags.c_contiguous)
    return is_contiguous_as(memory_format, a.shape, a.stride())


def _check_memory_format(memory_format, fn: str) -> None:
    if not isinstance(memory_format, dtypes.memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")
