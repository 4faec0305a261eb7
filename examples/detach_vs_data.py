"""Seed 001: x.detach() and x.data both share x's memory, but only detach() shares its version counter.

Run: python examples/detach_vs_data.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os

import framework as torch
from framework import viz


def forward():
    """d = x @ w: MmBackward0 saves x (w's gradient is x^T @ grad) and w (x's gradient is grad @ w^T)."""
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = torch.tensor([[1.0, 1.0], [1.0, 1.0]], requires_grad=True)
    return x, w, torch.mm(x, w)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    x, w, d = forward()
    d.sum().backward()
    print("untouched x:  w.grad =", w.grad.tolist(), "(the right answer: x^T @ ones)")

    x, w, d = forward()
    x_ = x.data                       # shares memory, NOT the version counter
    x_ -= 1                           # x changes, x._version stays 0: autograd cannot notice
    print("after x.data -= 1: x._version =", x._version)
    d.sum().backward()
    print("through .data:   w.grad =", w.grad.tolist(), "(silently wrong: computed from the changed x)")

    x, w, d = forward()
    x_ = x.detach()                   # shares memory AND the version counter
    x_ -= 1
    print("after x.detach() -= 1: x._version =", x._version)
    path = viz.save_graph(d, os.path.join(args.out, "detach_vs_data_graph"), params={"x": x, "w": w})
    print("graph (the saved x is stale) written to", os.path.basename(path))
    try:
        d.sum().backward()
    except RuntimeError as err:
        print("through .detach(): backward refuses:")
        print(torch.autograd.explain(err))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
