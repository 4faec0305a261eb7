"""Seeds 000/001/004: the in-place errors autograd raises, each printed with its explanation.

Run: python examples/inplace_errors.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os

import framework as torch
from framework import viz

OUT = "."


def leaf_view():
    a = torch.tensor([[2.0, 1.0]], requires_grad=True)
    a[0] = 100


def modified_intermediate():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0
    path = viz.save_graph(loss, os.path.join(OUT, "inplace_errors_graph"), params={"a": a})
    print("  graph (the saved b is stale) written to", os.path.basename(path))
    loss.backward()


def detach_shares_version():
    a = torch.tensor([1, 2, 3.], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    out.sum().backward()


def data_is_silent():
    a = torch.tensor([1, 2, 3.], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()  # no error: .data has its own version counter, and the gradient is silently wrong
    out.sum().backward()
    print("  .data: no error, a.grad =", a.grad, "(wrong: the true gradient is sigmoid'(a))")


def main(argv: list[str] | None = None) -> int:
    global OUT
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=".")
    OUT = p.parse_args(argv).out
    os.makedirs(OUT, exist_ok=True)
    for fn in (leaf_view, modified_intermediate, detach_shares_version, data_is_silent):
        print("=" * 80)
        print(fn.__name__)
        try:
            fn()
        except RuntimeError as err:
            print(torch.autograd.explain(err))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
