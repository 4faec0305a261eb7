"""framework.compile on the GAN demo's training step: eager vs compiled time, capture cost, and the recording.

    python examples/compile_training_step.py [--steps 200] [--quick]

The step (G 2->128->128->2, D 2->128->128->1, two Adams, batch 256, D on fake.detach() then G on a fresh D(fake))
is built twice from the same seed; the compiled copy is checked to end bit-for-bit equal to the eager one.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import framework
import framework.nn.functional as F
from framework import nn, optim


def build(seed: int, hidden: int = 128, batch: int = 256):
    """The GAN step as a function of (real, z), and the modules it trains."""
    framework.manual_seed(seed)
    G = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))
    D = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, hidden), nn.LeakyReLU(0.2),
                      nn.Linear(hidden, 1))
    opt_g = optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    ones, zeros = framework.ones(batch, 1), framework.zeros(batch, 1)

    def step(real, z):
        fake = G(z)
        loss_d = F.binary_cross_entropy_with_logits(D(real), ones) + \
            F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = F.binary_cross_entropy_with_logits(D(fake), ones)  # a fresh D(fake), after D's step
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        return loss_d.detach(), loss_g.detach()  # tensors: read them outside the step
    return step, (G, D)


def batches(n: int, batch: int = 256):
    rng = np.random.default_rng(0)
    angles = 2 * np.pi * rng.integers(0, 8, (n, batch)) / 8
    real = np.stack([2 * np.cos(angles), 2 * np.sin(angles)], -1) + rng.standard_normal((n, batch, 2)) * 0.05
    z = rng.standard_normal((n, batch, 2))
    return [(framework.from_numpy(r.astype(np.float32)), framework.from_numpy(q.astype(np.float32)))
            for r, q in zip(real, z)]


def timed(fn, data, steps: int) -> tuple[list[float], list[float]]:
    """Seconds per call and the losses (read on the host after each call, outside the step)."""
    times, losses = [], []
    for i in range(steps):
        t = time.perf_counter()
        loss_d, loss_g = fn(*data[i % len(data)])
        times.append(time.perf_counter() - t)
        losses.append((loss_d.item(), loss_g.item()))
    return times, losses


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--quick", action="store_true", help="20 steps")
    args = p.parse_args(argv)
    steps = 20 if args.quick else args.steps
    data = batches(16)

    eager_step, eager_mods = build(0)
    t_eager, l_eager = timed(eager_step, data, steps)
    compiled_step, comp_mods = build(0)
    compiled = framework.compile(compiled_step)
    t_comp, l_comp = timed(compiled, data, steps)

    same = l_eager == l_comp and all(np.array_equal(a.detach().numpy(), b.detach().numpy())
                                     for m1, m2 in zip(eager_mods, comp_mods)
                                     for a, b in zip(m1.parameters(), m2.parameters()))
    eager_ms = statistics.median(t_eager[2:]) * 1e3
    replay_ms = statistics.median(t_comp[compiled.captures:]) * 1e3
    print(f"GAN step, {steps} steps (a shared machine: times are noisy)")
    print(f"  eager     {eager_ms:8.3f} ms/step (median)")
    print(f"  compiled  {replay_ms:8.3f} ms/step (median of the replays)  {eager_ms / replay_ms:4.2f}x faster")
    ratios = ", ".join(f"{c * 1e3:.1f} ms vs eager {e * 1e3:.1f} ms ({c / e:.2f}x)"
                       for c, e in zip(t_comp[:compiled.captures], t_eager[:compiled.captures]))
    print(f"  captures  {compiled.captures} (the first steps record; the optimizers create, then flatten, their "
          f"state): {ratios}; vs a steady eager step {max(t_comp[:compiled.captures]) * 1e3 / eager_ms:.2f}x")
    print(f"  same losses and parameters as eager, bit for bit: {same}")
    print()
    framework.compile.explain(compiled, *data[0])  # the steady-state recording (runs one more step)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
