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
    p.add_argument("--impl", choices=["framework", "numpy", "torch"], required=True)
    p.add_argument("--threads", type=int, default=None, help="BLAS/torch threads (default: library default)")
    p.add_argument("--quick", action="store_true", help="few steps: a correctness smoke run, not a timing")
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
            print(json.dumps({"impl": "torch", "skipped": "torch is not installed"}))
            sys.exit(0)
        if args.threads:
            torch.set_num_threads(args.threads)
    return args


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def rss_mb() -> float:
    """Current resident memory (Linux /proc), in MB."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:
        return float("nan")


def time_steps(step, warmup: int, steps: int) -> tuple[float, list[float]]:
    """Median seconds per call of ``step()`` (which returns the loss) and the loss trace."""
    trace = []
    for _ in range(warmup):
        trace.append(float(step()))
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        trace.append(float(step()))
        times.append(time.perf_counter() - t)
    return statistics.median(times), trace


def report(workload: str, impl: str, median_s: float, trace: list[float], **extra) -> None:
    out = {"workload": workload, "impl": impl, "median_s": median_s, "peak_rss_mb": round(peak_rss_mb(), 1),
           "loss_trace": [round(x, 6) for x in trace[:8]], **extra}
    print(json.dumps(out))
