"""100 x (Linear(1024, 1024) + ReLU), batch 64, forward + backward: time, peak memory, memory after the graph
is dropped, and growth over repeated steps (leaks)."""
from __future__ import annotations

import gc

import numpy as np

from . import npnets
from .common import library, parse, report, rss_mb, time_steps
from .data import linear_weights


def make_step(impl: str, depth: int, width: int):
    weights = linear_weights([width] * (depth + 1), seed=3)
    x0 = np.random.default_rng(4).standard_normal((64, width)).astype(np.float32)
    if impl == "numpy":
        layers = []
        for w, b in weights:
            layers += [npnets.Linear(w, b), npnets.ReLU()]
        net = npnets.Sequential(layers)

        def step():
            net.zero_grad()
            out = net.forward(x0)
            net.backward(np.ones_like(out))
            for layer in net.layers:  # drop the "graph" (saved activations)
                layer.__dict__.pop("x", None)
                layer.__dict__.pop("mask", None)
            return float(out.sum())
        return step
    m, compiled = library(impl)
    mods = []
    for w, b in weights:
        lin = m.nn.Linear(width, width)
        lin.weight.data = m.from_numpy(w.copy())
        lin.bias.data = m.from_numpy(b.copy())
        mods += [lin, m.nn.ReLU()]
    net = m.nn.Sequential(*mods)
    x = m.from_numpy(x0)

    def body():
        net.zero_grad()
        out = net(x)
        out.sum().backward()
        return out.detach().sum()
    body = m.compile(body) if compiled else body

    def step():
        return body().item()
    return step


def main() -> None:
    args = parse(__doc__)
    depth, width = (10, 256) if args.quick else (100, 1024)
    step = make_step(args.impl, depth, width)
    gc.collect()
    before = rss_mb()
    median, trace = time_steps(step, 1 if args.quick else 2, 2 if args.quick else 10)
    gc.collect()
    after = rss_mb()
    repeats = 3 if args.quick else 50
    for _ in range(repeats):
        step()
    gc.collect()
    after_repeats = rss_mb()
    report("deep_chain", args.impl, median, trace, rss_before_mb=round(before, 1), rss_after_mb=round(after, 1),
           rss_after_repeats_mb=round(after_repeats, 1), repeats=repeats)


if __name__ == "__main__":
    main()
