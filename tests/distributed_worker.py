"""Run by tests/test_distributed.py under ``mpiexec -n 2``: each rank does the work and saves what it got.

``python tests/distributed_worker.py MODE OUT``; MODE is ``checks`` (collectives, DDP training, no_sync,
buffer broadcast), ``raise`` (rank 1 raises while rank 0 waits in a collective) or ``mismatch`` (rank 1
builds a different model).  The expected values are computed by the test, not here.
"""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import framework  # noqa: E402
import framework.distributed as dist  # noqa: E402
from framework import nn, optim  # noqa: E402

STEPS, B = 20, 4


def find_mpiexec() -> str | None:
    """The mpiexec of the MPI that mpi4py was installed with (beside this Python: pip's mpich), else PATH's."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.access(beside, os.X_OK) else shutil.which("mpiexec")


def rank_input(rank: int, dtype=np.float64) -> np.ndarray:
    return (np.arange(6, dtype=dtype).reshape(2, 3) + 1) * (rank + 1) + rank


def make_model(seed: int, dtype, hidden: int = 16) -> nn.Module:
    framework.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 3))
    return model.to(dtype=dtype)


def training_data(dtype) -> tuple[np.ndarray, np.ndarray]:
    """Global batches of 2B samples per step; rank r trains on rows r*B:(r+1)*B."""
    rng = np.random.default_rng(123)
    return rng.standard_normal((STEPS, 2 * B, 6)).astype(dtype), rng.integers(0, 3, (STEPS, 2 * B))


def make_optimizer(name: str, params):
    return optim.SGD(params, lr=0.1, momentum=0.9) if name == "sgd" else optim.Adam(params, lr=1e-2)


def collectives(rank: int, n: int) -> dict:
    out = {}
    T = framework.from_numpy
    for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
        t = T(rank_input(rank))
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        out[f"all_reduce_{op}"] = t.numpy().copy()
    t = T(rank_input(rank).astype(np.int64))
    dist.all_reduce(t)
    out["all_reduce_int"] = t.numpy().copy()
    t = T(rank_input(rank).astype(np.float32))
    work = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
    work.wait()
    out["all_reduce_async_f32"] = t.numpy().copy()
    base = T(rank_input(rank))
    view = base.t()  # not contiguous: staged through a host copy, written back in place
    dist.all_reduce(view)
    out["all_reduce_strided_base"] = base.numpy().copy()
    t = T(rank_input(rank))
    dist.broadcast(t, src=1)
    out["broadcast"] = t.numpy().copy()
    parts = [framework.zeros(2, 3, dtype=framework.float64) for _ in range(n)]
    dist.all_gather(parts, T(rank_input(rank)))
    out["all_gather"] = np.stack([p.numpy() for p in parts])
    parts = [framework.zeros(2, 3, dtype=framework.float64) for _ in range(n)] if rank == 1 else None
    dist.gather(T(rank_input(rank)), parts, dst=1)
    if rank == 1:
        out["gather"] = np.stack([p.numpy() for p in parts])
    t = framework.zeros(2, 3, dtype=framework.float64)
    dist.scatter(t, [T(rank_input(i) * 10) for i in range(n)] if rank == 0 else None, src=0)
    out["scatter"] = t.numpy().copy()
    t = T(rank_input(rank))
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    out["reduce"] = t.numpy().copy()
    t = framework.zeros(2, 3, dtype=framework.float64)
    dist.reduce_scatter(t, [T(rank_input(rank) + 100 * i) for i in range(n)], op=dist.ReduceOp.SUM)
    out["reduce_scatter"] = t.numpy().copy()
    dist.barrier()
    return out


def ddp_training(rank: int) -> dict:
    out = {}
    for dtype in (np.float64, np.float32):
        x, y = training_data(dtype)
        for name in ("sgd", "adam"):
            model = make_model(seed=rank, dtype=framework.float64 if dtype == np.float64 else framework.float32)
            ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)  # ~1 KB: several buckets
            ddp.reducer.progress_thread = name == "sgd"  # both ways of driving MPI's progress are covered
            opt = make_optimizer(name, ddp.parameters())
            launches = []  # how many parameters had their gradient when each bucket's all-reduce started
            launch = ddp.reducer._launch
            ddp.reducer._launch = lambda bucket: (launches.append(len(ddp.reducer.ready)), launch(bucket))
            for s in range(STEPS):
                opt.zero_grad()
                xs, ys = x[s, rank * B:(rank + 1) * B], y[s, rank * B:(rank + 1) * B]
                nn.functional.cross_entropy(ddp(framework.from_numpy(xs)), framework.from_numpy(ys)).backward()
                opt.step()
            key = f"{name}_{np.dtype(dtype).name}"
            out[f"buckets_{key}"] = np.array(len(ddp.reducer.buckets))
            out[f"launches_{key}"] = np.array(launches)
            for pname, p in model.named_parameters():
                out[f"{key}/{pname}"] = p.detach().numpy().copy()
    out["state_dict_keys"] = np.array(list(ddp.state_dict()))
    return out


def ddp_no_sync(rank: int) -> dict:
    x, y = training_data(np.float64)
    model = make_model(seed=rank, dtype=framework.float64)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
    for s in range(2):  # micro-batch 0 under no_sync (local), micro-batch 1 synchronised
        xs, ys = x[s, rank * B:(rank + 1) * B], y[s, rank * B:(rank + 1) * B]
        if s == 0:
            with ddp.no_sync():
                nn.functional.cross_entropy(ddp(framework.from_numpy(xs)), framework.from_numpy(ys)).backward()
            out = {f"local/{n}": p.grad.numpy().copy() for n, p in model.named_parameters()}
        else:
            nn.functional.cross_entropy(ddp(framework.from_numpy(xs)), framework.from_numpy(ys)).backward()
    out.update({f"synced/{n}": p.grad.numpy().copy() for n, p in model.named_parameters()})
    return out


def buffers(rank: int) -> dict:
    framework.manual_seed(rank)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    ddp = nn.parallel.DistributedDataParallel(model)
    with framework.no_grad():
        model[1].running_mean.fill_(float(rank + 7))  # diverge after construction
    ddp(framework.randn(5, 3))
    # the forward broadcast rank 0's value before BatchNorm updated it: 0.9 * 7 + 0.1 * batch mean on rank 0
    return {"bn_running_mean": model[1].running_mean.numpy().copy(), "bn_weight": model[1].weight.detach().numpy()}


class TwoHeads(nn.Module):
    """Only head ``a`` is used: ``b``'s parameters get no gradient."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(3, 2).double(), nn.Linear(3, 2).double()

    def forward(self, x):
        return self.a(x)


def unused_parameters(rank: int) -> dict:
    framework.manual_seed(0)
    model = TwoHeads()
    ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    ddp(framework.from_numpy(rank_input(rank))).sum().backward()
    out = {"unused_a_grad": model.a.weight.grad.numpy().copy(), "unused_b_grad_is_none": np.array(
        model.b.weight.grad is None)}
    ddp = nn.parallel.DistributedDataParallel(TwoHeads(), bucket_cap_mb=1e-5)
    try:
        ddp(framework.from_numpy(rank_input(rank))).sum().backward()
    except RuntimeError as e:
        out["unused_error"] = np.array(str(e))
    return out


def main() -> None:
    mode, out_dir = sys.argv[1], sys.argv[2]
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    if mode == "raise":
        if rank == 1:
            raise ValueError("rank 1 cannot go on (a deliberate test failure)")
        t = framework.ones(3)
        dist.all_reduce(t)  # never completes: rank 1 is gone; the abort must end this rank
        dist.barrier()
        return
    if mode == "mismatch":
        nn.parallel.DistributedDataParallel(make_model(0, framework.float64, hidden=16 if rank == 0 else 17))
        return
    results = {}
    results.update(collectives(rank, n))
    results.update(ddp_training(rank))
    results.update(ddp_no_sync(rank))
    results.update(buffers(rank))
    results.update(unused_parameters(rank))
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **results)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
