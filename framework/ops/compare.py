"""Comparisons and predicates (eq, lt, isnan, floor, any, equal, ...): no graph, their results never need one.

Like torch, they return bool tensors (or rounded values for floor/ceil/round/trunc) that do not require grad.
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..tensor import Tensor
from ._layout import contiguous_result
from ._util import check_device, normalize_dims, promote


def _cmp(name):
    def op(a, b):
        aa, bb = promote(a._array, b._array if isinstance(b, Tensor) else b)  # compare in torch's dtype
        xp = get_array_module(aa)
        with no_grad():
            return Tensor._make(xp.asarray(getattr(xp, name)(aa, bb)))  # asarray: 0-d numpy gives a scalar

    return op


eq, ne, lt, le, gt, ge = (_cmp(f) for f in ("equal", "not_equal", "less", "less_equal", "greater",
                                             "greater_equal"))
logical_and, logical_or, logical_xor = (_cmp(f) for f in ("logical_and", "logical_or", "logical_xor"))
bitwise_and, bitwise_or, bitwise_xor = (_cmp(f) for f in ("bitwise_and", "bitwise_or", "bitwise_xor"))
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne


def _pred(name):
    def op(a, *args, **kwargs):
        xp = get_array_module(a._array)
        return Tensor._make(xp.asarray(getattr(xp, name)(a._array, *args, **kwargs)))

    return op


isfinite = _pred("isfinite")
isnan = _pred("isnan")
isinf = _pred("isinf")
logical_not = _pred("logical_not")
floor = _pred("floor")
ceil = _pred("ceil")
round = _pred("around")
trunc = _pred("trunc")


def any(a, dim=None, keepdim: bool = False):
    axes = None if dim is None else normalize_dims(dim, a.ndim)
    out = get_array_module(a._array).asarray(a._array.any(axis=axes, keepdims=keepdim))
    return Tensor._make(contiguous_result(out))


def all(a, dim=None, keepdim: bool = False):
    axes = None if dim is None else normalize_dims(dim, a.ndim)
    out = get_array_module(a._array).asarray(a._array.all(axis=axes, keepdims=keepdim))
    return Tensor._make(contiguous_result(out))


def equal(a, b) -> bool:
    check_device(a, b)
    return a.shape == b.shape and bool(get_array_module(a._array).array_equal(a._array, b._array))


def allclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    check_device(a, b)
    xp = get_array_module(a._array)
    return bool(xp.allclose(a._array, b._array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def numel(a) -> int:
    return a.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)
