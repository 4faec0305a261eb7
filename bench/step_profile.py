"""Where an eager framework training step's time goes (cProfile over a few steps after warm-up):

- array calls (NumPy/CuPy functions and array methods, C or NumPy's own Python) against framework's Python;
- per op kind: each autograd Function's forward and backward, inclusive time (what the op costs the step);
- the array functions with the most time of their own.

    python -m bench.step_profile --workload cnn [--steps 10] [--top 12]
    python -m bench.compare --profile --only cnn       # the same, pinned to each --threads count
"""
from __future__ import annotations

import argparse
import cProfile
import collections
import os
import pstats

ARRAY_LIBS = (os.sep + "numpy" + os.sep, os.sep + "cupy" + os.sep, os.sep + "scipy" + os.sep)


def _function_code_sites() -> dict:
    """(file, first line, name) of every autograd Function's forward/backward -> "Class.forward"."""
    from framework.autograd.function import Function

    sites, todo = {}, [Function]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        for meth in ("forward", "backward"):
            fn = cls.__dict__.get(meth)
            fn = getattr(fn, "__func__", fn)
            code = getattr(fn, "__code__", None)
            if code is not None:
                sites[(code.co_filename, code.co_firstlineno, code.co_name)] = f"{cls.__name__}.{meth}"
    return sites


def _kind(key) -> str:
    """'array' for NumPy/CuPy (builtins and their Python), 'framework' for framework's Python, else 'other'."""
    filename = key[0]
    if filename == "~":  # a C function: an array method, a NumPy builtin, or a Python builtin
        return "array" if ("numpy" in key[2] or "cupy" in key[2] or "ndarray" in key[2]) else "other"
    if any(lib in filename for lib in ARRAY_LIBS):
        return "array"
    return "framework" if os.sep + "framework" + os.sep in filename else "other"


def profile(workload: str, steps: int = 10, top: int = 12, quick: bool = False) -> list[str]:
    """The report's lines for ``steps`` eager framework steps of ``workload`` (cnn, lstm_lm, transformer)."""
    from .models import MAKERS

    step = MAKERS[workload]("framework", quick)
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    stats = pstats.Stats(prof).stats  # key -> (prim calls, calls, tottime, cumtime, callers)
    total = sum(v[2] for v in stats.values())
    by_kind = collections.Counter()
    own = {"array": collections.Counter(), "framework": collections.Counter()}
    for key, (_, calls, tt, _, _) in stats.items():
        kind = _kind(key)
        by_kind[kind] += tt
        if kind in own:
            own[kind][(key[2] if key[0] == "~" else f"{os.path.basename(key[0])}:{key[1]}:{key[2]}")] += tt
    ms = lambda s: s * 1000 / steps  # noqa: E731  (seconds over all steps -> ms per step)
    lines = [f"{workload}: {ms(total):.2f} ms/step under cProfile ({steps} steps; the profiler's own cost included)",
             "  where (own time): " + ", ".join(f"{k} {ms(v):.2f} ms ({v / total:.0%})"
                                                for k, v in by_kind.most_common())]
    sites = _function_code_sites()
    ops = collections.Counter()
    op_calls = collections.Counter()
    for key, (_, calls, _, ct, _) in stats.items():
        if key in sites:
            ops[sites[key]] += ct
            op_calls[sites[key]] += calls
    lines.append("  per op (inclusive ms/step, calls/step):")
    lines += [f"    {name:45s} {ms(t):7.2f}  {op_calls[name] // steps}" for name, t in ops.most_common(top)]
    lines.append("  array functions (own ms/step):")
    lines += [f"    {name:60s} {ms(t):7.2f}" for name, t in own["array"].most_common(top)]
    lines.append("  framework functions (own ms/step; array operators such as a + b or x[i] += y make no call of "
                 "their own and count here):")
    lines += [f"    {name:60s} {ms(t):7.2f}" for name, t in own["framework"].most_common(top)]
    return lines


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", choices=["cnn", "lstm_lm", "transformer"], default="cnn")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--quick", action="store_true", help="the models' tiny sizes: a smoke run")
    args = p.parse_args(argv)
    print("\n".join(profile(args.workload, args.steps, args.top, args.quick)))


if __name__ == "__main__":
    main()
