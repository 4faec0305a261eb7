"""Seed 001: backward() of a non-scalar needs `gradient=`: autograd computes vector-Jacobian products.

Run: python examples/nonscalar_backward.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os

import framework as torch
from framework import viz


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    x = torch.tensor(1.0, requires_grad=True)
    (x ** 2).backward()
    print("scalar: d(x**2)/dx at 1 =", x.grad.item())

    x = torch.ones(2, 4, requires_grad=True)
    y = x ** 2
    try:
        y.backward()
    except RuntimeError as err:
        print(torch.autograd.explain(err))
    y.backward(gradient=torch.ones_like(x))
    print("y.backward(gradient=torch.ones_like(x)): x.grad =")
    print(x.grad)

    x = torch.tensor([[2.0, 1.0]], requires_grad=True)
    y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    z = torch.mm(x, y)
    print("z =", z)
    z.backward(torch.tensor([[1.0, 0.0]]))   # weights of the two outputs: only z[0, 0] counts
    print("x.grad =", x.grad, " y.grad =", y.grad, sep="\n")
    jac = torch.autograd.functional.jacobian(lambda x: torch.mm(x, y.detach()), x.detach())
    print("the Jacobian dz/dx, shape", tuple(jac.shape), "; v^T J with v = [1, 0]:", (jac[0, 0]).tolist())
    path = viz.save_graph(z, os.path.join(args.out, "nonscalar_backward_graph"), params={"x": x, "y": y})
    print("graph written to", os.path.basename(path))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
