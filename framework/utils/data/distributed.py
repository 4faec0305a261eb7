"""DistributedSampler (torch.utils.data.distributed): each rank's disjoint share of a dataset's indices."""
from __future__ import annotations

import math
from typing import Iterator

from ... import distributed as dist
from ...random import Generator
from .sampler import Sampler


class DistributedSampler(Sampler):
    """This rank's share of the indices: every rank gets ``num_samples`` of them, disjoint across ranks.

    Without ``drop_last`` the index list is padded by repeating its start so it divides evenly; with it
    the tail is dropped.  Rank r takes every ``num_replicas``-th index from position r (torch's rule, so
    without shuffle the indices equal torch's exactly).  With ``shuffle`` the list is a permutation
    drawn from a framework Generator seeded with ``seed + epoch``: identical on every rank, different
    each epoch once ``set_epoch`` is called.
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            if not dist.is_initialized():
                raise RuntimeError("Requires distributed package to be available: call "
                                   "framework.distributed.init_process_group() first, or pass num_replicas and rank.")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            indices = Generator(self.seed + self.epoch).np.permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Reshuffle differently for this epoch (the same way on every rank)."""
        self.epoch = epoch
