"""DataParallel and data_parallel (torch.nn.parallel.data_parallel) for one process on at most one GPU.

torch splits each batch over the visible GPUs, runs a replica of the module on each and gathers the outputs.
framework drives one GPU, so the useful cases are torch's own short paths: no GPU (the wrapper just calls the
module) and one GPU (the module lives there and the inputs are moved there first).  State dicts carry the
``module.`` prefix, as torch's do, so checkpoints move between the two libraries unchanged.
"""
from __future__ import annotations

from ... import cuda
from ...tensor import Tensor
from ..modules.module import Module


def _device_index(d) -> int:
    """A device id as torch's _get_device_index reads it: 1, "cuda:1" or a device object with an index."""
    if isinstance(d, int):
        return d
    index = getattr(d, "index", None)
    if index is None and ":" in str(d):
        index = str(d).rpartition(":")[2]
    return int(index or 0)


def _to(obj, device: str):
    """Tensors in (nested tuples, lists and dicts of) ``obj`` moved to ``device``: scatter for one device."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to(v, device) for v in obj)
    if isinstance(obj, dict):
        return {k: _to(v, device) for k, v in obj.items()}
    return obj


def _check_one_device(device_ids: list) -> None:
    if len(device_ids) > 1:
        raise NotImplementedError(f"DataParallel over {len(device_ids)} devices is not supported: framework runs "
                                  "one process on one GPU. Pass device_ids=[0] (or train with "
                                  "DistributedDataParallel, one process per GPU).")


class DataParallel(Module):
    """Run ``module`` on device_ids[0] (inputs moved there); without a GPU, just call it (torch's CPU path)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        if not cuda.is_available():  # torch's early return: no dim, no output_device
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = f"cuda:{self.device_ids[0]}"
        _check_one_device(self.device_ids)
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        return self.module(*_to(inputs, self.src_device_obj), **_to(kwargs, self.src_device_obj))


def data_parallel(module: Module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """DataParallel's forward as a function (torch refuses it without a GPU, and so does this)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    device_ids = list(range(cuda.device_count())) if device_ids is None else [_device_index(d) for d in device_ids]
    _check_one_device(device_ids)
    device = f"cuda:{device_ids[0]}"
    for t in list(module.parameters()) + list(module.buffers()):
        if t.device != device:
            raise RuntimeError(f"module must have its parameters and buffers on device {device} (device_ids[0]) but "
                               f"found one of them on device: {t.device}")
    return module(*_to(inputs, device), **_to(module_kwargs or {}, device))
