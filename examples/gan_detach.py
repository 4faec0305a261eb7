"""Seed 002: why a GAN needs fake.detach() (and where retain_graph=True fits), then a short real training run.

Run: python examples/gan_detach.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse
import os

import framework as torch
from train import pitfalls
from train.cli import main as train_main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default="gan_detach_run")
    args = p.parse_args(argv)
    pitfalls.run()

    # the graph of one GAN step's G loss: D's parameters appear, and so do G's (a fresh D(fake))
    from framework import nn, viz

    G, D = nn.Linear(2, 2), nn.Linear(2, 2)
    fake = G(torch.randn(4, 2))
    loss_g = D(fake).sum()
    os.makedirs(args.out, exist_ok=True)
    path = viz.save_graph(loss_g, os.path.join(args.out, "gan_step_graph"), params={"G": G, "D": D})
    print("graph of the G loss written to", path)

    steps = "60" if args.quick else "1500"
    return train_main(["gan", "--steps", steps, "--out", args.out, "--no-progress"])


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
