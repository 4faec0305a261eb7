"""Shared benchmark plumbing: argument parsing, thread pinning, timing, peak RSS, a step's peak live bytes, one JSON
line out."""
from __future__ import annotations

import argparse
import gc
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


def _tracemalloc_peak(step) -> int:
    """Peak bytes traced during one ``step()`` above the bytes live before it (NumPy reports its data buffers to
    tracemalloc, so this is arrays plus Python objects: graph nodes, Tensor wrappers)."""
    import tracemalloc

    gc.collect()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    step()
    return tracemalloc.get_traced_memory()[1] - before


def _torch_memory_events(fn) -> list[int]:
    """The signed byte counts (+ allocation, - free) of torch's CPU allocator while ``fn()`` runs, in time order
    (torch.profiler with profile_memory=True records each one)."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    cpu = (DeviceType.CPU, DeviceType.MKLDNN, DeviceType.IDEEP)
    return [n for _, n in sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                                 if e.name() == "[memory]" and e.device_type() in cpu)]


def _torch_profiler_peak(step) -> int:
    """Peak bytes of CPU tensor storage during one ``step()`` above the bytes live before it: the running total of
    the allocator's events and its maximum."""
    total = peak = 0
    for nbytes in _torch_memory_events(step):
        total += nbytes
        peak = max(peak, total)
    return peak


def memory_pass(make_step, impl: str, warmup: int = 2, steps: int = 3) -> dict:
    """A step's memory, in MB, on a fresh ``make_step()`` (a separate pass after the timed steps: tracing slows a
    step). ``step_peak_mb``: the largest, over ``steps`` calls, of the peak of live bytes allocated during one
    steady-state ``step()`` above the bytes live before it (activations, gradients, temporaries). ``held_mb``: the
    bytes still live after building the step and ``warmup`` steps (parameters, optimizer state, data, and whatever a
    compiled step keeps between calls). tracemalloc counts framework's (NumPy reports its data buffers to it);
    torch.profiler's memory events count torch's. Both count the arrays' data; tracemalloc also counts framework's
    Python objects (its autograd graph), which torch keeps in C++ where its profiler does not see them, so
    framework's figures are the higher-or-equal side of a fair count."""
    import tracemalloc

    import numpy as np

    mb = 2 ** 20
    if impl == "torch":
        _torch_memory_events(lambda: None)  # the profiler's first start is slow: not part of the count
        box = []
        tracemalloc.start()  # the data: torch.from_numpy shares NumPy's buffers, which torch's allocator never saw
        try:
            held = sum(_torch_memory_events(lambda: box.append(_warm(make_step(), warmup))))
            gc.collect()
            held += sum(t.size for t in tracemalloc.take_snapshot().traces if t.domain == np.lib.tracemalloc_domain)
        finally:
            tracemalloc.stop()
        step = box[0]
        return {"step_peak_mb": round(max(_torch_profiler_peak(step) for _ in range(steps)) / mb, 2),
                "held_mb": round(held / mb, 2)}
    gc.collect()
    tracemalloc.start()
    try:
        step = _warm(make_step(), warmup)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        return {"step_peak_mb": round(max(_tracemalloc_peak(step) for _ in range(steps)) / mb, 2),
                "held_mb": round(held / mb, 2)}
    finally:
        tracemalloc.stop()


def _warm(step, n: int):
    for _ in range(n):
        step()
    return step


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
