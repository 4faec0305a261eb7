"""torch's top-level utilities that are not ops: finfo/iinfo, result_type/can_cast/broadcast_shapes, typename,
the global switches (threads, deterministic algorithms, matmul precision, anomaly mode), window functions, and a
few factories (logspace, empty_strided, scalar_tensor, randint_like, normal, poisson, unravel_index, asarray)."""
from __future__ import annotations

import math
import os
import warnings

import ml_dtypes
import numpy as np

from . import backend, dtypes
from .autograd import anomaly
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401  (torch's names)
from .creation import arange, as_tensor, empty, full, randint, tensor
from .random import _gen
from .tensor import Size, Tensor


def _dtype_of(d) -> dtypes.dtype:
    return dtypes.default_float if d is None else d


class finfo:
    """Machine limits of a floating dtype (torch.finfo): bits, eps, max, min, tiny/smallest_normal, resolution."""

    def __init__(self, type: dtypes.dtype | None = None) -> None:
        d = _dtype_of(type)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(d.np)  # NumPy's own finfo for NumPy's floats, ml_dtypes' for bfloat16
        self.dtype = d.name
        self.bits, self.eps, self.max, self.min = info.bits, float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype (torch.iinfo): bits, min, max."""

    def __init__(self, type: dtypes.dtype) -> None:
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(np.uint8 if type.np.kind == "b" else type.np)
        self.dtype, self.bits, self.min, self.max = type.name, info.bits, int(info.min), int(info.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # (torch's %g, even for ints)


def result_type(tensor1, tensor2) -> dtypes.dtype:
    """The dtype ``tensor1 op tensor2`` gives (torch's promotion: Python numbers are weak)."""
    a = tensor1._array if isinstance(tensor1, Tensor) else tensor1
    b = tensor2._array if isinstance(tensor2, Tensor) else tensor2
    return dtypes.from_numpy_dtype(dtypes.result_type(a, b))


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether torch's type promotion allows casting from ``from_`` to ``to`` (no float -> integer, no numeric ->
    bool), as torch.can_cast."""
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}
    return order[from_.np.kind] <= order[to.np.kind]


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of ``shapes`` broadcast to (torch's error for incompatible ones)."""
    out: list = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, s in enumerate(reversed(shape)):
            if i == len(out):
                out.insert(0, s)
            elif out[-1 - i] == 1:
                out[-1 - i] = s
            elif s != 1 and s != out[-1 - i]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between arg 0 and arg {shapes.index(shape) if shape in shapes else 1}.")
    return Size(out)


def typename(obj) -> str:
    """'torch.FloatTensor' for a float32 tensor (as torch's legacy names), the class name for anything else."""
    if isinstance(obj, Tensor):
        return f"torch.{obj.dtype.legacy}"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__", None) else f"{module}.{name}"


def is_inference(input: Tensor) -> bool:
    """Whether ``input`` was made under inference_mode."""
    return input.is_inference()


# ---- global switches ---------------------------------------------------------------------------------------

_state = {"threads": None, "deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def get_num_threads() -> int:
    """The threads the array library uses (what set_num_threads set, else the CPU count)."""
    return _state["threads"] or os.cpu_count() or 1


def set_num_threads(n: int) -> None:
    """Limit the BLAS/OpenMP threads NumPy uses (through threadpoolctl when installed: `pip install
    threadpoolctl`; without it the limit only applies to processes started afterwards, via OMP_NUM_THREADS)."""
    if int(n) <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _state["threads"] = int(n)
    os.environ["OMP_NUM_THREADS"] = str(int(n))
    try:
        import threadpoolctl  # optional (the bench extra installs it)
    except ImportError:
        return
    threadpoolctl.threadpool_limits(int(n))


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded for are_deterministic_algorithms_enabled(): every framework op is deterministic already."""
    _state["deterministic"], _state["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: NumPy and CuPy compute float32 matmuls in full float32 ("highest") here."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}; expected 'highest', 'high' or 'medium'")
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Anomaly mode on or off from now on (torch.set_anomaly_enabled; autograd.set_detect_anomaly as a call)."""
    anomaly.set_detect_anomaly(enabled, check_nan)


# ---- window functions --------------------------------------------------------------------------------------

def _window(n: int, periodic: bool, dtype, device, values) -> Tensor:
    """A window of length n: ``values(x, N)`` on x = arange(N) in the window's dtype, N = n + 1 when periodic
    (then the last value is dropped); torch's formulas, op for op, in that dtype (host constants: a fixed table)."""
    dtype = _dtype_of(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"window functions expect a floating point dtype, got {dtype}")
    if n == 0:
        return empty(0, dtype=dtype, device=device)
    if n == 1:
        return full((1,), 1.0, dtype=dtype, device=device)
    length = n + 1 if periodic else n
    out = values(np.arange(length, dtype=dtype.np), length)[:n]
    return tensor(out, dtype=dtype, device=device)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                requires_grad: bool = False) -> Tensor:
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    w = _window(window_length, periodic, dtype, device,
                lambda x, n: np.cos(x * (math.pi * 2.0 / (n - 1))) * -beta + alpha)
    return w.requires_grad_(requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    def values(x, n):
        x = x * (math.pi / (n - 1))
        return np.cos(x * 4) * 0.08 - np.cos(x * 2) * 0.5 + 0.42

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    def values(x, n):
        x = x * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        x[half:] = x[half:] * -1 + 2
        return x

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, device=None,
                  requires_grad: bool = False) -> Tensor:
    def values(x, n):
        alpha = x.dtype.type((n - 1) / 2.0)
        return np.i0(beta * np.sqrt(np.abs(1 - ((x - alpha) / alpha) ** 2))) / np.i0(beta)

    return _window(window_length, periodic, dtype, device, values).requires_grad_(requires_grad)


# ---- factories -----------------------------------------------------------------------------------------------

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


def unravel_index(indices, shape) -> tuple:
    """The coordinates of flat ``indices`` in an array of ``shape`` (a tuple of int64 tensors, as torch)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    idx = indices if isinstance(indices, Tensor) else as_tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype == dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {str(idx.dtype).replace('framework', 'torch')}")
    total = math.prod(shape)
    if bool(((idx < -total) | (idx >= total)).any()):
        raise ValueError("'indices' must be in range [-{}, {})".format(total, total))
    flat = idx % total if total else idx
    out = []
    for s in reversed(shape):
        out.append(flat % s)
        flat = flat.div(s, rounding_mode="floor")
    return tuple(reversed(out))


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


def rsub(input: Tensor, other, alpha=1) -> Tensor:
    """other - alpha * input."""
    return -(input * alpha) + other if alpha != 1 else -input + other


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

