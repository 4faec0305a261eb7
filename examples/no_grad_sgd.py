"""Seed 003: linear regression from scratch; the parameter update must run under no_grad.

Run: python examples/no_grad_sgd.py [--quick] [--out DIR]
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
    torch.manual_seed(0)
    true_w, true_b = torch.tensor([2.0, -3.4]), 4.2
    features = torch.randn(1000, 2)
    labels = features @ true_w + true_b + torch.randn(1000) * 0.01
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr, batch_size = 0.03, 10
    for epoch in range(1 if args.quick else 3):
        for i in range(0, 1000, batch_size):
            X, y = features[i:i + batch_size], labels[i:i + batch_size]
            loss = ((X @ w + b - y) ** 2 / 2).sum()
            loss.backward()
            with torch.no_grad():  # without it: "a leaf Variable that requires grad is being used in an in-place..."
                for param in [w, b]:
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: loss {((features @ w + b - labels) ** 2 / 2).mean().item():.6f}")
    print("w:", w, "b:", b)
    try:
        w.grad = None
        loss = ((features[:10] @ w + b - labels[:10]) ** 2 / 2).sum()
        os.makedirs(args.out, exist_ok=True)
        path = viz.save_graph(loss, os.path.join(args.out, "no_grad_sgd_graph"), params={"w": w, "b": b})
        print("graph of one batch's loss written to", os.path.basename(path))
        loss.backward()
        for param in [w]:
            param -= 0.1 * param.grad  # outside no_grad
    except RuntimeError as err:
        print("without no_grad:", str(err).split("\n")[0])
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
