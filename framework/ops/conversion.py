"""Copies and casts: clone, contiguous, to(dtype/device)."""
from __future__ import annotations

from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from .. import backend, dtypes
from ..backend import get_array_module
from ..tensor import Tensor
from ..memory_layout import (check_format_rank, copy_in_order, copy_preserving_layout, format_order, is_contiguous_as,
                      suggest_memory_format)
from ._util import grad_for, inplace_shape


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


class Zero(Function):
    """a[...] = 0 in place. Saves nothing; the gradient to a is zero."""

    node_name, array_forward, inplace = "ZeroBackward0", True, True
    checks_internal_overlap = False  # torch's fill kernel: zero_() of an expand() writes its one element

    @staticmethod
    def forward(ctx, a):
        a[...] = 0
        return a

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Fill(Function):
    """a[...] = value (a number) in place. Saves nothing; the gradient to a is zero."""

    node_name, array_forward, inplace, scalar_edges = "FillBackward2", True, True, True
    checks_internal_overlap = False  # torch's fill kernel: fill_() of an expand() writes its one element

    @staticmethod
    def forward(ctx, a, value):
        if hasattr(value, "ndim") and value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        a[...] = value
        return a

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


class FillTensor(Fill):
    """a[...] = value (a 0-d tensor, or a number torch wraps in one: ``a[idx] = 1.5``) in place. Saves nothing;
    a's gradient is zero, value's the sum of the gradient (torch's fill_.Tensor)."""

    node_name = "FillBackward3"
    checks_overlap = False  # torch reads the value as a number before writing: `a.fill_(a[1])` is fine
    checks_internal_overlap = True  # unlike fill_ of a number, torch refuses to write an expand() here

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), (grad.sum() if ctx.needs_input_grad[1] else None)


class FillOut(Function):
    """out = a tensor like a (its layout too) holding value, a number: torch.fill. Saves nothing; a's gradient is
    zero."""

    node_name, array_forward = "FillBackward0", True

    @staticmethod
    def forward(ctx, a, value):
        if hasattr(value, "ndim") and value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        out = copy_preserving_layout(a)  # torch's empty_like(self).fill_(value)
        out[...] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


class FillTensorOut(FillOut):
    """torch.fill with a 0-d tensor value: value's gradient is the sum of the gradient. Saves nothing."""

    node_name = "FillBackward1"

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), (grad.sum() if ctx.needs_input_grad[1] else None)


def fill(input: Tensor, value) -> Tensor:
    """A new tensor like ``input`` (dtype, shape, layout) filled with ``value`` (a number or a 0-d tensor)."""
    if isinstance(value, Tensor):
        return FillTensorOut.apply(input, value)
    if isinstance(value, (str, bytes)) or not isinstance(value, (int, float, bool)) and not hasattr(value, "item"):
        raise TypeError(f"fill() received an invalid combination of arguments - got (Tensor, "
                        f"{type(value).__name__}), but expected one of:")
    return FillOut.apply(input, value)


class ConjPhysicalInplace(Function):
    """conj_physical_ of a real tensor: nothing to write, but the version bumps and the node is torch's.
    Saves nothing; the gradient passes through (the conjugate of a real gradient is itself)."""

    node_name, array_forward, inplace = "ConjPhysicalBackward1", True, True

    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad


def conj_physical(input: Tensor) -> Tensor:
    """input itself: a real tensor is its own conjugate (torch returns self, with no node)."""
    return input


def conj_physical_(input: Tensor) -> Tensor:
    return ConjPhysicalInplace.apply(input)


def _zeros_like(grad):
    # torch's zeros_like(grad): not grad * 0, which is -0.0 for a negative and nan for an infinite gradient; laid out
    # as empty_like(grad): a dense gradient's strides exactly (a size-1 dim's 0 of an expanded sum gradient too, which
    # AccumulateGrad then copies: _version 1, fuzz seed 5108404), a non-dense one's C-contiguous
    a = grad._array
    xp = get_array_module(a)
    if backend.is_non_overlapping_and_dense(a):
        return Tensor._make(backend.keep_size1_strides(xp.zeros_like(a), a))
    return Tensor._make(xp.zeros(a.shape, dtype=a.dtype))


class Copy(Function):
    """a[...] = src (broadcast, cast) in place. Saves nothing; src gets the summed gradient."""

    node_name, array_forward, inplace = "torch::autograd::CopyBackwards", True, True  # a C++ node: name() namespaced
    copy_skips_same_data = True

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_meta = (src.shape, src.dtype)
        if src.shape != a.shape:
            inplace_shape(a.shape, src.shape)
            src = get_array_module(a).broadcast_to(src, a.shape)
        a[...] = src
        return a

    @staticmethod
    def backward(ctx, grad):
        ga = _zeros_like(grad) if ctx.needs_input_grad[0] else None
        gs = grad_for(grad, *ctx.src_meta) if ctx.needs_input_grad[1] else None
        return ga, gs


def _scalar(like: Tensor, value) -> Tensor:
    return Tensor._make(get_array_module(like._array).asarray(value, dtype=like._array.dtype))


def imag(self: Tensor):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def is_nonzero(self: Tensor) -> bool:
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def is_signed(self: Tensor) -> bool:
    return self._array.dtype.kind in "if"


CONVERSIONS = {"byte": dtypes.uint8, "char": dtypes.int8, "short": dtypes.int16}
