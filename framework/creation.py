"""Factories: tensor, as_tensor, from_numpy, zeros, ones, full, empty, eye, arange, linspace, rand*, *_like."""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import backend, dtypes
from .random import _gen
from .tensor import Tensor
from .type_info import _dtype_of, broadcast_shapes


def _finish(arr, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if device is None:
        device = backend.get_default_device()
    if dtype is not None:
        np_dt = dtypes.to_numpy_dtype(dtype)
        backend.check_gpu_dtype(np_dt, backend.norm_device(device))
        if arr.dtype != np_dt:
            arr = arr.astype(np_dt)
    if backend.norm_device(device) != "cpu":
        arr = backend.to_device(arr, backend.norm_device(device))
    t = Tensor._make(arr)
    if requires_grad:
        if arr.dtype.kind not in "fV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _infer_array(data) -> np.ndarray:
    """Python data -> array with torch's dtype inference (floats -> float32, ints -> int64)."""
    if isinstance(data, Tensor):
        return backend.to_numpy(data._array).copy()
    if isinstance(data, np.ndarray):
        return data.copy()
    typed = None  # torch infers a NumPy scalar's or a tensor element's own dtype, promoted with the others'
    if isinstance(data, np.generic) or (isinstance(data, (list, tuple)) and any(
            isinstance(x, (Tensor, np.generic)) for x in _flatten(data))):
        typed = _element_dtype(data)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flatten(data)):
        data = _to_python(data)
    arr = np.array(data)
    if typed is not None and arr.dtype != object and arr.dtype.kind in "fiubV":
        return arr.astype(typed)
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}" if not isinstance(data, (list, tuple))
                        else "expected a sequence of numbers with a regular shape (ragged nested sequence?)")
    if arr.dtype.kind in "fV":
        return arr.astype(dtypes.default_float.np)
    if arr.dtype.kind in "iu" and not isinstance(data, np.generic):
        return arr.astype(np.int64)
    if arr.dtype.kind not in "fiubV":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr


def _element_dtype(data) -> np.dtype:
    """torch's inferred dtype of nested data holding NumPy scalars or tensors: each element's own dtype (a
    Python float the default float, an int int64, a bool bool), promoted as torch promotes."""
    out = None
    for x in _flatten(data):
        if isinstance(x, Tensor):
            d = x._array.dtype
        elif isinstance(x, np.generic):
            d = x.dtype
        elif isinstance(x, bool):
            d = np.dtype(np.bool_)
        elif isinstance(x, int):
            d = np.dtype(np.int64)
        else:
            d = dtypes.default_float.np
        out = d if out is None else dtypes.promote_types(out, d)
    return out if out is not None else dtypes.default_float.np


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flatten(y)
    else:
        yield x


def _to_python(x):
    if isinstance(x, (list, tuple)):
        return [_to_python(y) for y in x]
    return x.item() if isinstance(x, Tensor) else x


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (floats become float32, ints int64, as in torch)."""
    if dtype is not None and not isinstance(data, (Tensor, np.ndarray)):
        # convert straight to the asked dtype: going through float32 first would round 0.3
        _infer_array(data)  # same validation and errors as without dtype
        arr = np.array(_to_python(data) if isinstance(data, (list, tuple)) else data,
                       dtype=dtypes.to_numpy_dtype(dtype))
        return _finish(arr, None, device, requires_grad)
    t = _finish(_infer_array(data), dtype, device, requires_grad)
    if isinstance(data, np.ndarray) and not data.size:  # torch keeps an empty ndarray's strides (NumPy's zeros)
        t._array = backend.empty_strided(t._array, tuple(s // data.itemsize * t._array.itemsize
                                                         for s in data.strides))
    return t


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like tensor(), but shares memory with a numpy array or tensor when no conversion is needed."""
    if isinstance(data, Tensor) and device is None:  # torch's as_tensor of a tensor: the tensor, or data.to(dtype)
        return data if dtype is None or dtypes.to_numpy_dtype(dtype) == data._array.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.to_numpy_dtype(dtype) == data.dtype) and \
            str(device if device is not None else backend.get_default_device()) == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (dtype kept)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)  # a clear error for unsupported dtypes
    return Tensor._make(array if array.size else backend.empty_strided(array, array.strides))  # NumPy's strides


def _shape(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _size(name: str, args: tuple, size) -> tuple:
    """The shape of ``zeros(2, 3)``, ``zeros((2, 3))`` or torch's keyword form ``zeros(size=(2, 3))``."""
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        args = (size,)
    return _shape(args)


def _float_dt(dtype):
    return dtypes.to_numpy_dtype(dtype) if dtype is not None else dtypes.default_float.np


def zeros(*args, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(backend.host_array_module().zeros(_size("zeros", args, size), _float_dt(dtype)), None, device, requires_grad)


def ones(*args, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(backend.host_array_module().ones(_size("ones", args, size), _float_dt(dtype)), None, device, requires_grad)


def empty(*args, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(backend.host_array_module().empty(_size("empty", args, size), _float_dt(dtype)), None, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if dtype is None:
        dtype = dtypes.bool_ if isinstance(fill_value, bool) else (
            dtypes.int64 if isinstance(fill_value, int) else dtypes.default_float)
    return _finish(backend.host_array_module().full(_shape((size,) if isinstance(size, int) else (tuple(size),)), fill_value,
                           dtypes.to_numpy_dtype(dtype)), None, device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(backend.host_array_module().eye(n, m, dtype=_float_dt(dtype)), None, device, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if is_int else dtypes.default_float
    return _finish(backend.host_array_module().arange(start, end, step).astype(dtypes.to_numpy_dtype(dtype)), None, device, requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(backend.host_array_module().linspace(start, end, steps).astype(_float_dt(dtype)), None, device, requires_grad)


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_gen(generator).random(_size("rand", args, size)).astype(_float_dt(dtype)), None, device, requires_grad)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_gen(generator).standard_normal(_size("randn", args, size)).astype(_float_dt(dtype)), None, device,
                   requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    arr = _gen(generator).integers(low, high, size=tuple(size))
    return _finish(arr.astype(dtypes.to_numpy_dtype(dtype) if dtype is not None else np.int64), None, device)


def randperm(n: int, *, generator=None, dtype=None, device=None) -> Tensor:
    return _finish(_gen(generator).permutation(n).astype(np.int64), dtype, device)


def _like(fn):
    def make(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
        return fn(*t.shape, dtype=dtype if dtype is not None else t.dtype,
                  device=device if device is not None else t.device, requires_grad=requires_grad)

    make.__name__ = fn.__name__ + "_like"
    make.__doc__ = f"{fn.__name__}() with the shape, dtype and device of a tensor."
    return make


zeros_like, ones_like, empty_like, rand_like, randn_like = (_like(f) for f in (zeros, ones, empty, rand, randn))


def full_like(t: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return full(tuple(t.shape), fill_value, dtype=dtype if dtype is not None else t.dtype,
                device=device if device is not None else t.device, requires_grad=requires_grad)


def _legacy_tensor_type(np_dtype_obj):
    """FloatTensor(...)/LongTensor(...) as in old torch code: data or sizes."""

    class LegacyTensor(Tensor):
        _legacy_dtype = np_dtype_obj

        def __new__(cls, *args):
            if len(args) == 1 and not isinstance(args[0], int):
                return tensor(args[0], dtype=np_dtype_obj)
            return zeros(*_shape(args), dtype=np_dtype_obj)

    LegacyTensor.__name__ = np_dtype_obj.legacy
    return LegacyTensor


FloatTensor = _legacy_tensor_type(dtypes.float32)


DoubleTensor = _legacy_tensor_type(dtypes.float64)


LongTensor = _legacy_tensor_type(dtypes.int64)


IntTensor = _legacy_tensor_type(dtypes.int32)


BoolTensor = _legacy_tensor_type(dtypes.bool_)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """base ** linspace(start, end, steps)."""
    values = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    return tensor(values, dtype=_dtype_of(dtype), device=device).requires_grad_(requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given sizes and strides (in elements) over a storage of its own."""
    return empty(1, dtype=dtype, device=device).new_empty_strided(size, stride, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (in the default float dtype unless told otherwise, as torch)."""
    return tensor(float(s) if dtype is None else s, dtype=_dtype_of(dtype), device=device,
                  requires_grad=requires_grad)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype=None, device=None,
                 requires_grad: bool = False) -> Tensor:
    """Integers uniform on [low, high) in input's shape (randint_like(x, high) for one bound)."""
    if high is None:
        low, high = 0, low
    out = randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None) -> Tensor:
    """N(mean, std**2) draws: tensor mean and/or std (broadcast), or numbers with ``size``."""
    if size is not None:
        return empty(*tuple(size), dtype=dtype, device=device).normal_(float(mean), float(std), generator=generator)
    mean_t = mean if isinstance(mean, Tensor) else None
    std_t = std if isinstance(std, Tensor) else None
    like = mean_t if mean_t is not None else std_t
    if like is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, float), but expected "
                        "a size for float mean and std")
    shape = tuple(mean_t.shape) if mean_t is not None else tuple(std_t.shape)
    if mean_t is not None and std_t is not None:
        shape = tuple(broadcast_shapes(mean_t.shape, std_t.shape))
    eps = empty(*shape, dtype=like.dtype, device=like.device).normal_(0.0, 1.0, generator=generator)
    return (eps * std + mean).detach()


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson draws with rates ``input`` (same shape and dtype; no gradient)."""
    host = backend.to_numpy(input.detach()._array)
    draws = _gen(generator).poisson(host).astype(host.dtype)
    return tensor(draws, dtype=input.dtype, device=input.device)


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool = False) -> Tensor:
    """torch.asarray: shares memory with a tensor or array when it can (copy=None), copies when asked."""
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None or device is not None:
            out = out.to(dtype=dtype, device=device)
        if copy:
            out = out.clone()
        return out.requires_grad_(requires_grad) if requires_grad else out
    out = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Deprecated in torch: arange(start, end + step, step) in the default float dtype (end included)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    return (arange(n, dtype=dtypes.float64, device=device) * step + start).to(_dtype_of(dtype)).requires_grad_(
        requires_grad)
