"""What a PyTorch checkpoint may name when framework.load reads it: torch's weights_only allowlist, rebuilt here.

A pickle names globals (``module.name``) that the unpickler imports and calls.  framework.load never imports
what a file names: each allowed name maps to one of our own functions below (tensor and storage rebuilds,
dtypes, OrderedDict and plain containers), and anything else must be allowed explicitly with
``add_safe_globals([...])`` or the ``safe_globals([...])`` context, as in torch >= 2.6.
"""
from __future__ import annotations

import codecs
import collections
import pickle
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..nn.parameter import Parameter
from ..tensor import Size, Tensor

# torch's legacy storage classes -> element types (bfloat16: ml_dtypes')
STORAGE_DTYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16, "LongStorage": np.int64,
    "IntStorage": np.int32, "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
    "BoolStorage": np.bool_, "BFloat16Storage": dtypes.BFLOAT16_NP,
}
TORCH_DTYPES = {"float32": dtypes.float32, "float": dtypes.float32, "float64": dtypes.float64,
                "double": dtypes.float64, "float16": dtypes.float16, "half": dtypes.float16,
                "int64": dtypes.int64, "long": dtypes.int64, "int32": dtypes.int32, "int": dtypes.int32,
                "int16": dtypes.int16, "short": dtypes.int16, "int8": dtypes.int8, "uint8": dtypes.uint8,
                "bool": dtypes.bool_, "bfloat16": dtypes.bfloat16}


class RefusedGlobal(pickle.UnpicklingError, RuntimeError):
    """A checkpoint names a global that is not allowed (torch raises pickle.UnpicklingError here too)."""


class StorageType:
    """Stands for ``torch.FloatStorage`` & co. inside a pickle: only its element type matters."""

    def __init__(self, name: str) -> None:
        self.name, self.dtype = name, STORAGE_DTYPES[name]


class Storage:
    """A storage's flat array; for the legacy format it is filled after the pickle has been read."""

    def __init__(self, dtype, numel: int, array: np.ndarray | None = None) -> None:
        self.dtype, self.numel, self.array = dtype, numel, array
        self.pending: list[tuple[Tensor, int, tuple, tuple]] = []  # tensors to fill once the array is known


def fill(t: Tensor, storage: Storage, offset: int, size: tuple, stride: tuple) -> None:
    """Copy the strided window of ``storage`` that ``t`` describes into ``t``'s own array."""
    arr = storage.array
    if size and int(np.prod(size)) > 0:
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if offset < 0 or last >= arr.size:
            raise pickle.UnpicklingError(f"a tensor of size {tuple(size)} at offset {offset} reaches past its "
                                         f"storage of {arr.size} elements (corrupted file)")
        view = np.lib.stride_tricks.as_strided(arr[offset:], shape=size,
                                               strides=[s * arr.itemsize for s in stride])
        t._array[...] = view
    elif not size:
        if offset >= arr.size:
            raise pickle.UnpicklingError("a scalar tensor lies past the end of its storage (corrupted file)")
        t._array[...] = arr[offset]


def _check_window(storage: Storage, offset: int, size: tuple, stride: tuple) -> None:
    """Refuse a tensor that reaches outside its storage before allocating anything for it."""
    if not isinstance(storage, Storage):
        raise pickle.UnpicklingError(f"a tensor's storage is a {type(storage).__name__} (corrupted file)")
    if len(size) != len(stride) or any(int(n) < 0 for n in size) or any(int(s) < 0 for s in stride):
        raise pickle.UnpicklingError(f"invalid tensor size {size} / stride {stride} (corrupted file)")
    if all(int(n) > 0 for n in size):
        last = int(offset) + sum((int(n) - 1) * int(s) for n, s in zip(size, stride))
        if int(offset) < 0 or last >= storage.numel:
            raise pickle.UnpicklingError(f"a tensor of size {tuple(size)} at offset {offset} reaches past its "
                                         f"storage of {storage.numel} elements (corrupted file)")


def _rebuild_tensor(storage: Storage, storage_offset: int, size, stride) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    _check_window(storage, storage_offset, size, stride)
    if np.dtype(storage.dtype) == dtypes.BFLOAT16_NP:
        dtypes.from_numpy_dtype(storage.dtype)  # (marks bfloat16 as in use: ops then compute it in float32)
    t = Tensor._make(np.empty(size, dtype=storage.dtype))
    if storage.array is None:
        storage.pending.append((t, storage_offset, size, stride))
    else:
        fill(t, storage, storage_offset, size, stride)
    return t


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks) -> Parameter:
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state) -> Parameter:
    p = Parameter(data, requires_grad)
    for k, v in (state or {}).items():
        if not str(k).startswith("_"):  # user attributes only; never our internals
            setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func: Callable, new_type, args, state):
    """Tensor subclasses: rebuild the plain tensor (our Tensor or Parameter) and ignore the subclass's state."""
    if func not in _REBUILDS:
        raise pickle.UnpicklingError(f"_rebuild_from_type_v2 may only call a tensor rebuild function, not {func!r:.80}")
    return func(*args)


_REBUILDS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
             _rebuild_parameter_with_state)


def _device(spec="cpu", index=None) -> str:
    return str(spec) if index is None else f"{spec}:{index}"


def _torch_dtype(name: str) -> Callable:
    return TORCH_DTYPES[name]


# module.name -> what the unpickler gets instead (never the named object itself: torch is not imported)
DEFAULT_GLOBALS: dict[str, Any] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.Tensor": Tensor,
    "torch.Size": Size,
    "torch.device": _device,
    "_codecs.encode": codecs.encode,  # bytes, in protocol-2 pickles
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.slice": slice,
    **{f"torch.{name}": StorageType(name) for name in STORAGE_DTYPES},
    **{f"torch.{name}": d for name, d in TORCH_DTYPES.items()},
}

_user_globals: list = []


def _full_name(entry) -> tuple[str, Any]:
    if isinstance(entry, tuple):
        if len(entry) != 2:
            raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                             f"length: {len(entry)}")
        if type(entry[1]) is not str:
            raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                            f"{type(entry[1])}")
        return entry[1], entry[0]
    return f"{entry.__module__}.{entry.__qualname__}", entry


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) in checkpoints that framework.load reads."""
    _user_globals.extend(safe_globals)


def get_safe_globals() -> list:
    return list(_user_globals)


def clear_safe_globals() -> None:
    _user_globals.clear()


class safe_globals:
    """Context manager (or decorator) allowing ``safe_globals`` only while it is active."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self._saved = list(_user_globals)
        _user_globals.extend(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _user_globals[:] = self._saved

    def __call__(self, fn: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def resolve(module: str, name: str) -> Any:
    """The object a checkpoint's ``module.name`` stands for, or RefusedGlobal naming it."""
    full = f"{module}.{name}"
    user = dict(_full_name(e) for e in _user_globals)
    if full in user:
        return user[full]
    if full in DEFAULT_GLOBALS:
        return DEFAULT_GLOBALS[full]
    raise RefusedGlobal(
        f"Weights only load failed. Unsupported global: GLOBAL {full} was not an allowed global by default. "
        f"Please use `framework.serialization.add_safe_globals([{name}])` or the "
        f"`framework.serialization.safe_globals([{name}])` context manager to allowlist this global if you trust "
        f"this class/function. (framework.load imports nothing a file names: only tensor rebuilds, dtypes, "
        f"OrderedDict and plain containers are allowed by default; it did not run {full}.)")
