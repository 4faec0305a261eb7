"""Seed 004: every in-place write bumps a tensor's _version; a node checks the versions it saved at backward.

Run: python examples/version_counters.py [--quick] [--out DIR]
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

    a = torch.tensor([3.0, 1.0])
    before = id(a)
    a = a.exp()                       # out of place: a new tensor
    print("a = a.exp() is a new object:", id(a) != before, " a._version =", a._version)
    a.mul_(2)
    a[0] = 10.0
    print("after a.mul_(2) and a[0] = 10: a._version =", a._version)
    view = a[1:]
    view.add_(1)
    print("a view shares its base's counter: a._version =", a._version, " view._version =", view._version)
    print("detach() shares it too:", a.detach()._version, "; .data starts its own:", a.data._version)

    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    print("b._version =", b._version)
    # MulBackward0 saves b at version 0
    loss = (b * b).mean()
    b[0] = 1000.0
    print("after b[0] = 1000.0: b._version =", b._version)
    path = viz.save_graph(loss, os.path.join(args.out, "version_counters_graph"), params={"a": a})
    print("graph (MulBackward0's saved b is stale) written to", os.path.basename(path))
    try:
        loss.backward()
    except RuntimeError as err:
        print(torch.autograd.explain(err))

    w = torch.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True)
    try:
        w[:] = 0                      # torch 0.4 turned w into a CopySlices non-leaf; torch 2 refuses
    except RuntimeError as err:
        print("w[:] = 0 on a leaf:", str(err).splitlines()[0])
    with torch.no_grad():
        w[:] = 0                      # allowed: no graph records it; the version still moves
    print("under no_grad: w.is_leaf =", w.is_leaf, " w._version =", w._version)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
