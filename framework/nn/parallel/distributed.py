"""DistributedDataParallel: the same model on every rank, each on its own shard of the batch, gradients
averaged across ranks during backward, so every rank takes the same optimizer step.

As torch.nn.parallel.DistributedDataParallel over the MPI process group: parameters and buffers are
broadcast from rank 0 at construction (after checking that every rank built the same shapes), and
the buffers again before each forward; the Reducer (reducer.py) averages gradients bucket by bucket
while backward is still running.
"""
from __future__ import annotations

from contextlib import contextmanager

from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from .reducer import Reducer


class DistributedDataParallel(Module):
    """Wraps ``module``; ``forward`` calls it, ``backward`` leaves rank-averaged gradients in its parameters."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb: float | None = 25,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects a framework.nn.Module, got {type(module).__name__}")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.bucket_cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.require_backward_grad_sync = True
        self.world_size, self.rank = dist.get_world_size(), dist.get_rank()  # a clear error before init
        self._check_same_model()
        self._sync_module_states()
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.reducer = Reducer(params, int(self.bucket_cap_mb * 1024 * 1024), find_unused_parameters)

    def _check_same_model(self) -> None:
        """Every rank must hold the same parameter names and shapes; the error names the first difference."""
        mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in self.module.named_parameters()]
        mine += [(n, tuple(b.shape), str(b.dtype)) for n, b in self.module.named_buffers()]
        everyone = [None] * self.world_size
        dist.all_gather_object(everyone, mine)
        ref = everyone[0]
        for rank, theirs in enumerate(everyone[1:], start=1):
            if len(theirs) != len(ref):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {rank} has {len(theirs)} params and "
                    f"buffers, while rank 0 has inconsistent {len(ref)} params and buffers. Every rank must "
                    "build the same model before wrapping it.")
            for (n0, s0, d0), (n1, s1, d1) in zip(ref, theirs):
                if (n0, s0, d0) != (n1, s1, d1):
                    raise RuntimeError(
                        f"DDP expects same model across all ranks: '{n1}' on rank {rank} has shape {list(s1)} "
                        f"({d1}), but '{n0}' on rank 0 has shape {list(s0)} ({d0}). Every rank must build the "
                        "same model before wrapping it.")

    @no_grad()
    def _sync_module_states(self) -> None:
        """Rank 0's parameters and buffers everywhere, so all ranks start from the same model."""
        for p in self.module.parameters():
            dist.broadcast(p, 0)
        self._sync_buffers()

    @no_grad()
    def _sync_buffers(self) -> None:
        for b in self.module.buffers():
            dist.broadcast(b, 0)

    def forward(self, *args, **kwargs):
        if self.broadcast_buffers and self.world_size > 1:
            self._sync_buffers()  # e.g. BatchNorm running statistics follow rank 0
        if self.require_backward_grad_sync:
            self.reducer.prepare()
        self.reducer.enabled = self.require_backward_grad_sync
        return self.module(*args, **kwargs)

    @contextmanager
    def no_sync(self):
        """Backward inside accumulates gradients locally; the first backward after it averages the total."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def extra_repr(self) -> str:
        return f"world_size={self.world_size}, buckets={len(self.reducer.buckets)}"
