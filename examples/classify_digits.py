"""Train the small CNN on scikit-learn's 8x8 digits (or an MLP on two moons without scikit-learn).

Run: python examples/classify_digits.py [--quick] [--out DIR]
"""
from __future__ import annotations

import argparse

from train.cli import main as train_main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default="classify_run")
    args = p.parse_args(argv)
    extra = ["--quick"] if args.quick else []
    return train_main(["classify", "--out", args.out, "--no-progress", *extra])


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
