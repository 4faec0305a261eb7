"""Micro-benchmark: Adam ``step()`` on the GAN's 12 parameter tensors (G and D of bench/gan.py) against one Adam
update written by hand in NumPy on one flat buffer of the same total size (the floor a flat optimizer can reach).

    python -m bench.optim_step [--threads 1] [--steps 2000]

Prints one JSON line per contender (median us per step(), and per parameter tensor) and the ratios to the
hand-written flat update; the issue's target is framework foreach <= 3x.  Timings on a shared machine are noisy:
compare ratios from one run, not absolute figures from different runs.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from .data import linear_weights
from .gan import HIDDEN, LATENT
from .mlp import SIZES as MLP_SIZES


def _shapes(model: str = "gan") -> list[tuple]:
    """The parameter shapes of bench/gan.py's G and D (12 tensors) or of bench/mlp.py's MLP (6 tensors)."""
    shapes = []
    for sizes in ([LATENT, HIDDEN, HIDDEN, 2], [2, HIDDEN, HIDDEN, 1]) if model == "gan" else (MLP_SIZES,):
        for w, b in linear_weights(sizes):
            shapes += [w.shape, b.shape]
    return shapes


def _median_us(fn, steps: int, warmup: int = 20, before=None) -> float:
    """Median microseconds of ``fn()``; ``before()`` runs untimed ahead of each call."""
    times = []
    for i in range(warmup + steps):
        if before is not None:
            before()
        t = time.perf_counter()
        fn()
        if i >= warmup:
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def numpy_flat(shapes, steps: int) -> float:
    """One Adam update on one flat float32 buffer (betas 0.5, 0.999 as the GAN), the formulas of npnets.Adam."""
    rng = np.random.default_rng(0)
    n = sum(int(np.prod(s)) for s in shapes)
    p, g = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32) * 1e-3
    m, v = np.zeros_like(p), np.zeros_like(p)
    lr, b1, b2, eps, t = 1e-3, 0.5, 0.999, 1e-8, [0]

    def step():
        t[0] += 1
        bc1, bc2 = 1 - b1 ** t[0], (1 - b2 ** t[0]) ** 0.5
        m.__iadd__((1 - b1) * (g - m))
        v.__imul__(b2)
        v.__iadd__((1 - b2) * g * g)
        p.__isub__((lr / bc1) * (m / (np.sqrt(v) / bc2 + eps)))
    return _median_us(step, steps)


def module_adam(m, shapes, steps: int, fresh_grads: bool, **kwargs) -> float:
    """step() of m.optim.Adam over tensors of ``shapes`` (no backward in the timing).  ``fresh_grads``: new grad
    tensors before every step, as backward makes them after zero_grad() (set_to_none=True, the default); else
    the same grads stay (as after zero_grad(set_to_none=False))."""
    rng = np.random.default_rng(0)
    params = [m.nn.Parameter(m.from_numpy(rng.standard_normal(s).astype(np.float32))) for s in shapes]
    grads = [rng.standard_normal(s).astype(np.float32) * 1e-3 for s in shapes]

    def set_grads():
        for p, g in zip(params, grads):
            p.grad = m.from_numpy(g.copy())
    set_grads()
    opt = m.optim.Adam(params, lr=1e-3, betas=(0.5, 0.999), **kwargs)
    return _median_us(opt.step, steps, before=set_grads if fresh_grads else None)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--model", choices=["gan", "mlp"], default="gan", help="whose parameter shapes")
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import framework

    shapes = _shapes(args.model)
    rows = {"numpy_flat": numpy_flat(shapes, args.steps)}
    impls = [("framework", framework)]
    try:
        import torch  # optional: the reference figures

        torch.set_num_threads(args.threads)
        impls.append(("torch", torch))
    except ImportError:
        pass
    for name, m in impls:
        for foreach in (True, False):
            for fresh in (True, False):
                key = f"{name}_{'foreach' if foreach else 'single'}_{'fresh_grads' if fresh else 'kept_grads'}"
                rows[key] = module_adam(m, shapes, args.steps, fresh, foreach=foreach)
    n_params, n_elems = len(shapes), sum(int(np.prod(s)) for s in shapes)
    for name, us in rows.items():
        print(json.dumps({"workload": f"adam_step_{args.model}_params", "impl": name, "us_per_step": round(us, 1),
                          "optimizer_us_per_param": round(us / n_params, 2), "params": n_params,
                          "elements": n_elems, "vs_numpy_flat": round(us / rows["numpy_flat"], 2)}))


if __name__ == "__main__":
    main()
