"""Interleaved timing of one workload's step on torch, framework eager and framework.compile (ms/step, ratios).

Used by the standalone workload scripts (bench.lstm_lm_step, bench.transformer_step): each round times every contender
for a few steps in turn, so a loaded machine slows all of them alike; the figures are medians over rounds.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time


def _set_threads(n: int | None) -> None:
    if not n:
        return
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(n)
    except ImportError:
        pass


def main(make_step, title: str) -> None:
    p = argparse.ArgumentParser(description=title)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=5, help="steps timed per contender per round")
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args()
    _set_threads(args.threads)
    import framework
    import torch

    torch.set_num_threads(args.threads)
    contenders = {"torch": make_step(torch), "framework": make_step(framework),
                  "framework.compile": make_step(framework, compiled=True)}
    for step in contenders.values():
        for _ in range(args.warmup):
            float(step().detach())
    times: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.rounds):
        for name, step in contenders.items():
            per = []
            for _ in range(args.steps):
                t = time.perf_counter()
                float(step().detach())
                per.append(time.perf_counter() - t)
            times[name].append(statistics.median(per))
    base = statistics.median(times["torch"])
    print(f"{title}, threads {args.threads}, median of {args.rounds} interleaved rounds x {args.steps} steps")
    for name, ts in times.items():
        ms = statistics.median(ts) * 1e3
        print(f"  {name:18s} {ms:8.2f} ms/step   {ms / (base * 1e3):5.2f} x torch")
