"""Factories with ``memory_format=`` as torch's: ``empty(..., memory_format=)`` and the ``*_like`` factories, whose
default (preserve_format) lays the result out as its input (a transposed or channels_last input gives a result
with the same strides, torch's empty_like rule). The floor-2 factories in creation.py stay C-ordered."""
from __future__ import annotations

from .. import creation, dtypes
from ..tensor import Tensor
from ..memory_layout import check_format_rank, format_order, inverse_order, keep_size1_strides, preserve_format_order


def _laid_out(make, shape: tuple, order: tuple, requires_grad: bool, like: Tensor | None = None, **kwargs) -> Tensor:
    """``make(*shape)`` with dims ``order`` from outermost to innermost: made in that order, then transposed back
    (the fresh tensor's array is swapped before anyone sees it, so it stays a leaf); ``like`` (preserve_format):
    its strides kept on size-1 dims too, as torch's empty_like of a dense tensor."""
    if order == tuple(range(len(shape))) and (like is None or 1 not in shape):
        return make(*shape, requires_grad=requires_grad, **kwargs)
    out = make(*[shape[d] for d in order], **kwargs)
    out._array = out._array.transpose(inverse_order(order))
    if like is not None:
        out._array = keep_size1_strides(out._array, like._array)
    return out.requires_grad_(True) if requires_grad else out


def _like_order(t: Tensor, memory_format) -> tuple:
    if not isinstance(memory_format, dtypes.memory_format):
        raise TypeError(f"argument 'memory_format' must be torch.memory_format, not {type(memory_format).__name__}")
    if memory_format is dtypes.preserve_format:
        a = t._array
        return tuple(range(a.ndim)) if a.flags.c_contiguous else preserve_format_order(a.shape, a.strides)
    check_format_rank(memory_format, t.ndim)
    return format_order(memory_format, t.ndim)


def _like(make):
    def like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False,
             memory_format: dtypes.memory_format = dtypes.preserve_format) -> Tensor:
        return _laid_out(make, tuple(input.shape), _like_order(input, memory_format), requires_grad,
                         input if memory_format is dtypes.preserve_format else None,
                         dtype=dtype if dtype is not None else input.dtype,
                         device=device if device is not None else input.device)

    like.__name__ = make.__name__ + "_like"
    like.__doc__ = f"{make.__name__}() with the shape, dtype and device of a tensor, laid out as memory_format says."
    return like


zeros_like, ones_like, empty_like, rand_like, randn_like = (
    _like(f) for f in (creation.zeros, creation.ones, creation.empty, creation.rand, creation.randn))


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False,
              memory_format: dtypes.memory_format = dtypes.preserve_format) -> Tensor:
    """A tensor of input's shape (dtype, device) filled with fill_value, laid out as memory_format says."""
    def make(*shape, **kwargs):
        return creation.full(shape, fill_value, **kwargs)

    return _laid_out(make, tuple(input.shape), _like_order(input, memory_format), requires_grad,
                     input if memory_format is dtypes.preserve_format else None,
                     dtype=dtype if dtype is not None else input.dtype,
                     device=device if device is not None else input.device)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype=None, device=None,
                 requires_grad: bool = False, memory_format: dtypes.memory_format = dtypes.preserve_format) -> Tensor:
    """Integers uniform on [low, high) (randint_like(x, high) for one bound) in input's shape, dtype and device, laid
    out as memory_format says (a transposed input gives a transposed result, as torch's)."""
    if high is None:
        low, high = 0, low

    def make(*shape, requires_grad: bool = False, **kwargs):
        out = creation.randint(low, high, shape, **kwargs)
        return out.requires_grad_(True) if requires_grad else out  # (torch's error for an integer dtype)

    return _laid_out(make, tuple(input.shape), _like_order(input, memory_format), requires_grad,
                     input if memory_format is dtypes.preserve_format else None,
                     dtype=dtype if dtype is not None else input.dtype,
                     device=device if device is not None else input.device)


def empty(*args, size=None, dtype=None, device=None, requires_grad: bool = False,
          memory_format: dtypes.memory_format = dtypes.contiguous_format) -> Tensor:
    """Uninitialised tensor of the given size, laid out as memory_format says (torch.empty)."""
    if memory_format is dtypes.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    if memory_format is dtypes.contiguous_format:
        return creation.empty(*args, size=size, dtype=dtype, device=device, requires_grad=requires_grad)
    shape = tuple(creation.empty(*args, size=size, dtype=dtypes.bool_, device="cpu").shape)  # (parses size)
    check_format_rank(memory_format, len(shape))
    return _laid_out(creation.empty, shape, format_order(memory_format, len(shape)), requires_grad, dtype=dtype,
                     device=device)
