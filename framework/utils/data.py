"""Dataset, TensorDataset, Subset, random_split and DataLoader (torch.utils.data, single process)."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..random import Generator, default_generator
from ..tensor import Tensor


class Dataset:
    """Anything with ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index: int):  # pragma: no cover - abstract
        raise NotImplementedError

    def __len__(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class TensorDataset(Dataset):
    """Sample i is ``(t[i] for t in tensors)``; all tensors must have the same first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].shape[0]
        if any(t.shape[0] != n for t in tensors):
            raise ValueError("Size mismatch between tensors: " + ", ".join(str(t.shape[0]) for t in tensors))
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence, generator: Generator | None = None) -> list[Subset]:
    """Split into non-overlapping subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)
    if all(0 <= x <= 1 for x in lengths) and abs(sum(lengths) - 1) < 1e-9 and sum(lengths) != n:
        sizes = [int(np.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = (generator or default_generator).np.permutation(n).tolist()
    out, start = [], 0
    for size in lengths:
        out.append(Subset(dataset, perm[start:start + size]))
        start += size
    return out


def default_collate(batch: list) -> Any:
    """Stack a list of samples: tensors -> one tensor, numbers -> a tensor, tuples/dicts elementwise."""
    from ..creation import tensor
    from ..ops import stack

    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch)
    if isinstance(first, (int, float, bool, np.number)):
        return tensor(batch)
    if isinstance(first, np.ndarray):
        return tensor(np.stack(batch))
    if isinstance(first, dict):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate(list(items)) for items in zip(*batch)) if isinstance(first, tuple) else \
            [default_collate(list(items)) for items in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    f"{type(first).__name__}")


class DataLoader:
    """Iterate over a dataset in (optionally shuffled) batches.

    TensorDatasets are batched by slicing whole tensors at once (no per-sample Python loop).
    ``shuffle`` draws a permutation from ``generator`` (default: framework's default generator), so
    ``manual_seed`` makes the order reproducible.
    """

    def __init__(self, dataset: Dataset, batch_size: int = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Callable | None = None, generator: Generator | None = None, num_workers: int = 0,
                 pin_memory: bool = False) -> None:
        if batch_size is None or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn
        self.generator = generator

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _order(self) -> np.ndarray:
        n = len(self.dataset)
        if self.shuffle:
            return (self.generator or default_generator).np.permutation(n)
        return np.arange(n)

    def __iter__(self) -> Iterator:
        order = self._order()
        n = len(order)
        stop = n - n % self.batch_size if self.drop_last else n
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is None
        for start in range(0, stop, self.batch_size):
            idx = order[start:start + self.batch_size]
            if fast:
                yield tuple(Tensor._make(t._array[idx]) for t in self.dataset.tensors)
            else:
                samples = [self.dataset[int(i)] for i in idx]
                yield (self.collate_fn or default_collate)(samples)
