"""Seed 001's exercise: plot sin(x) and its derivative computed by autograd, on linspace(-5, 5, 100).

Run: python examples/sin_derivative.py [--quick] [--out DIR]   (writes sin_derivative.png)
"""
from __future__ import annotations

import argparse
import os

import framework as torch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    args = p.parse_args(argv)
    x = torch.linspace(-5, 5, 100)
    x.requires_grad_(True)
    y = torch.sin(x)
    from framework import viz

    os.makedirs(args.out, exist_ok=True)
    graph = viz.save_graph(y, os.path.join(args.out, "sin_derivative_graph"), params={"x": x})
    print("graph written to", os.path.basename(graph))
    y.backward(torch.ones_like(x))
    error = (x.grad - torch.cos(x.detach())).abs().max().item()
    print(f"max |autograd d/dx sin(x) - cos(x)| = {error:.2e}")
    from train.plotting import plot_function

    path = plot_function(x.detach().numpy(), {"sin(x)": y.detach().numpy(), "d sin(x)/dx (autograd)": x.grad.numpy()},
                         os.path.join(args.out, "sin_derivative.png"), title="sin and its autograd derivative")
    print("wrote", path)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
