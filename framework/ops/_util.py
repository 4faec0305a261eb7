"""Helpers shared by ops: operand conversion, device check, gradient shapes and dtypes, axes."""
from __future__ import annotations

import collections

import numpy as np

from ..autograd.broadcast import sum_to
from ..autograd.grad_mode import is_grad_enabled
from .. import backend, dtypes
from ..creation import tensor as _make_tensor
from ..tensor import Tensor


NUMBER = (int, float, bool, np.number)


def as_operand(x):
    """Accept numpy arrays and lists where a tensor is expected (numbers stay numbers)."""
    if isinstance(x, Tensor) or isinstance(x, NUMBER):
        return x
    return _make_tensor(x)


def refused(x) -> bool:
    """True for what torch refuses as a tensor operand (None, str, arbitrary objects); lists and arrays we accept."""
    return not isinstance(x, (Tensor, int, float, bool, complex, np.number, np.ndarray, list, tuple)) and \
        not hasattr(x, "__array__")


def read_history(t: Tensor) -> None:
    """torch's autograd kernel reads an input's history (its grad_fn) before the op's own checks run: a stale
    no-grad view's error comes before a bad dim's or shape's, so an op that checks first reads it first."""
    if t._base is not None and is_grad_enabled() and t.requires_grad:
        t.grad_fn  # noqa: B018 - the read raises for a view whose base was modified in place since (no_grad)


def not_a_tensor(name: str, args: tuple) -> TypeError:
    """torch's argument-parser error for a call whose input is no Tensor (``args``: what was passed, in order)."""
    kinds = ["Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in args]
    if len(args) == 1:
        return TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {kinds[0]}")
    return TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(kinds)}), "
                     "but expected one of:")


def _type_name(x) -> str:
    cls = type(x)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def operand(x, fn: str, position: int, name: str = "other", numbers: bool = True):
    """as_operand, refusing what torch's argument parser refuses with its message (numbers=False: tensors only)."""
    if isinstance(x, Tensor) or (numbers and isinstance(x, NUMBER)):
        return x
    if refused(x) or not numbers:
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {_type_name(x)}")
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
    if da is not None and db is None and da.kind in "fV" and isinstance(b, (int, float)):
        return da
    return dtypes.result_type(a, b)


def _wrap_int(x, dt):
    if type(x) is int:
        info = np.iinfo(dt)
        if not info.min <= x <= info.max:
            return np.array(x).astype(dt)[()]  # two's-complement wrap, as torch casts the scalar
    return x


def promote(a, b, dt=None) -> tuple:
    """``(a, b)`` with array operands cast to the result dtype ``dt`` (default: torch's for ``a op b``).

    torch computes in the promoted dtype; numpy alone would compute ``float32 op 0-d float64`` in
    float64 (and ``float32 op int32`` too) and differ in the last bit, or in comparisons.  Python
    numbers stay as they are: numpy treats them as weakly typed, as torch does.
    """
    if dt is None:
        dt = binary_dtype(a, b)
    if dt.kind in "iu":  # a Python int beyond the dtype's range wraps around as in torch (numpy 2 raises)
        a, b = _wrap_int(a, dt), _wrap_int(b, dt)
    if getattr(a, "dtype", dt) != dt:  # (an expanded operand stays expanded: its copy keeps torch's layout)
        a = backend.cast_keeping_repeats(a, dt)
    if getattr(b, "dtype", dt) != dt:
        b = backend.cast_keeping_repeats(b, dt)
    return a, b


def formula_zeros(like: Tensor, shape: tuple) -> Tensor:
    """zeros of ``shape`` as a torch derivative formula's zeros_like makes them: empty_like().zero_(), an in-place
    write, so the tensor's _version is 1 (AccumulateGrad keeps that version when it takes the gradient)."""
    zeros = like.new_zeros(shape)
    if zeros._version_counter is not None:
        zeros._version_counter.value += 1
    return zeros


def wrap_dim(dim: int, ndim: int) -> int:
    """torch's maybe_wrap_dim: a dim in [-ndim, ndim) as a non-negative one (a 0-d tensor accepts 0 and -1)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def scalar_type_name(np_dtype) -> str:
    """torch's ScalarType name: Float, Double, Long, Bool..."""
    return dtypes.from_numpy_dtype(np_dtype).legacy.replace("Tensor", "")


def refuse_low_precision(t, fn: str) -> None:
    """torch's check before an SVD or LU of a float16/bfloat16 tensor: 'fn: Low precision dtypes not supported'."""
    dt = t._array.dtype
    if dt.kind in "fV" and dt.itemsize == 2:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {scalar_type_name(dt)}")


def refuse_half_kernel(t, kernel: str) -> None:
    """torch's dispatch error for a float16/bfloat16 tensor where its CPU kernel has no such version."""
    dt = t._array.dtype
    if dt.kind in "fV" and dt.itemsize == 2:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def refuse_integer_kernel(a, kernel: str) -> None:
    """torch's dispatch error for a bool or integer array given to a kernel built for floating types only (raised
    even for an empty one: the dispatch comes before the loop)."""
    if a.dtype.kind in "biu":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(a.dtype)}\'')


def type_string(np_dtype) -> str:
    """torch's Tensor::toString: the legacy type name (framework.FloatTensor), or CPUBFloat16Type for bfloat16,
    which has no legacy name."""
    dt = dtypes.from_numpy_dtype(np_dtype)
    return "CPUBFloat16Type" if dt.name == "bfloat16" else f"framework.{dt.legacy}"


def c_type_name(np_dtype) -> str:
    """the C++ name some torch messages use: float, double, long int..."""
    return _C_NAMES[dtypes.from_numpy_dtype(np_dtype).name]


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def check_inplace_cast(result, out, c_names: bool = False) -> None:
    """torch's canCast for an in-place op: a float result can't go into an integer tensor, nor a number into bool.

    c_names: name the output type as C++ does (clamp_'s message says 'long int' where add_'s says 'Long').
    """
    if (result.kind in "fV" and out.kind in "iub") or (result.kind != "b" and out.kind == "b"):
        names = [dtypes.from_numpy_dtype(d).legacy.replace("Tensor", "") for d in (result, out)]
        if c_names:
            names[1] = _C_NAMES[dtypes.from_numpy_dtype(out).name]
        raise RuntimeError(f"result type {names[0]} can't be cast to the desired output type {names[1]}")


def normalize_dims(dim, ndim: int) -> tuple:
    """dim (None, int or sequence, negatives allowed) -> sorted tuple of non-negative axes.

    A 0-d tensor accepts dim 0 and -1, as torch, and has no axis to reduce: its dims are ``()``.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = [wrap_dim(d, ndim) for d in dim]
    return tuple(sorted(out)) if ndim else ()


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


def broadcast_shapes_checked(*shapes) -> tuple:
    """The shapes broadcast in turn, as torch's TensorIterator does, with its message for the first that does not."""
    shape = tuple(shapes[0])
    for other in shapes[1:]:
        try:
            shape = np.broadcast_shapes(shape, tuple(other))
        except ValueError:
            raise broadcast_error(shape, other) from None
    return shape


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


def check_addcdiv_dtypes(t1, t2) -> None:
    """torch refuses addcdiv(_) of two integer (or bool) arrays: its old integer division is gone."""
    if t1.dtype.kind in "biu" and t2.dtype.kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release "
                           "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                           "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                           "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                           "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


values_indices = collections.namedtuple("return_types", ["values", "indices"])
