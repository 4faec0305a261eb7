"""A chain of 200 elementwise ops (add / mul / tanh) on 16-element tensors, forward + backward: us per op."""
from __future__ import annotations

import numpy as np

from .common import library, parse, report, time_steps

N_OPS = 200


def _consts():
    rng = np.random.default_rng(0)
    return rng.standard_normal(16).astype(np.float32), rng.uniform(0.9, 1.1, N_OPS).astype(np.float32)


def make_step(impl: str):
    x0, cs = _consts()
    if impl == "numpy":
        def step():
            h, saved = x0.copy(), []
            for i in range(N_OPS):
                k = i % 3
                if k == 0:
                    h = h + cs[i]
                elif k == 1:
                    saved.append(h)
                    h = h * cs[i]
                else:
                    h = np.tanh(h)
                    saved.append(h)
            loss = h.sum()
            g = np.ones_like(h)
            for i in reversed(range(N_OPS)):
                k = i % 3
                if k == 1:
                    saved.pop()
                    g = g * cs[i]
                elif k == 2:
                    t = saved.pop()
                    g = g * (1 - t * t)
            return loss
        return step
    m, compiled = library(impl)
    x = m.tensor(x0, requires_grad=True)
    consts = [float(c) for c in cs]

    def body():
        x.grad = None
        h = x
        for i in range(N_OPS):
            k = i % 3
            h = h + consts[i] if k == 0 else (h * consts[i] if k == 1 else h.tanh())
        loss = h.sum()
        loss.backward()
        return loss.detach()
    body = m.compile(body) if compiled else body

    def step():
        return body().item()  # read outside the (compiled) step
    return step


def main() -> None:
    args = parse(__doc__)
    step = make_step(args.impl)
    warmup, steps = (3, 3) if args.quick else (20, 200)
    extra = {}
    if args.impl == "framework":
        # the cost of the error-message bookkeeping (user source lines): the same chain with it off, interleaved
        from framework.autograd.callsite import set_source_tracking

        on, off = [], []
        for _ in range(1 if args.quick else 5):
            set_source_tracking(False)
            off.append(time_steps(step, warmup, steps // 5 or 1)[0])
            set_source_tracking(True)
            on.append(time_steps(step, warmup, steps // 5 or 1)[0])
        extra["sites_overhead_pct"] = round((sorted(on)[len(on) // 2] / sorted(off)[len(off) // 2] - 1) * 100, 1)
    median, trace = time_steps(step, warmup, steps)
    report("small_ops", args.impl, median, trace, us_per_op=round(median / N_OPS * 1e6, 3), **extra)


if __name__ == "__main__":
    main()
