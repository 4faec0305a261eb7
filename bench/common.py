"""Shared benchmark plumbing: argument parsing, thread pinning, timing, peak RSS, one JSON line out."""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time


def parse(description: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--impl", choices=["framework", "framework-compiled", "numpy", "torch"], required=True)
    p.add_argument("--threads", type=int, default=None, help="BLAS/torch threads (default: library default)")
    p.add_argument("--quick", action="store_true", help="few steps: a correctness smoke run, not a timing")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cuda: framework on CuPy against torch on CUDA (each timed step ends in .item(), a sync)")
    args = p.parse_args()
    if args.threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
        try:
            from threadpoolctl import threadpool_limits

            threadpool_limits(args.threads)
        except ImportError:
            pass
    if args.impl == "torch":
        try:
            import torch
        except ImportError:
            skip("torch", "torch is not installed")
        if args.threads:
            torch.set_num_threads(args.threads)
        if args.device == "cuda" and not torch.cuda.is_available():
            skip("torch", "torch has no CUDA device")
    if args.device == "cuda" and args.impl == "numpy":
        skip("numpy", "numpy has no GPU")
    if args.device == "cuda" and args.impl == "framework" and not gpu_available():
        skip("framework", "no CUDA device (framework needs cupy and an NVIDIA GPU)")
    return args


def skip(impl: str, why: str) -> None:
    """The one JSON line of a contender that cannot run here, then exit (bench.compare leaves it out)."""
    print(json.dumps({"impl": impl, "skipped": why}))
    sys.exit(0)


def gpu_available() -> bool:
    import framework  # imported late: the numpy contender never loads it

    return framework.cuda.is_available()


def library(impl: str):
    """(the module to import, whether the step is compiled): "framework-compiled" is framework + framework.compile."""
    compiled = impl == "framework-compiled"
    return __import__("framework" if compiled else impl), compiled


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def rss_mb() -> float:
    """Current resident memory (Linux /proc), in MB."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:
        return float("nan")


class OptimizerTimer:
    """Times the optimizers' ``step()`` calls inside a training step: ``optimizer_us_per_param`` is the median,
    over training steps, of the time spent in step() divided by the number of parameter tensors stepped."""

    def __init__(self) -> None:
        self.n_params = 0
        self.current = 0.0
        self.per_step: list[float] = []

    def wrap(self, step_fn, n_params: int):
        """``step_fn`` (an optimizer's step), timed; it updates ``n_params`` tensors."""
        self.n_params += n_params

        def timed():
            t = time.perf_counter()
            out = step_fn()
            self.current += time.perf_counter() - t
            return out
        return timed

    def end_step(self, keep: bool) -> None:
        if keep:
            self.per_step.append(self.current)
        self.current = 0.0

    def us_per_param(self) -> float:
        return round(statistics.median(self.per_step) * 1e6 / self.n_params, 3)


def time_steps(step, warmup: int, steps: int, timer: OptimizerTimer | None = None) -> tuple[float, list[float]]:
    """Median seconds per call of ``step()`` (which returns the loss) and the loss trace."""
    trace = []
    for _ in range(warmup):
        trace.append(float(step()))
        if timer is not None:
            timer.end_step(keep=False)
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        trace.append(float(step()))
        times.append(time.perf_counter() - t)
        if timer is not None:
            timer.end_step(keep=True)
    return statistics.median(times), trace


def report(workload: str, impl: str, median_s: float, trace: list[float], **extra) -> None:
    out = {"workload": workload, "impl": impl, "median_s": median_s, "peak_rss_mb": round(peak_rss_mb(), 1),
           "loss_trace": [round(x, 6) for x in trace[:8]], **extra}
    print(json.dumps(out))
