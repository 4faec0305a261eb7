"""What a dtype or tensor is, as torch's top level answers it: finfo, iinfo, result_type, can_cast, broadcast_shapes, typename, is_inference."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from . import dtypes
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
