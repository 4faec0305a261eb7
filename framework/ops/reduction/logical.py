"""Logical reductions: any and all."""
from __future__ import annotations

from ...backend import get_array_module
from ...tensor import Tensor
from ...memory_layout import contiguous_result
from .._util import normalize_dims


def any(a, dim=None, keepdim: bool = False):
    axes = None if dim is None else normalize_dims(dim, a.ndim)
    out = get_array_module(a._array).asarray(a._array.any(axis=axes, keepdims=keepdim))
    return Tensor._make(contiguous_result(out))


def all(a, dim=None, keepdim: bool = False):
    axes = None if dim is None else normalize_dims(dim, a.ndim)
    out = get_array_module(a._array).asarray(a._array.all(axis=axes, keepdims=keepdim))
    return Tensor._make(contiguous_result(out))
