"""The GAN demo's training loop (`python -m train gan`'s recipe: ring data, G 2->128->128->2 ReLU, D 2->128->128->1
LeakyReLU 0.2, two Adams (betas 0.5, 0.999) with cosine schedules, batch 256, D on fake.detach() then G on a
fresh D(fake), both losses read every step): total seconds for --steps steps (3000 by default).

    python -m bench.gan_loop --impl framework|framework-compiled|torch [--steps 3000] [--threads 1]
"""
from __future__ import annotations

import sys
import time

import numpy as np

from .common import parse, report

STEPS, BATCH, HIDDEN = 3000, 256, 128
CENTERS = np.stack([2 * np.cos(2 * np.pi * np.arange(8) / 8), 2 * np.sin(2 * np.pi * np.arange(8) / 8)], 1)


def sample_real(rng, n: int) -> np.ndarray:
    return (CENTERS[rng.integers(0, 8, n)] + rng.standard_normal((n, 2)) * 0.05).astype(np.float32)


def run(impl: str, steps: int) -> tuple[float, float, list[float]]:
    """(wall seconds, CPU seconds of this process, loss trace) for ``steps`` steps."""
    compiled = impl == "framework-compiled"
    m = __import__("framework" if compiled else impl)
    F = m.nn.functional
    m.manual_seed(0)

    def mlp(act):
        return m.nn.Sequential(m.nn.Linear(2, HIDDEN), act(), m.nn.Linear(HIDDEN, HIDDEN), act(),
                               m.nn.Linear(HIDDEN, 2 if act is m.nn.ReLU else 1))
    G, D = mlp(m.nn.ReLU), mlp(lambda: m.nn.LeakyReLU(0.2))
    opt_g = m.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = m.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    scheds = [m.optim.lr_scheduler.CosineAnnealingLR(o, steps) for o in (opt_g, opt_d)]
    ones, zeros = m.ones(BATCH, 1), m.zeros(BATCH, 1)

    def step(real):
        fake = G(m.randn(BATCH, 2))
        loss_d = F.binary_cross_entropy_with_logits(D(real), ones) + \
            F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = F.binary_cross_entropy_with_logits(D(fake), ones)
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        return loss_d.detach(), loss_g.detach()
    step = m.compile(step) if compiled else step
    rng = np.random.default_rng(0)
    trace = []
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        loss_d, loss_g = step(m.from_numpy(sample_real(rng, BATCH)))
        trace.append(loss_d.item() + loss_g.item())  # the trainer logs both losses every step
        for s in scheds:
            s.step()
    return time.perf_counter() - t0, time.process_time() - c0, trace


def main() -> None:
    steps = STEPS
    if "--steps" in sys.argv:  # parse() knows the common flags only
        i = sys.argv.index("--steps")
        steps = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    args = parse(__doc__)
    total, cpu, trace = run(args.impl, 30 if args.quick else steps)
    # on a shared machine the CPU seconds are the steadier figure (the wall time counts other jobs' time slices)
    report("gan_demo", args.impl, total, trace, steps=30 if args.quick else steps, cpu_s=round(cpu, 3))


if __name__ == "__main__":
    main()
