"""Seed 000/004: which tensors are leaves, which keep .grad, and what the graph behind a loss looks like.

Run: python examples/leaf_tensors.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os
import warnings

import framework as torch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    args = p.parse_args(argv)

    a = torch.tensor([[2.0, 1.0]], requires_grad=True)
    b = torch.tensor([[1.0, 1.0]], requires_grad=True)
    c = a * 3
    d = b + 4
    e = c + d
    f = torch.mean(e)
    print("is_leaf:", [t.is_leaf for t in (a, b, c, d, e, f)])
    print("grad_fn:", [None if t.grad_fn is None else t.grad_fn.name() for t in (a, b, c, d, e, f)])
    f.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns, as in torch
        print("grads:  ", a.grad, b.grad, c.grad, d.grad, e.grad, f.grad)
    try:
        f.backward()
    except RuntimeError as err:
        print("second backward:", str(err).split(".")[0] + ".")

    # seed 004's graph, explained node by node, and drawn (DOT always; PNG when Graphviz is installed)
    inp = torch.ones([2, 2])
    w1, w2, w3 = (torch.tensor(v, requires_grad=True) for v in (2.0, 3.0, 3.0))
    l1 = inp * w1
    l4 = (l1 + w2) * (l1 * w3)
    loss = l4.mean()
    print(torch.autograd.explain(loss))
    from framework import viz

    os.makedirs(args.out, exist_ok=True)
    path = viz.save_graph(loss, os.path.join(args.out, "leaf_tensors_graph"),
                          params={"w1": w1, "w2": w2, "w3": w3})
    print("graph written to", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
