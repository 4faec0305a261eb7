"""framework.save / framework.load: tensors and nested state dicts in safetensors, written atomically.

PyTorch checkpoints (torch.save's zip and legacy formats) load through a restricted unpickler of our own
(framework/torch_format: tensor rebuilds, dtypes and plain containers only, other globals only once allowed
with ``add_safe_globals`` / ``safe_globals``), and ``save(obj, f, format="torch")`` writes torch's zip format.

Tensors go into the safetensors body under generated keys; the structure around them (dicts with any
keys, lists, tuples, numbers, strings, None) goes into the header's JSON metadata.  Loading that format
parses JSON and raw arrays only; a torch file's pickle can call only allowlisted globals.  The write goes to a
temporary file in the same directory, is fsync'ed, then renamed over the target, so a crash mid-write leaves
the previous file intact.
"""
from __future__ import annotations

import json
import os
import pickle
import tempfile
import zipfile
from typing import Any

import numpy as np
import safetensors
from safetensors import SafetensorError
from safetensors.numpy import save as st_save

from . import backend, dtypes, torch_format
from .nn.modules.module import Module
from .nn.parameter import Parameter
from .tensor import Tensor
from .torch_format import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals  # noqa: F401

_FORMAT = "framework/1"


class CheckpointError(RuntimeError):
    """A file that framework.load cannot read: missing, truncated, corrupted, or not ours."""


class UnsafeGlobalError(CheckpointError, pickle.UnpicklingError):
    """A PyTorch checkpoint names a global that is not allowed; nothing it names was imported or run."""


def _encode(obj: Any, tensors: dict, path: str):
    if isinstance(obj, Tensor):
        key = f"t{len(tensors)}"
        tensors[key] = np.ascontiguousarray(backend.to_numpy(obj._array))
        # the shape is kept here too: safetensors' numpy layer turns 0-d arrays into 1-d ones
        out = {"__tensor__": key, "shape": list(obj.shape), "requires_grad": bool(obj.requires_grad)}
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


def save(obj: Any, f, pickle_module: Any = pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False, *, _fsync: bool = True,
         format: str | None = None) -> None:
    """Write ``obj`` to ``f`` atomically: safetensors (tensors, nested dicts/lists of tensors and plain values),
    or with ``format="torch"`` torch.save's zip format (any picklable object; torch.load reads state dicts).
    The default is safetensors, except for a whole Module (``save(model, f)``), which only torch's format holds.
    torch's pickling options take only their defaults here (our writer owns its pickling)."""
    for name, value, default in (("pickle_module", pickle_module, pickle), ("pickle_protocol", pickle_protocol, 2),
                                 ("_use_new_zipfile_serialization", _use_new_zipfile_serialization, True),
                                 ("_disable_byteorder_record", _disable_byteorder_record, False)):
        if value is not default and value != default:
            raise NotImplementedError(f"save({name}={value!r}) is not supported: only the default, {default!r}")
    if format is None:
        format = "torch" if isinstance(obj, Module) else "safetensors"
    if format == "torch":
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0] if isinstance(f, (str, os.PathLike)) else ""
        data = torch_format.to_bytes(obj, name or "archive")
    elif format == "safetensors":
        tensors: dict = {}
        structure = _encode(obj, tensors, str(f))
        data = st_save(tensors, metadata={"format": _FORMAT, "structure": json.dumps(structure)})
    else:
        raise ValueError(f"format must be 'safetensors' or 'torch', got {format!r}")
    if hasattr(f, "write"):  # an open file (torch.save accepts them): the caller owns it, so no atomic rename
        f.write(data)
        return
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


def _read_arrays(data: bytes) -> dict:
    """A safetensors body's arrays by name: safetensors.numpy's reader, plus BF16 (which it lacks) as
    ml_dtypes' bfloat16."""
    arrays = {}
    for name, entry in safetensors.deserialize(data):
        if entry["dtype"] == "BF16":
            np_dtype = dtypes.BFLOAT16_NP
            dtypes.from_numpy_dtype(np_dtype)  # (marks bfloat16 as in use: ops then compute it in float32)
        else:
            np_dtype = _ST_DTYPES[entry["dtype"]]
        arrays[name] = np.frombuffer(bytes(entry["data"]), dtype=np_dtype).reshape(entry["shape"]).copy()
    return arrays


_ST_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
              "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_, "U16": np.uint16,
              "U32": np.uint32, "U64": np.uint64}


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **pickle_load_args) -> Any:
    """Read what save() wrote, or a torch.save file; a clear CheckpointError (naming the file) for anything else.

    ``map_location`` may be a device string; torch's callables and dicts leave tensors on the CPU, where loading
    puts them.  ``pickle_module``/``mmap`` are accepted for torch's signature; the allowlist always applies."""
    if not isinstance(map_location, str):
        map_location = None  # a callable or {old: new} dict: everything is loaded on the CPU already
    if hasattr(f, "read"):  # a file object (torch.load accepts them too)
        path, data = getattr(f, "name", "<file object>"), f.read()
        return _load_bytes(data, str(path), map_location)
    path = os.fspath(f)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CheckpointError(f"{path}: is a directory, not a checkpoint file") from None
    return _load_bytes(data, path, map_location)


def _load_bytes(data: bytes, path: str, map_location: str | None) -> Any:
    # a safetensors file starts with an 8-byte header length and then its JSON header's "{"; a length of 640-1535
    # bytes also begins with 0x80 like a pickle, so only a file without that "{" is read as torch's legacy pickle
    if data[:4] == b"PK\x03\x04" or (data[:1] == b"\x80" and data[8:9] != b"{"):
        out = _load_torch(data, path)
        return _move(out, str(map_location)) if map_location is not None and str(map_location) != "cpu" else out
    if len(data) < 8:
        raise CheckpointError(f"{path}: truncated file ({len(data)} bytes): not a framework checkpoint")
    header_len = int.from_bytes(data[:8], "little")
    if header_len > len(data) - 8:
        raise CheckpointError(f"{path}: truncated or corrupted file: the header says {header_len} bytes but the file "
                              f"has {len(data) - 8} after it")
    try:
        header = json.loads(data[8:8 + header_len])
        arrays = _read_arrays(data)
    except (SafetensorError, ValueError, UnicodeDecodeError, KeyError) as e:
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


def _load_torch(data: bytes, path: str) -> Any:
    """A torch.save file (zip or legacy pickle), through the restricted unpickler."""
    zip_format = data[:4] == b"PK\x03\x04"
    try:
        return torch_format.load_zip(data) if zip_format else torch_format.load_legacy(data)
    except torch_format.RefusedGlobal as e:
        raise UnsafeGlobalError(f"{path}: {e}") from None
    except (pickle.UnpicklingError, zipfile.BadZipFile, EOFError, ValueError, KeyError, IndexError,
            TypeError, AttributeError) as e:
        kind = "torch.save (a zip holding a pickle)" if zip_format else "legacy torch.save (pickle)"
        raise CheckpointError(f"{path}: truncated or corrupted {kind} file: {type(e).__name__}: {e}") from None


def _move(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device=device)
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(v, device) for v in obj)
    return obj
