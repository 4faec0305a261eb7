"""Helpers shared by ops: operand conversion, device check, gradient shapes and dtypes, axes."""
from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..creation import tensor as _make_tensor
from ..tensor import Tensor
from ..autograd.broadcast import sum_to, sum_to_array  # noqa: F401  (re-exported for the ops)


NUMBER = (int, float, bool, np.number)


def as_operand(x):
    """Accept numpy arrays and lists where a tensor is expected (numbers stay numbers)."""
    if isinstance(x, Tensor) or isinstance(x, NUMBER):
        return x
    return _make_tensor(x)


def check_device(a, b) -> None:
    """torch's error for two tensors (not 0-d) on different devices."""
    if backend._cupy is None:  # no GPU in use: everything is on the CPU
        return
    if isinstance(a, Tensor) and isinstance(b, Tensor) and \
            a.ndim and b.ndim and a.device != b.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{b.device} and {a.device}!")


def shape_args(shape) -> tuple:
    """``f(a, 2, 3)`` and ``f(a, (2, 3))`` both mean the shape (2, 3)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


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


def inplace_shape(out_shape, *shapes) -> None:
    """torch's errors for an in-place op whose operands do not broadcast to the written-to tensor's shape."""
    shape = tuple(out_shape)
    for other in shapes:
        try:
            shape = np.broadcast_shapes(shape, tuple(other))
        except ValueError:
            raise broadcast_error(shape, other) from None
    if shape != tuple(out_shape):
        raise RuntimeError(f"output with shape {list(out_shape)} doesn't match the broadcast shape {list(shape)}")
