"""Helpers shared by ops: reduce a broadcast gradient back to an input's shape, dtype rules, axes."""
from __future__ import annotations

import numpy as np

from .. import dtypes


def sum_to(grad, shape: tuple):
    """Sum ``grad`` (a Tensor) down to ``shape``, undoing broadcasting (only when the shapes differ)."""
    gshape = grad._array.shape
    if gshape == tuple(shape):
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if axes:
        grad = grad.sum(dim=axes, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    elif grad._array.shape != tuple(shape):
        grad = grad.reshape(shape)
    return grad


def sum_to_array(g, shape: tuple, dtype=None):
    """sum_to on a raw array (the engine's fast path), plus the cast back to the input's dtype."""
    if g.shape != tuple(shape):
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True)
        g = g.reshape(shape)
    if dtype is not None and g.dtype != dtype:
        g = g.astype(dtype)
    return g


def grad_for(grad, shape: tuple, dtype):
    """sum_to plus a cast back to the input's dtype (after type promotion in forward)."""
    grad = sum_to(grad, shape)
    if grad._array.dtype != dtype:
        grad = grad.to(dtypes.from_numpy_dtype(dtype))
    return grad


def shape_of(x) -> tuple:
    return x.shape if hasattr(x, "shape") else ()


def binary_dtype(a, b) -> np.dtype:
    """torch's result dtype for ``a op b`` (arrays or Python scalars), with a fast path for equal dtypes."""
    da = getattr(a, "dtype", None)
    db = getattr(b, "dtype", None)
    if da is not None and da == db:
        return da
    if da is not None and db is None and da.kind == "f" and isinstance(b, (int, float)):
        return da
    return dtypes.result_type(a, b)


def normalize_dims(dim, ndim: int) -> tuple:
    """dim (None, int or sequence, negatives allowed) -> sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = []
    for d in dim:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                             f"{max(ndim, 1) - 1}], but got {d})")
        out.append(d % ndim if ndim else 0)
    return tuple(sorted(out))


def broadcast_error(a_shape, b_shape):
    """torch's message for shapes that do not broadcast."""
    a, b = list(a_shape), list(b_shape)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                f"non-singleton dimension {i}")
    return RuntimeError(f"shapes {tuple(a_shape)} and {tuple(b_shape)} cannot be broadcast")
