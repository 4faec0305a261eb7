"""cupy.ElementwiseKernel for the strict stand-in: the kernel's C source run elementwise by NumPy.

Covers the C the project's kernels use: ``T name = expr;`` declarations, assignments, ``sqrt``, comparisons and
``cond ? a : b`` with ``||``. Every value is an array or scalar of the kernel's type T, so each operation rounds
in T as the GPU does with ``--fmad=false`` (no contraction of a*b+c into an FMA).
"""
from __future__ import annotations

import numpy as np

from strict_cupy_array import _to_numpy_args


def _translate(line: str) -> str:
    """One C statement as a Python statement over NumPy arrays."""
    line = line.strip().rstrip(";")
    if line.startswith("T "):
        line = line[2:]
    if "?" in line:  # x = (a != a || a >= b) ? a : b
        target, expr = line.split(" = ", 1)
        cond, rest = expr.split(" ? ")
        yes, no = rest.split(" : ")
        cond = " | ".join(f"({c.strip()})" for c in cond.strip().strip("()").split("||"))
        line = f"{target} = np.where({cond}, {yes}, {no})"
    return line


class ElementwiseKernel:
    """cupy.ElementwiseKernel(in_params, out_params, operation, name, options=...): call with inputs then outputs."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel", options=(), **kwargs):
        self.names_in = [p.split()[-1] for p in in_params.split(",")]
        self.names_out = [p.split()[-1] for p in out_params.split(",")]
        source = "\n".join(_translate(s) for s in operation.splitlines() if s.strip())
        self.code = compile(source.replace("sqrt(", "np.sqrt("), name, "exec")  # a syntax error raises here

    def __call__(self, *args):
        if len(args) != len(self.names_in) + len(self.names_out):
            raise TypeError(f"Wrong number of arguments for {self.code.co_filename}")
        outs = args[len(self.names_in):]
        ns = dict(zip(self.names_in + self.names_out, _to_numpy_args(args)), np=np)
        with np.errstate(all="ignore"):
            exec(self.code, ns)
        for name, out in zip(self.names_out, outs):
            out._a[...] = ns[name]
        return outs[0] if len(outs) == 1 else outs
