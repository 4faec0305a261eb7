"""(A @ B).sum().backward() for 2048x2048 float32 matrices."""
from __future__ import annotations

import numpy as np

from .common import parse, report, time_steps


def make_step(impl: str, n: int):
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
    m = __import__(impl)
    a = m.tensor(a0, requires_grad=True)
    b = m.tensor(b0, requires_grad=True)

    def step():
        a.grad = b.grad = None
        loss = (a @ b).sum()
        loss.backward()
        return loss.item()
    return step


def main() -> None:
    args = parse(__doc__)
    n = 256 if args.quick else 2048
    median, trace = time_steps(make_step(args.impl, n), 1 if args.quick else 2, 2 if args.quick else 10)
    report("matmul", args.impl, median, trace, n=n)


if __name__ == "__main__":
    main()
