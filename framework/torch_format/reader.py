"""Read PyTorch checkpoints (torch.save's zip format and its legacy format) with a restricted unpickler.

Zip format: ``<prefix>/data.pkl`` is a pickle whose tensors point, through persistent ids
``('storage', torch.FloatStorage, key, location, numel)``, at raw little-endian records ``<prefix>/data/<key>``.
Legacy format: five pickles in a row (magic number, protocol version, system info, the object, the storage
keys), then each storage as an int64 element count and its bytes.
"""
from __future__ import annotations

import _compat_pickle
import io
import pickle
import zipfile
from typing import Any

import numpy as np

from .moved import MOVED
from .. import dtypes
from .allowlist import Storage, StorageType, RefusedGlobal, fill, resolve

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001


class _Unpickler(pickle.Unpickler):
    """pickle.Unpickler whose globals come only from the allowlist and whose storages come from ``load_storage``."""

    def __init__(self, file, load_storage=None) -> None:
        super().__init__(file, encoding="utf-8")
        self._load_storage = load_storage

    def find_class(self, module: str, name: str):
        # protocol-2 pickles use Python 2 names (__builtin__.set); map them as pickle's own find_class does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        module = MOVED.get(f"{module}.{name}", module)  # saved before the re-lay by family: the class's new home
        return resolve(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r:.80} (not a torch storage)")
        storage_type, key, numel = pid[1], str(pid[2]), int(pid[4])
        if self._load_storage is None:
            raise pickle.UnpicklingError("a storage where none is expected (corrupted file)")
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"storage of unsupported type {storage_type!r:.80}")
        return self._load_storage(key, storage_type.dtype, numel)


def _as_array(raw: bytes, dtype, numel: int, what: str) -> np.ndarray:
    np_dtype = np.dtype(dtype)
    need = numel * np_dtype.itemsize
    if len(raw) < need:
        raise pickle.UnpicklingError(f"{what} holds {len(raw)} bytes, {need} expected (truncated file)")
    if np_dtype == dtypes.BFLOAT16_NP:  # ml_dtypes' bfloat16 has no byte order of its own: read its bits as <u2
        return np.frombuffer(raw[:need], dtype="<u2").astype(np.uint16).view(np_dtype)
    return np.frombuffer(raw[:need], dtype=np_dtype.newbyteorder("<")).astype(np_dtype)


def load_zip(data: bytes) -> Any:
    """Read torch.save's default (zip) format."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = archive.namelist()
    pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
    if not pkl:
        raise pickle.UnpicklingError("no <archive>/data.pkl record: not a torch.save file")
    prefix = pkl[0][:-len("data.pkl")]
    if prefix + "byteorder" in names and archive.read(prefix + "byteorder") != b"little":
        raise pickle.UnpicklingError("big-endian checkpoints are not supported")
    storages: dict[str, Storage] = {}

    def load_storage(key, dtype, numel):
        if key not in storages:
            record = f"{prefix}data/{key}"
            try:
                raw = archive.read(record)
            except KeyError:
                raise pickle.UnpicklingError(f"record {record} is missing (corrupted file)") from None
            storages[key] = Storage(dtype, numel, _as_array(raw, dtype, numel, record))
        return storages[key]

    return _Unpickler(io.BytesIO(archive.read(pkl[0])), load_storage).load()


def load_legacy(data: bytes) -> Any:
    """Read the format torch.save wrote before 1.6 (``_use_new_zipfile_serialization=False``)."""
    f = io.BytesIO(data)

    def next_pickle(load_storage=None):
        return _Unpickler(f, load_storage).load()  # reads exactly one pickle, up to its STOP

    if next_pickle() != LEGACY_MAGIC:
        raise pickle.UnpicklingError("invalid magic number; corrupt file?")
    if next_pickle() != LEGACY_PROTOCOL:
        raise pickle.UnpicklingError("invalid protocol version")
    info = next_pickle()
    if isinstance(info, dict) and not info.get("little_endian", True):
        raise pickle.UnpicklingError("big-endian checkpoints are not supported")
    storages: dict[str, Storage] = {}

    def load_storage(key, dtype, numel):
        return storages.setdefault(key, Storage(dtype, numel))

    result = next_pickle(load_storage)
    keys = next_pickle()
    for key in keys:
        storage = storages.get(str(key))
        if storage is None:
            raise pickle.UnpicklingError(f"storage {key} is listed but no tensor uses it (corrupted file)")
        header = f.read(8)
        if len(header) < 8:
            raise pickle.UnpicklingError(f"storage {key} is missing (truncated file)")
        numel = int.from_bytes(header, "little")
        itemsize = np.dtype(storage.dtype).itemsize
        storage.array = _as_array(f.read(numel * itemsize), storage.dtype, numel, f"storage {key}")
        for t, offset, size, stride in storage.pending:
            fill(t, storage, offset, size, stride)
    if any(s.array is None for s in storages.values()):
        raise pickle.UnpicklingError("a storage's data is missing (truncated file)")
    return result


__all__ = ["RefusedGlobal", "load_legacy", "load_zip"]
