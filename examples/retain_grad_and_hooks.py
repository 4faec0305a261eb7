"""Seed 004: keep a non-leaf's gradient with retain_grad(), or just look at it with register_hook().

Run: python examples/retain_grad_and_hooks.py [--quick] [--out DIR]
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
    inp = torch.ones([2, 2])
    w1 = torch.tensor(2.0, requires_grad=True)
    w2 = torch.tensor(3.0, requires_grad=True)
    w3 = torch.tensor(3.0, requires_grad=True)
    l1 = inp * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3

    loss = l4.mean()
    os.makedirs(args.out, exist_ok=True)
    path = viz.save_graph(loss, os.path.join(args.out, "retain_grad_graph"), params={"w1": w1, "w2": w2, "w3": w3})
    print("graph written to", os.path.basename(path))
    l1.retain_grad()
    l4.retain_grad()
    loss.retain_grad()
    loss.backward(retain_graph=True)
    print("retained:", loss.grad, l4.grad, l1.grad, sep="\n")

    loss2 = l4.mean()
    l1.register_hook(lambda grad: print("l1 grad:", grad))
    l4.register_hook(lambda grad: print("l4 grad", grad))
    loss2.register_hook(lambda grad: print("loss grad:", grad))
    loss2.backward()  # hooks fire from the loss backwards: loss, l4, l1
    print("w1.grad accumulated over both backward passes:", w1.grad)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
