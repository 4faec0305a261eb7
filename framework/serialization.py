"""framework.save / framework.load: tensors and nested state dicts in safetensors, written atomically.

Tensors go into the safetensors body under generated keys; the structure around them (dicts with any
keys, lists, tuples, numbers, strings, None) goes into the header's JSON metadata.  Loading parses JSON
and raw arrays only: a file can never run code (no pickle anywhere).  The write goes to a temporary
file in the same directory, is fsync'ed, then renamed over the target, so a crash mid-write leaves the
previous file intact.
"""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np

from . import backend
from .tensor import Tensor

_FORMAT = "framework/1"


class CheckpointError(RuntimeError):
    """A file that framework.load cannot read: missing, truncated, corrupted, or not ours."""


def _encode(obj: Any, tensors: dict, path: str):
    if isinstance(obj, Tensor):
        key = f"t{len(tensors)}"
        tensors[key] = np.ascontiguousarray(backend.to_numpy(obj._array))
        # the shape is kept here too: safetensors' numpy layer turns 0-d arrays into 1-d ones
        out = {"__tensor__": key, "shape": list(obj.shape), "requires_grad": bool(obj.requires_grad)}
        from .nn.parameter import Parameter

        if isinstance(obj, Parameter):
            out["parameter"] = True
        return out
    if isinstance(obj, np.ndarray):
        key = f"t{len(tensors)}"
        tensors[key] = np.ascontiguousarray(obj)
        return {"__ndarray__": key}
    if isinstance(obj, dict):
        return {"__dict__": [[_encode(k, tensors, path), _encode(v, tensors, path)] for k, v in obj.items()]}
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode(v, tensors, path) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v, tensors, path) for v in obj]
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return {"__float__": repr(obj)}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"framework.save cannot store an object of type {type(obj).__name__} "
                    "(tensors, numpy arrays, dicts, lists, tuples, numbers, strings and None only; no pickling)")


def _decode(obj: Any, arrays: dict, path: str):
    if isinstance(obj, list):
        return [_decode(v, arrays, path) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__tensor__" in obj:
        arr = arrays.get(obj["__tensor__"])
        if arr is None:
            raise CheckpointError(f"{path}: corrupted file: tensor '{obj['__tensor__']}' is missing")
        if "shape" in obj:
            if int(np.prod(obj["shape"])) != arr.size:
                raise CheckpointError(f"{path}: corrupted file: tensor '{obj['__tensor__']}' has {arr.size} elements, "
                                      f"expected shape {obj['shape']}")
            arr = arr.reshape(obj["shape"])
        if obj.get("parameter"):
            from .nn.parameter import Parameter

            return Parameter(Tensor._make(arr), requires_grad=obj.get("requires_grad", True))
        t = Tensor._make(arr)
        if obj.get("requires_grad"):
            t.requires_grad_(True)
        return t
    if "__ndarray__" in obj:
        return arrays[obj["__ndarray__"]]
    if "__dict__" in obj:
        return {_freeze(_decode(k, arrays, path)): _decode(v, arrays, path) for k, v in obj["__dict__"]}
    if "__tuple__" in obj:
        return tuple(_decode(v, arrays, path) for v in obj["__tuple__"])
    if "__float__" in obj:
        return float(obj["__float__"])
    raise CheckpointError(f"{path}: corrupted file: unknown entry {sorted(obj)[:3]}")


def _freeze(k):
    return tuple(k) if isinstance(k, list) else k


def save(obj: Any, f, _fsync: bool = True) -> None:
    """Write ``obj`` (a tensor or nested dict/list of tensors and plain values) to ``f`` atomically."""
    from safetensors.numpy import save as st_save

    tensors: dict = {}
    structure = _encode(obj, tensors, str(f))
    data = st_save(tensors, metadata={"format": _FORMAT, "structure": json.dumps(structure)})
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            if _fsync:
                os.fsync(out.fileno())
        os.replace(tmp, path)  # atomic on POSIX and Windows: readers see the old file or the new one
        if _fsync and hasattr(os, "O_DIRECTORY"):
            dfd = os.open(directory, os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load(f, map_location=None, weights_only: bool = True) -> Any:
    """Read what save() wrote; a clear CheckpointError (naming the file) for anything else."""
    from safetensors import SafetensorError
    from safetensors.numpy import load as st_load

    path = os.fspath(f)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CheckpointError(f"{path}: is a directory, not a checkpoint file") from None
    if data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05") or data[:4] == b"PK\x03\x04":
        raise CheckpointError(f"{path}: this is a pickle (or a torch.save zip) file; framework.load never unpickles "
                              "(it could run arbitrary code). Convert it with torch: load it there and save the "
                              "state dict's tensors with safetensors.")
    if len(data) < 8:
        raise CheckpointError(f"{path}: truncated file ({len(data)} bytes): not a framework checkpoint")
    header_len = int.from_bytes(data[:8], "little")
    if header_len > len(data) - 8:
        raise CheckpointError(f"{path}: truncated or corrupted file: the header says {header_len} bytes but the file "
                              f"has {len(data) - 8} after it")
    try:
        header = json.loads(data[8:8 + header_len])
        arrays = st_load(data)
    except (SafetensorError, ValueError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: corrupted file: {e}") from None
    meta = header.get("__metadata__") or {}
    if meta.get("format") != _FORMAT or "structure" not in meta:
        if not meta:  # a plain safetensors file: a flat dict of tensors
            return {k: Tensor._make(v) for k, v in arrays.items()}
        raise CheckpointError(f"{path}: not a framework checkpoint (format {meta.get('format')!r})")
    try:
        structure = json.loads(meta["structure"])
    except ValueError as e:
        raise CheckpointError(f"{path}: corrupted metadata: {e}") from None
    out = _decode(structure, arrays, path)
    if map_location is not None and str(map_location) != "cpu":
        out = _move(out, str(map_location))
    return out


def _move(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device=device)
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(v, device) for v in obj)
    return obj
