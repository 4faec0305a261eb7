"""``--distributed``: the trainers under ``mpiexec -n N``, one rank per process.

Every rank builds the same model from the same seed and keeps the same random state, and takes its
own slice of each global batch (``DistributedSampler`` for classify, a slice of the sampled batch for
the GAN), so N ranks x batch B train like one process with batch N x B.  Only rank 0 prints, plots
and writes metrics and checkpoints; ``--resume`` loads the checkpoint on rank 0 and broadcasts it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import framework
import framework.distributed as dist
from framework.nn.parallel import DistributedDataParallel


def setup(parser: argparse.ArgumentParser, args) -> None:
    """Join the process group and agree on one output directory; sets args.rank and args.world_size."""
    args.rank, args.world_size = 0, 1
    if not getattr(args, "distributed", False):
        return
    if not dist.is_available():
        parser.error("--distributed needs mpi4py: pip install 'framework[distributed]'")
    if getattr(args, "mode", None) == "retain_graph":
        parser.error("--distributed supports --mode detach only (retain_graph's backward(inputs=...) does not "
                     "accumulate through the hooks that average gradients)")
    dist.init_process_group("mpi")
    args.rank, args.world_size = dist.get_rank(), dist.get_world_size()
    # one directory for the run: rank 0's timestamp, not one per rank
    box = [args.out or os.path.join("runs", time.strftime("%Y%m%d-%H%M%S"))]
    dist.broadcast_object_list(box, src=0)
    args.out = box[0]
    if args.rank != 0:
        args.no_progress = True


def wrap(module, args):
    """``module`` in DistributedDataParallel under --distributed, else itself."""
    return DistributedDataParallel(module) if args.distributed else module


def average_logs(trainer) -> None:
    """Make each step's logged numbers the mean over ranks (one small all-reduce per step), so what rank 0
    prints and writes describes the global batch, and every rank sees the same loss in its NaN check."""
    step = trainer.train_step

    def averaged(batch) -> dict:
        logs = step(batch)
        keys = sorted(logs)
        values = framework.tensor([float(logs[k]) for k in keys], dtype=framework.float64)
        dist.all_reduce(values, op=dist.ReduceOp.AVG)
        return dict(zip(keys, values.tolist()))

    trainer.train_step = averaged


def resume(trainer, args) -> None:
    """Rank 0 picks its newest readable checkpoint; every rank loads that same file (a shared directory)."""
    box = [trainer.checkpoints.loaded_path if args.rank == 0 and trainer.resume() else None]
    dist.broadcast_object_list(box, src=0)
    if args.rank != 0 and box[0] is not None:
        trainer.load_state_dict(framework.load(box[0]))


def fail(message: str, code: int) -> int:
    """Under --distributed a failing rank must end all of them (the others may wait in a collective)."""
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.abort(message, code)  # prints the message with the rank, then ends every rank
    print(message, file=sys.stderr)
    return code
