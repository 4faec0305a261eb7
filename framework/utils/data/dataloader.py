"""DataLoader and default_collate (torch.utils.data.dataloader), single process.

Indices come from a sampler (SequentialSampler, or RandomSampler when ``shuffle=True``), are grouped
by a BatchSampler, and each batch of samples goes through ``collate_fn``.  A TensorDataset with the
default collate is batched by indexing whole tensors at once (no per-sample Python loop).
"""
from __future__ import annotations

import collections.abc
import copy
import itertools
import re
import warnings
from typing import Any, Callable, Iterator

import numpy as np

from ... import accelerator
from ...creation import as_tensor, tensor
from ...dtypes import float64
from ...ops import stack
from ...random import Generator
from ...tensor import Tensor
from .dataset import Dataset, IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_NP_STR_OBJ = re.compile(r"[SaUO]")


def default_collate(batch: list) -> Any:
    """Stack a list of samples with torch's rules: tensors and arrays stack, ints -> int64, floats -> float64,
    strings stay a list, dicts and lists collate per key/position, tuples give a list, namedtuples keep their type."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _NP_STR_OBJ.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # bool too: a bool tensor, as torch
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(collated)
            return clone
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # torch returns a list for tuples ("backwards compatibility")
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(_ERR.format(type(elem)))


def get_worker_info() -> None:
    """None: batches are loaded in the main process (torch returns None there too)."""
    return None


def default_convert(data: Any) -> Any:
    """What ``batch_size=None`` yields per sample: numpy arrays become tensors, containers are walked."""
    if isinstance(data, np.ndarray) and _NP_STR_OBJ.search(data.dtype.str) is None:
        return as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Iterate over a dataset in batches chosen by a sampler, as torch.utils.data.DataLoader (num_workers is
    accepted and ignored: loading runs in this process)."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | None = None, batch_sampler: Sampler | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None, multiprocessing_context=None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.worker_init_fn, self.generator = worker_init_fn, generator
        self.pin_memory_device = pin_memory_device
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler/batch_sampler option")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        auto = batch_sampler is not None or (self._iterable and batch_size is not None)
        self.collate_fn = collate_fn or (default_collate if auto else default_convert)
        self._fast = isinstance(dataset, TensorDataset) and collate_fn is None

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> Iterator:
        """A fresh pass over the data; warns as torch's iterator does when pinning cannot happen."""
        if self.pin_memory and self.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{self.pin_memory_device}'.", stacklevel=2)
        if self.pin_memory and not accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        return self._batches()

    def _batches(self) -> Iterator:
        if self._iterable:
            yield from self._iter_stream()
        elif self.batch_sampler is None:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
        elif self._fast:
            for idx in self.batch_sampler:
                idx = np.asarray(idx, dtype=np.int64)
                yield [Tensor._make(t._array[idx]) for t in self.dataset.tensors]
        else:
            for idx in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in idx])

    def _iter_stream(self) -> Iterator:
        it = iter(self.dataset)
        if self.batch_size is None:
            yield from (self.collate_fn(s) for s in it)
            return
        batch = list(itertools.islice(it, self.batch_size))
        while batch and not (self.drop_last and len(batch) < self.batch_size):
            yield self.collate_fn(batch)
            batch = list(itertools.islice(it, self.batch_size))
