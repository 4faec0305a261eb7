"""Data-parallel training steps over MPI: ``mpiexec -n 1`` against ``-n 2``, one thread per rank.

``python -m bench.distributed`` launches both runs itself (``--worker`` is what each rank runs) and
prints, per workload (MLP 784-512-512-10 with per-rank batch 128; SmallCNN on 28x28 with per-rank
batch 32; Adam): global samples/s for 1 and 2 ranks, the speed-up, and how much of the all-reduce
time is hidden behind backward.  Hidden share, two ways, on 2 ranks:
  * steps: t_after = backward then blocking all-reduce of the same buckets, t_ddp = DDP (bucketed,
    overlapped), t_local = backward without communication: (t_after - t_ddp) / (t_after - t_local);
  * waits: 1 - (time DDP spends waiting at the end of backward) / (time of the blocking all-reduces);
  * bytes: the share of all-reduced bytes whose all-reduce had already completed when backward ended
    (its wait cost nothing): the least noisy of the three on a shared machine;
all with the reducer's progress thread and without it (then MPI advances only when DDP calls it).
``hideable_bound``: the share of bytes outside the last bucket; the last bucket (the first layers,
whose gradients backward produces last) can only start when backward is over.
``speedup_by_cpu_time`` = 2 x (CPU s per step, 1 rank) / (CPU s per step, 2 ranks): the speed-up two
free cores would give, which stays meaningful when other work shares the machine.
Timings on a shared machine are noisy; the step kinds are interleaved so load hits all alike.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

WORKLOADS = {"mlp": 128, "cnn": 32}  # per-rank batch


def _one_thread() -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        from threadpoolctl import threadpool_limits  # optional: the [bench] extra

        threadpool_limits(1)
    except ImportError:
        pass


def build(workload: str):
    import framework
    from framework import nn
    from models import SmallCNN

    framework.manual_seed(0)
    rng = np.random.default_rng(1)
    batch = WORKLOADS[workload]
    if workload == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        x = rng.standard_normal((4, batch, 784)).astype(np.float32)
        cap_mb = 25.0  # torch's default: a 1 MB first bucket, then the rest -> 2 buckets here
    else:
        model = SmallCNN(10, 28)
        x = rng.standard_normal((4, batch, 1, 28, 28)).astype(np.float32)
        cap_mb = 0.1  # 0.4 MB of parameters: the head in one bucket, the convolutions in another
    y = rng.integers(0, 10, (4, batch))
    data = [(framework.from_numpy(a), framework.from_numpy(b)) for a, b in zip(x, y)]
    return model, data, cap_mb


def worker(workload: str, steps: int) -> dict:
    import framework.distributed as dist
    from framework import nn, optim
    from framework.nn.parallel import DistributedDataParallel
    from framework.nn.parallel.reducer import FIRST_BUCKET_BYTES
    from mpi4py import MPI  # optional dependency: only this benchmark talks to MPI directly

    dist.init_process_group("mpi")
    world = dist.get_world_size()
    model, data, cap_mb = build(workload)
    ddp = DistributedDataParallel(model, bucket_cap_mb=cap_mb)
    opt = optim.Adam(ddp.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    reducer = ddp.reducer
    comm = MPI.COMM_WORLD
    times: dict = {"ddp": [], "ddp_no_thread": [], "after": [], "local": []}
    cpu: list = []  # process CPU seconds of the DDP steps: what the step costs when it has a core to itself
    comm_s = {"blocking": 0.0, "waited": 0.0, "waited_no_thread": 0.0}
    done: dict = {}  # kind -> [bytes all-reduced, of them finished behind backward]
    with_thread = reducer.progress_thread

    def step(kind: str, i: int) -> None:
        x, y = data[i % len(data)]
        opt.zero_grad()
        if kind.startswith("ddp"):
            before = reducer.comm_seconds
            reducer.progress_thread = with_thread and kind == "ddp"
            b0, h0 = reducer.bytes_reduced, reducer.bytes_hidden
            loss_fn(ddp(x), y).backward()
            if kind in done:
                done[kind][0] += reducer.bytes_reduced - b0
                done[kind][1] += reducer.bytes_hidden - h0
            comm_s["waited" if kind == "ddp" else "waited_no_thread"] += reducer.comm_seconds - before
        else:
            with ddp.no_sync():
                loss_fn(ddp(x), y).backward()
            if kind == "after":  # the same buckets, reduced only once backward is over
                t = time.perf_counter()
                for bucket in reducer.buckets:
                    bucket.pack()
                    comm.Allreduce(MPI.IN_PLACE, bucket.buffer, op=MPI.SUM)
                    bucket.unpack(1.0 / world, None)
                comm_s["blocking"] += time.perf_counter() - t
        opt.step()

    kinds = ["ddp", "ddp_no_thread", "after", "local"] if world > 1 else ["ddp"]
    for i in range(3):  # warm-up
        for kind in kinds:
            step(kind, i)
    comm_s.update(blocking=0.0, waited=0.0, waited_no_thread=0.0)
    done.update(ddp=[0, 0], ddp_no_thread=[0, 0])
    for i in range(steps):
        for kind in kinds:  # interleaved, so machine load affects all kinds alike
            comm.Barrier()
            t, c = time.perf_counter(), time.process_time()
            step(kind, i)
            times[kind].append(time.perf_counter() - t)
            if kind == "ddp":
                cpu.append(time.process_time() - c)
    batch = WORKLOADS[workload]
    med = {k: statistics.median(v) for k, v in times.items() if v}
    nbytes = [b.buffer.nbytes for b in reducer.buckets]
    out = {"workload": workload, "ranks": world, "per_rank_batch": batch, "buckets": len(reducer.buckets),
           "bucket_mb": [round(n / 2**20, 3) for n in nbytes], "first_bucket_mb": FIRST_BUCKET_BYTES / 2**20,
           # the last bucket holds the first layers, whose gradients come last: it cannot overlap backward
           "hideable_bound": round(1 - nbytes[-1] / sum(nbytes), 3), "step_s": round(med["ddp"], 5),
           "samples_per_s": round(world * batch / med["ddp"], 1), "cpu_step_s": round(statistics.median(cpu), 5)}
    if world > 1:
        comm_cost = med["after"] - med["local"]
        out.update(step_after_s=round(med["after"], 5), step_local_s=round(med["local"], 5),
                   allreduce_ms=round(1e3 * comm_s["blocking"] / steps, 3),
                   waited_ms=round(1e3 * comm_s["waited"] / steps, 3),
                   hidden_by_steps=round((med["after"] - med["ddp"]) / comm_cost, 3) if comm_cost > 0 else None,
                   hidden_by_waits=round(1 - comm_s["waited"] / comm_s["blocking"], 3),
                   bytes_done_behind_backward=round(done["ddp"][1] / max(done["ddp"][0], 1), 3),
                   bytes_done_behind_backward_no_thread=round(done["ddp_no_thread"][1] /
                                                              max(done["ddp_no_thread"][0], 1), 3),
                   progress_thread=with_thread, step_no_thread_s=round(med["ddp_no_thread"], 5),
                   hidden_no_thread_by_steps=round((med["after"] - med["ddp_no_thread"]) / comm_cost, 3)
                   if comm_cost > 0 else None,
                   hidden_no_thread_by_waits=round(1 - comm_s["waited_no_thread"] / comm_s["blocking"], 3))
    return out


def find_mpiexec() -> str | None:
    """The mpiexec of the MPI that mpi4py was installed with (beside this Python: pip's mpich), else PATH's."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.access(beside, os.X_OK) else shutil.which("mpiexec")


def launch(ranks: int, workload: str, steps: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    mpiexec = find_mpiexec()
    if mpiexec is None:
        raise SystemExit("bench.distributed needs mpiexec and mpi4py: pip install -e '.[distributed]'")
    cmd = [mpiexec, "-n", str(ranks), sys.executable, "-m", "bench.distributed", "--worker", workload,
           "--steps", str(steps)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, default=None, help="timed steps per kind (default 30; 3 with --quick)")
    p.add_argument("--quick", action="store_true", help="a smoke run, not a timing")
    p.add_argument("--only", choices=sorted(WORKLOADS), default=None)
    args = p.parse_args()
    steps = args.steps or (3 if args.quick else 30)
    _one_thread()
    if args.worker:
        result = worker(args.worker, steps)
        import framework.distributed as dist

        if dist.get_rank() == 0:
            print(json.dumps(result))
        return
    for workload in [args.only] if args.only else sorted(WORKLOADS, reverse=True):
        one, two = launch(1, workload, steps), launch(2, workload, steps)
        two["speedup_vs_1_rank"] = round(two["samples_per_s"] / one["samples_per_s"], 3)
        # what 2 ranks would give with a free core each: the step's CPU cost, 1 rank against 2
        two["speedup_by_cpu_time"] = round(2 * one["cpu_step_s"] / two["cpu_step_s"], 3)
        print(json.dumps({"one_rank": one, "two_ranks": two}))
        print(f"# {workload}: 1 rank {one['samples_per_s']:.0f} samples/s, 2 ranks {two['samples_per_s']:.0f} "
              f"samples/s (x{two['speedup_vs_1_rank']:.2f}; by CPU time x{two['speedup_by_cpu_time']:.2f}); "
              f"{two['buckets']} buckets (at most {_pct(two['hideable_bound'])} hideable), all-reduce "
              f"{two['allreduce_ms']:.2f} ms/step, hidden behind backward: {_pct(two['hidden_by_waits'])} (waits), "
              f"{_pct(two['hidden_by_steps'])} (steps), {_pct(two['bytes_done_behind_backward'])} of bytes done "
              f"when backward ended; without the progress thread {_pct(two['hidden_no_thread_by_waits'])} (waits), "
              f"{_pct(two['hidden_no_thread_by_steps'])} (steps), "
              f"{_pct(two['bytes_done_behind_backward_no_thread'])} of bytes",
              file=sys.stderr)


def _pct(x) -> str:
    return "n/a" if x is None else f"{x:.0%}"


if __name__ == "__main__":
    main()
