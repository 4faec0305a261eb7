"""Write PyTorch's zip checkpoint format (what torch.save writes), readable by torch.load(weights_only=True).

Tensors are pickled as torch pickles them: ``torch._utils._rebuild_tensor_v2`` over a persistent storage id
``('storage', torch.FloatStorage, key, 'cpu', numel)`` whose bytes are the record ``<prefix>/data/<key>``;
parameters as ``torch._utils._rebuild_parameter``; dtypes as ``torch.float32`` & co.  Those names are
written as text (torch is never imported), which needs the pure-Python pickler: it lets ``save`` emit a
GLOBAL for a name that does not exist in this process.
"""
from __future__ import annotations

import collections
import hashlib
import io
import pickle
import zipfile
from typing import Any

import numpy as np

from .. import backend, dtypes
from ..nn.parameter import Parameter
from ..tensor import Size, Tensor
from .allowlist import STORAGE_DTYPES, TORCH_DTYPES

_STORAGE_NAME = {np.dtype(v): k for k, v in STORAGE_DTYPES.items()}
_DTYPE_NAME = {d: name for name, d in TORCH_DTYPES.items() if name.endswith(("8", "16", "32", "64", "bool"))}
_ALIGN = 64  # torch aligns each storage record to 64 bytes (for mmap loading)


class _Global:
    """A ``module.name`` to write into the pickle as is."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a reduce function to be callable; this one is only ever written
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint, not a function")


class _StorageRef:
    def __init__(self, key: str, array: np.ndarray) -> None:
        self.key, self.array = key, array


class _PlainTensor:
    """The data of a Parameter, pickled as a plain tensor inside ``_rebuild_parameter``."""

    def __init__(self, t: Tensor) -> None:
        self.t = t


class _TorchPickler(pickle._Pickler):  # the pure-Python pickler: see the module docstring
    def __init__(self, file) -> None:
        super().__init__(file, protocol=2)
        self.storages: list[_StorageRef] = []

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            return
        if isinstance(obj, dtypes.dtype):
            self.save(_Global("torch", _DTYPE_NAME[obj]))
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", _STORAGE_NAME[obj.array.dtype]), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return (_Global("torch._utils", "_rebuild_parameter"),
                    (_PlainTensor(obj), obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, (Tensor, _PlainTensor)):
            t = obj.t if isinstance(obj, _PlainTensor) else obj
            array = np.ascontiguousarray(backend.to_numpy(t._array)).reshape(-1)
            ref = _StorageRef(str(len(self.storages)), array)
            self.storages.append(ref)
            shape = tuple(t.shape)
            stride = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
            requires_grad = t.requires_grad and not isinstance(obj, _PlainTensor)
            return (_Global("torch._utils", "_rebuild_tensor_v2"),
                    (ref, 0, shape, stride, requires_grad, collections.OrderedDict()))
        if isinstance(obj, Size):
            return (_Global("torch", "Size"), (tuple(obj),))
        return NotImplemented


def to_bytes(obj: Any, archive_name: str = "archive") -> bytes:
    """The bytes of a torch.save zip file holding ``obj``."""
    pkl = io.BytesIO()
    pickler = _TorchPickler(pkl)
    pickler.dump(obj)
    out = io.BytesIO()
    records = [("data.pkl", pkl.getvalue()), (".format_version", b"1"), (".storage_alignment", str(_ALIGN).encode()),
               ("byteorder", b"little")]
    records += [(f"data/{s.key}", s.array.astype(s.array.dtype.newbyteorder("<")).tobytes())
                for s in pickler.storages]
    digest = int(hashlib.sha1(pkl.getvalue()).hexdigest(), 16) % 10 ** 40
    records += [("version", b"3\n"), (".data/serialization_id", f"{digest:040d}".encode())]
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in records:
            info = zipfile.ZipInfo(f"{archive_name}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            if name.startswith("data/"):  # pad the local header's extra field so the bytes start aligned
                start = out.tell() + 30 + len(info.filename.encode()) + 4
                pad = -start % _ALIGN
                info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
            archive.writestr(info, data)
    return out.getvalue()
