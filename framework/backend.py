"""The array backend: the only module that touches numpy/cupy directly by name.

Every op asks ``get_array_module(array)`` for ``xp`` (numpy or cupy), as DeZero and Chainer do,
so one op body serves both devices.  cupy is imported lazily, only when a CUDA device is asked for.
"""
from __future__ import annotations

from typing import Any

import numpy as np

Array = Any  # a numpy.ndarray or a cupy.ndarray

_cupy = None


def _import_cupy():
    global _cupy
    if _cupy is None:
        import cupy  # noqa: F401  (only here, and only on demand)

        _cupy = cupy
    return _cupy


def cupy_available() -> bool:
    """True when cupy imports and sees at least one CUDA device."""
    try:
        cp = _import_cupy()
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def get_array_module(array: Array):
    """numpy for numpy arrays and scalars, cupy for cupy arrays."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy
    return np


def device_of(array: Array) -> str:
    """'cpu' or 'cuda:N' for the array's device."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return f"cuda:{array.device.id}"
    return "cpu"


def xp_for_device(device: str):
    """The array module that holds arrays on ``device``."""
    return np if device == "cpu" else _import_cupy()


def to_device(array: Array, device: str) -> Array:
    """Copy ``array`` to ``device`` ('cpu' or 'cuda:N'); no copy when it is already there."""
    if device_of(array) == device:
        return array
    if device == "cpu":
        return array.get()
    if not cupy_available():
        raise RuntimeError(f"cannot move a tensor to {device}: no CUDA device is available "
                           "(framework needs cupy, e.g. pip install cupy-cuda12x, and an NVIDIA GPU)")
    cp = _import_cupy()
    with cp.cuda.Device(int(device.split(":")[1]) if ":" in device else 0):
        return cp.asarray(array)


def to_numpy(array: Array) -> np.ndarray:
    """A numpy array with the same values (a copy when the array lives on a GPU)."""
    if isinstance(array, np.ndarray):
        return array
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return array.get()
    return np.asarray(array)


def errstate(xp, **kwargs):
    """numpy's errstate (silence 0/0, log(0) warnings inside an op); a no-op for cupy, which has none."""
    if xp is np:
        return np.errstate(**kwargs)
    import contextlib

    return contextlib.nullcontext()


def scatter_add(target: Array, index, values: Array) -> None:
    """target[index] += values, accumulating repeated indices (np.add.at / cupyx.scatter_add)."""
    if get_array_module(target) is np:
        np.add.at(target, index, values)
    else:
        import cupyx

        cupyx.scatter_add(target, index, values)
