"""dtype objects with torch's names (framework.float32, framework.long, ...), mapped onto numpy dtypes."""
from __future__ import annotations

import ml_dtypes
import numpy as np

# NumPy has no bfloat16: ml_dtypes (JAX's) adds one, whose NumPy kind is 'V' (not 'f'), so code that asks
# "is this array floating?" tests ``kind in "fV"`` (framework's arrays are never structured, the other 'V').
BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)
FLOAT_KINDS = "fV"
FLOAT16_NP = np.dtype(np.float16)
# True once a bfloat16 or float16 dtype was asked for: only then do ops look for such operands (torch's CPU kernels
# compute both in float32 and round once, autograd/bfloat16.py)
bfloat16_used = False


class dtype:
    """A tensor element type: ``framework.float32`` mirrors ``torch.float32``."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "legacy")

    def __init__(self, name: str, np_dtype, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind in FLOAT_KINDS
        self.is_signed = self.np.kind in "fiV"
        self.itemsize = self.np.itemsize
        self.legacy = legacy  # torch's legacy type name, e.g. 'FloatTensor'

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


float16 = dtype("float16", np.float16, "HalfTensor")
float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
bfloat16 = dtype("bfloat16", BFLOAT16_NP, "BFloat16Tensor")
int8 = dtype("int8", np.int8, "CharTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int64 = dtype("int64", np.int64, "LongTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")

ALL = (float16, float32, float64, bfloat16, int8, uint8, int16, int32, int64, bool_)
_FROM_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}

default_float = float32


class memory_format:
    """A tensor memory layout: ``framework.contiguous_format`` mirrors ``torch.contiguous_format``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __reduce__(self):
        return (_memory_format_by_name, (self.name,))


preserve_format = memory_format("preserve_format")  # a copy keeps its input's dim order (clone's default)
contiguous_format = memory_format("contiguous_format")  # row-major (C) order
channels_last = memory_format("channels_last")  # NCHW sizes laid out as NHWC (a rank-4 tensor's channels innermost)
channels_last_3d = memory_format("channels_last_3d")  # NCDHW sizes laid out as NDHWC (rank 5)


def _memory_format_by_name(name: str) -> memory_format:
    return {"preserve_format": preserve_format, "contiguous_format": contiguous_format, "channels_last": channels_last,
            "channels_last_3d": channels_last_3d}[name]


class layout:
    """How a tensor's elements are stored: ``framework.strided`` (dense, with strides) is the only one here, as
    ``torch.strided`` (torch's sparse and mkldnn layouts have no counterpart)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"framework.{self.name}"

    def __reduce__(self):
        return (_layout_by_name, (self.name,))


strided = layout("strided")


def _layout_by_name(name: str) -> layout:
    return {"strided": strided}[name]


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The framework dtype for a numpy dtype; a clear error for unsupported ones."""
    global bfloat16_used
    if np_dtype == BFLOAT16_NP or np_dtype == FLOAT16_NP:
        bfloat16_used = True
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
            "float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy_dtype(d) -> np.dtype:
    """Accept a framework dtype, a numpy dtype, a python type or a string; return a numpy dtype."""
    global bfloat16_used
    if isinstance(d, dtype):
        if d is bfloat16 or d is float16:
            bfloat16_used = True
        return d.np
    if d is float:
        return default_float.np
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    if isinstance(d, str) and d in _BY_NAME:
        return _BY_NAME[d].np
    return np.dtype(d)


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: the higher category (bool < int < float) wins, then the wider type."""
    ka, kb = _category(a), _category(b)
    if ka != kb:
        return a if ka > kb else b
    if (a == BFLOAT16_NP) != (b == BFLOAT16_NP):  # bfloat16 with float16 is float32; with a wider float, that one
        other = b if a == BFLOAT16_NP else a
        return np.dtype(np.float32) if other.itemsize <= 2 else other
    return np.promote_types(a, b)


def _category(d: np.dtype) -> int:
    return {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}.get(d.kind, 3)


def result_type(a, b) -> np.dtype:
    """dtype of a binary op between tensors and/or Python scalars, following torch's rules.

    Operands rank as dimensioned tensor > 0-dim tensor > Python scalar.  A lower-ranked operand
    only matters when its category (bool < int < float) is higher: ``int_tensor * 2.5`` is float32,
    ``float32_tensor * 2.5`` stays float32, ``float32_tensor + float64_scalar_tensor`` stays float32.
    """
    (da, ra), (db, rb) = _dtype_and_rank(a), _dtype_and_rank(b)
    if ra == rb:
        out = promote_types(da, db)
        if ra == 0:  # two Python scalars: the category's default dtype
            return default_float.np if out.kind in FLOAT_KINDS else out
        return out
    (dh, _), (dl, rl) = ((da, ra), (db, rb)) if ra > rb else ((db, rb), (da, ra))
    if _category(dl) > _category(dh):
        if rl == 0:  # a Python scalar brings the category's default dtype
            return default_float.np if dl.kind in FLOAT_KINDS else np.dtype(np.int64)
        return dl
    return dh


def result_type_of(arrays) -> np.dtype | None:
    """torch's result_type over many arrays: the dimensioned ones promote together, and the 0-dim ones only
    count when their category is higher (block_diag of a 0-dim float64 and a float32 matrix is float32)."""
    dim = zero = None
    for a in arrays:
        if a.ndim:
            dim = a.dtype if dim is None else promote_types(dim, a.dtype)
        else:
            zero = a.dtype if zero is None else promote_types(zero, a.dtype)
    if dim is None or zero is None:
        return zero if dim is None else dim
    return zero if _category(zero) > _category(dim) else dim


def _dtype_and_rank(x):
    """(numpy dtype, rank): dimensioned tensor or array 2, 0-dim tensor 1, Python scalar 0."""
    arr = getattr(x, "_array", x)
    if hasattr(arr, "ndim") and hasattr(arr, "dtype"):
        return arr.dtype, (2 if arr.ndim else 1)
    if isinstance(x, bool):
        return np.dtype(np.bool_), 0
    if isinstance(x, int):
        return np.dtype(np.int64), 0
    if isinstance(x, float):
        return np.dtype(np.float64), 0
    arr = np.asarray(x)
    return arr.dtype, (2 if arr.ndim else 1)
