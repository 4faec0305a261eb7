"""The GAN demo's training step: G 2->128->128->2 (ReLU), D 2->128->128->1 (LeakyReLU 0.2), BCE with logits,
two Adams (betas 0.5, 0.999), batch 256; D on fake.detach(), then G on a fresh D(fake)."""
from __future__ import annotations

import numpy as np

from . import npnets
from .common import OptimizerTimer, library, parse, report, time_steps
from .data import linear_weights, load_into

LATENT, HIDDEN, BATCH = 2, 128, 256


def _data():
    rng = np.random.default_rng(2)
    n = 8
    angles = 2 * np.pi * rng.integers(0, 8, (n, BATCH)) / 8
    real = np.stack([2 * np.cos(angles), 2 * np.sin(angles)], -1) + rng.standard_normal((n, BATCH, 2)) * 0.05
    z = rng.standard_normal((n, BATCH, LATENT))
    return real.astype(np.float32), z.astype(np.float32)


def make_step(impl: str, timer: OptimizerTimer | None = None):
    gw = linear_weights([LATENT, HIDDEN, HIDDEN, 2], seed=10)
    dw = linear_weights([2, HIDDEN, HIDDEN, 1], seed=11)
    reals, zs = _data()
    ones, zeros = np.ones((BATCH, 1), np.float32), np.zeros((BATCH, 1), np.float32)
    state = {"i": 0}
    if impl == "numpy":
        G = npnets.Sequential([npnets.Linear(*gw[0]), npnets.ReLU(), npnets.Linear(*gw[1]), npnets.ReLU(),
                               npnets.Linear(*gw[2])])
        D = npnets.Sequential([npnets.Linear(*dw[0]), npnets.LeakyReLU(), npnets.Linear(*dw[1]), npnets.LeakyReLU(),
                               npnets.Linear(*dw[2])])
        oG, oD = npnets.Adam(G.params(), betas=(0.5, 0.999)), npnets.Adam(D.params(), betas=(0.5, 0.999))
        step_g, step_d = oG.step, oD.step
        if timer is not None:
            step_g, step_d = timer.wrap(oG.step, len(G.params())), timer.wrap(oD.step, len(D.params()))

        def step():
            i = state["i"] = (state["i"] + 1) % len(zs)
            fake = G.forward(zs[i])
            D.zero_grad()
            l_real, g_real = npnets.bce_with_logits(D.forward(reals[i]), ones)
            D.backward(g_real)
            l_fake, g_fake = npnets.bce_with_logits(D.forward(fake), zeros)
            D.backward(g_fake)
            step_d()
            G.zero_grad()
            l_g, g_g = npnets.bce_with_logits(D.forward(fake), ones)
            G.backward(D.backward(g_g))  # D's grads from this pass are discarded (zeroed next step)
            step_g()
            return l_real + l_fake + l_g
        return step
    m, compiled = library(impl)
    F = m.nn.functional

    def mlp(sizes, act):
        layers = []
        for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(m.nn.Linear(a, b))
            if k < len(sizes) - 2:
                layers.append(act())
        return m.nn.Sequential(*layers)

    G = mlp([LATENT, HIDDEN, HIDDEN, 2], m.nn.ReLU)
    D = mlp([2, HIDDEN, HIDDEN, 1], lambda: m.nn.LeakyReLU(0.2))
    load_into([G[0], G[2], G[4]], gw, m.from_numpy)
    load_into([D[0], D[2], D[4]], dw, m.from_numpy)
    oG = m.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    oD = m.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    step_g, step_d = oG.step, oD.step
    if timer is not None:
        step_g, step_d = timer.wrap(oG.step, len(list(G.parameters()))), timer.wrap(oD.step, len(list(D.parameters())))
    data = [(m.from_numpy(r), m.from_numpy(z)) for r, z in zip(reals, zs)]
    t_ones, t_zeros = m.from_numpy(ones), m.from_numpy(zeros)

    def body(real, z):
        fake = G(z)
        l_real = F.binary_cross_entropy_with_logits(D(real), t_ones)
        l_fake = F.binary_cross_entropy_with_logits(D(fake.detach()), t_zeros)
        oD.zero_grad()
        (l_real + l_fake).backward()
        step_d()
        l_g = F.binary_cross_entropy_with_logits(D(fake), t_ones)
        oG.zero_grad()
        l_g.backward()
        step_g()
        return l_real.detach(), l_fake.detach(), l_g.detach()
    body = m.compile(body) if compiled else body

    def step():
        i = state["i"] = (state["i"] + 1) % len(data)
        l_real, l_fake, l_g = body(*data[i])
        return l_real.item() + l_fake.item() + l_g.item()  # read outside the (compiled) step
    return step


def main() -> None:
    args = parse(__doc__)
    # a compiled step runs the optimizers' Python only at capture: step() time per parameter is not measurable
    timer = None if args.impl == "framework-compiled" else OptimizerTimer()
    median, trace = time_steps(make_step(args.impl, timer), 2 if args.quick else 10, 3 if args.quick else 100, timer)
    extra = {} if timer is None else {"optimizer_us_per_param": timer.us_per_param()}
    report("gan", args.impl, median, trace, **extra)


if __name__ == "__main__":
    main()
