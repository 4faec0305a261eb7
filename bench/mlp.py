"""One training step of an MLP 784-512-512-10 (ReLU, cross-entropy, batch 128, Adam)."""
from __future__ import annotations

import numpy as np

from . import npnets
from .common import OptimizerTimer, library, parse, report, time_steps
from .data import linear_weights, load_into

SIZES = [784, 512, 512, 10]


def _data(quick: bool):
    rng = np.random.default_rng(1)
    n_batches = 4
    xs = rng.standard_normal((n_batches, 128, 784)).astype(np.float32)
    ys = rng.integers(0, 10, (n_batches, 128))
    return xs, ys


def make_step(impl: str, quick: bool, timer: OptimizerTimer | None = None):
    weights = linear_weights(SIZES)
    xs, ys = _data(quick)
    state = {"i": 0}
    if impl == "numpy":
        net = npnets.Sequential([npnets.Linear(*weights[0]), npnets.ReLU(), npnets.Linear(*weights[1]), npnets.ReLU(),
                                 npnets.Linear(*weights[2])])
        opt = npnets.Adam(net.params())
        opt_step = opt.step if timer is None else timer.wrap(opt.step, len(net.params()))

        def step():
            i = state["i"] = (state["i"] + 1) % len(xs)
            net.zero_grad()
            loss, g = npnets.cross_entropy(net.forward(xs[i]), ys[i])
            net.backward(g)
            opt_step()
            return loss
        return step
    m, compiled = library(impl)
    model = m.nn.Sequential(m.nn.Linear(784, 512), m.nn.ReLU(), m.nn.Linear(512, 512), m.nn.ReLU(), m.nn.Linear(512, 10))
    load_into([model[0], model[2], model[4]], weights, m.from_numpy)
    opt = m.optim.Adam(model.parameters(), lr=1e-3)
    opt_step = opt.step if timer is None else timer.wrap(opt.step, len(list(model.parameters())))
    loss_fn = m.nn.CrossEntropyLoss()
    data = [(m.from_numpy(x), m.from_numpy(y)) for x, y in zip(xs, ys)]

    def body(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt_step()
        return loss.detach()
    body = m.compile(body) if compiled else body

    def step():
        i = state["i"] = (state["i"] + 1) % len(data)
        return body(*data[i]).item()  # read outside the (compiled) step
    return step


def main() -> None:
    args = parse(__doc__)
    timer = None if args.impl == "framework-compiled" else OptimizerTimer()  # see bench/gan.py
    median, trace = time_steps(make_step(args.impl, args.quick, timer), 2 if args.quick else 5,
                               3 if args.quick else 50, timer)
    extra = {} if timer is None else {"optimizer_us_per_param": timer.us_per_param()}
    report("mlp", args.impl, median, trace, **extra)


if __name__ == "__main__":
    main()
