"""(A @ B).sum().backward() for 2048x2048 float32 matrices (8192x8192 with --device cuda)."""
from __future__ import annotations

import numpy as np

from .common import library, parse, report, time_steps


def make_step(impl: str, n: int, device: str = "cpu"):
    rng = np.random.default_rng(0)
    a0 = rng.standard_normal((n, n)).astype(np.float32)
    b0 = rng.standard_normal((n, n)).astype(np.float32)
    if impl == "numpy":
        def step():
            c = a0 @ b0
            ones = np.ones_like(c)
            ga, gb = ones @ b0.T, a0.T @ ones
            return float(c.sum()) + 0 * float(ga[0, 0] + gb[0, 0])
        return step
    m, compiled = library(impl)
    a = m.tensor(a0, requires_grad=True, device=device)
    b = m.tensor(b0, requires_grad=True, device=device)

    def body():
        a.grad = b.grad = None
        loss = (a @ b).sum()
        loss.backward()
        return loss.detach()
    body = m.compile(body) if compiled else body

    def step():
        return body().item()
    return step


def main() -> None:
    args = parse(__doc__)
    n = 256 if args.quick else 8192 if args.device == "cuda" else 2048
    median, trace = time_steps(make_step(args.impl, n, args.device), 1 if args.quick else 2, 2 if args.quick else 10)
    report("matmul", args.impl, median, trace, n=n, device=args.device)


if __name__ == "__main__":
    main()
