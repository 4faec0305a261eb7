"""Seeds 000/002: backward frees the graph's saved tensors; retain_graph=True keeps them for a second pass.

Run: python examples/retain_graph.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os

import framework as torch
from framework import viz


def forward():
    a = torch.tensor([[2.0, 1.0]], requires_grad=True)
    b = torch.tensor([[1.0, 1.0]], requires_grad=True)
    # MulBackward0 saves a and b
    e = a * b * 3
    return a, b, torch.mean(e)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    a, b, f = forward()
    f.backward()
    print("first backward:  a.grad =", a.grad.tolist())
    path = viz.save_graph(f, os.path.join(args.out, "retain_graph_freed"), params={"a": a, "b": b})
    print("graph after backward (its saved tensors freed) written to", os.path.basename(path))
    try:
        f.backward()
    except RuntimeError as err:
        print("second backward:")
        print(torch.autograd.explain(err))

    a, b, f = forward()
    f.backward(retain_graph=True)
    f.backward()                      # the saved tensors are still there; gradients accumulate
    print("with retain_graph=True, two backward passes: a.grad =", a.grad.tolist(), "(twice the first)")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
