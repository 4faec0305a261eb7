"""The whole GAN demo, timed: ``python -m train gan`` (3,000 steps) against the same recipe written in PyTorch.

    python -m bench.gan_demo [--rounds 3] [--steps 3000] [--threads 1]

Each round runs both in fresh processes, interleaved (framework, torch, framework, torch, ...).  Reported: the
training loop's seconds (evaluations every steps/6 and checkpoints every 500 steps included on both sides) and the
whole process's wall time, medians over the rounds.  ``--impl torch`` runs only the PyTorch recipe (one JSON line).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_recipe(steps: int, seed: int, out: str) -> dict:
    """The demo's recipe (fast-g) in PyTorch: ring std 0.05, G 2 -> 4 x (Linear 128, BatchNorm1d, ReLU) -> 2,
    D 2-128-128-1 LeakyReLU(0.2), BCE with logits, Adam betas 0.5/0.999 with lr 3e-3 for G and 1e-3 for D, both
    x0.1 for the last quarter, batch 256, D on fake.detach(), G on a fresh D(fake), evaluated in eval mode."""
    import torch  # the comparison's contender, never a runtime dependency
    import torch.nn.functional as F
    from torch import nn

    from train import datasets
    from train.gan_techniques import late_decay
    from train.metrics import mode_metrics

    torch.manual_seed(seed)
    ring = datasets.ring()
    rng = np.random.default_rng(seed)
    G = nn.Sequential(*[m for i in range(4) for m in (nn.Linear(2 if i == 0 else 128, 128), nn.BatchNorm1d(128),
                                                      nn.ReLU())], nn.Linear(128, 2))
    D = nn.Sequential(nn.Linear(2, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2),
                      nn.Linear(128, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=3e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    sched = [torch.optim.lr_scheduler.LambdaLR(o, late_decay(steps)) for o in (opt_g, opt_d)]
    ones, zeros = torch.ones(256, 1), torch.zeros(256, 1)
    t0 = time.time()
    for step in range(1, steps + 1):
        real = torch.from_numpy(ring.sample(256, rng))
        fake = G(torch.randn(256, 2))
        loss_d = F.binary_cross_entropy_with_logits(D(real), ones) + \
            F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = F.binary_cross_entropy_with_logits(D(fake), ones)
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        for s in sched:
            s.step()
        if step % max(steps // 6, 1) == 0 or step == steps:
            G.eval()
            with torch.no_grad():
                metrics = mode_metrics(G(torch.randn(2500, 2)).numpy(), ring.centers, ring.std)
            G.train()
        if step % 500 == 0:
            torch.save({"G": G.state_dict(), "D": D.state_dict(), "opt_g": opt_g.state_dict(),
                        "opt_d": opt_d.state_dict()}, os.path.join(out, "ckpt.pt"))
    return {"seconds": time.time() - t0, **metrics}


def _run(cmd: list[str], threads: int) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    t0 = time.time()
    done = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return time.time() - t0, done.stdout


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported (default 3)")
    p.add_argument("--steps", type=int, default=3000, help="training steps (default 3000, the demo's)")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads for both (default 1)")
    p.add_argument("--impl", choices=["both", "torch"], default="both", help="internal: one contender (default both)")
    args = p.parse_args(argv)
    if args.impl == "torch":
        import torch  # the contender

        torch.set_num_threads(args.threads)
        with tempfile.TemporaryDirectory() as out:
            print(json.dumps(torch_recipe(args.steps, 0, out)))
        return 0
    rows = {"framework": [], "torch": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as out:
            wall, _ = _run([sys.executable, "-m", "train", "gan", "--steps", str(args.steps), "--no-progress",
                            "--out", out], args.threads)
            with open(os.path.join(out, "metrics.json")) as f:
                m = json.load(f)
        rows["framework"].append((m["seconds"], wall, m["modes_covered"], m["high_quality_fraction"]))
        wall, stdout = _run([sys.executable, "-m", "bench.gan_demo", "--impl", "torch", "--steps", str(args.steps),
                             "--threads", str(args.threads)], args.threads)
        m = json.loads(stdout.strip().splitlines()[-1])
        rows["torch"].append((m["seconds"], wall, m["modes_covered"], m["high_quality_fraction"]))
    print(f"| {args.steps} steps, {args.threads} thread(s), {args.rounds} rounds | training loop s (median) | "
          "process wall s (median) | each round's loop s |")
    print("|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {statistics.median(x[0] for x in r):.1f} | {statistics.median(x[1] for x in r):.1f} | "
              + ", ".join(f"{x[0]:.1f}" for x in r) + " |")
    ratio = statistics.median(x[0] for x in rows["framework"]) / statistics.median(x[0] for x in rows["torch"])
    print(f"framework / torch (training loop): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
