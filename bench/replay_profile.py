"""Where a compiled step's array time goes: each call of the GAN's (MLP's, cnn's...) recorded step timed on its own.

The replay issues the same array calls as the eager step, so its total is the array-work floor of that step: what
is left of the eager time above it is Python bookkeeping.  Prints the total, the time per array function, and the
slowest calls with their operand shapes ("F": a column-major operand).  ``python -m bench.replay_profile [--model
mlp] [--repeats 400]`` (pin threads with OMP_NUM_THREADS=1 for the 1-thread figures).
"""
from __future__ import annotations

import argparse
import collections
import time

import numpy as np

from . import gan, mlp
from .models import MAKERS


def _layout(a) -> str:
    if a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous:
        return "F"
    return "C" if a.flags.c_contiguous else "strided"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", choices=["gan", "mlp", "cnn", "lstm_lm", "transformer"], default="gan")
    p.add_argument("--repeats", type=int, default=400)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args()
    if args.model in MAKERS:  # the real-model rows (bench/models.py)
        step = MAKERS[args.model]("framework-compiled", False)
    else:
        step = gan.make_step("framework-compiled") if args.model == "gan" else mlp.make_step("framework-compiled", False)
    for _ in range(5):  # capture, then a few replays
        step()
    from framework.compile._compiled import CompiledFunction
    body = next(c.cell_contents for c in step.__closure__ if isinstance(c.cell_contents, CompiledFunction))
    calls = max((r for r in body.cache.values() if hasattr(r, "calls")), key=lambda r: len(r.calls)).calls
    spent = [0.0] * len(calls)
    clock = time.perf_counter
    for _ in range(args.repeats):
        for i, (fn, fargs, kwargs) in enumerate(calls):
            t = clock()
            fn(*fargs, **kwargs)
            spent[i] += clock() - t
    us = [s / args.repeats * 1e6 for s in spent]
    print(f"{args.model}: {len(calls)} array calls, {sum(us):.0f} us per replayed step (timed one call at a time)")
    by_fn: dict = collections.defaultdict(float)
    for (fn, _, _), t in zip(calls, us):
        by_fn[getattr(fn, "__name__", repr(fn))] += t
    for name, t in sorted(by_fn.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {t:8.1f} us  {name}")
    print("slowest calls:")
    for i in sorted(range(len(calls)), key=lambda k: -us[k])[:args.top]:
        fn, fargs, _ = calls[i]
        shapes = ", ".join(f"{a.shape}{_layout(a)}" for a in fargs if isinstance(a, np.ndarray))
        print(f"  {us[i]:8.1f} us  {getattr(fn, '__name__', fn)}({shapes})")


if __name__ == "__main__":
    main()
