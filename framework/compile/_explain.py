"""explain(fn, *args): capture ``fn`` once and describe its recording (ops, buffers, graph breaks)."""
from __future__ import annotations

import collections

import numpy as np

from ._compiled import _EAGER, CompiledFunction


def _shape(x) -> str:
    shape = getattr(x, "shape", None)
    return "x".join(map(str, shape)) if shape else ("scalar" if shape == () else type(x).__name__)


def explain(fn, *args, **kwargs) -> str:
    """Run ``fn(*args, **kwargs)`` once under capture (it *does* the step) and print what was recorded."""
    compiled = fn if isinstance(fn, CompiledFunction) else CompiledFunction(fn)
    before, captures = set(compiled.cache), compiled.captures
    compiled(*args, **kwargs)
    new = [k for k in compiled.cache if k not in before] or list(compiled.cache)
    entry = compiled.cache[new[-1]] if new else None
    if compiled.captures > captures and compiled.latest is not None:
        entry = compiled.latest  # this call's recording (dropped from the cache when it is stale already)
    lines = [f"framework.compile.explain({getattr(compiled.fn, '__qualname__', compiled.fn)})"]
    if entry is None or entry is _EAGER:
        lines.append("  not replayable: graph breaks (see the warnings above); this step runs eagerly")
    else:
        nbytes = sum(b.nbytes for b in entry.buffers)
        counts = collections.Counter(entry.texts)
        lines.append(f"  {len(entry.calls)} array calls, {len(entry.buffers)} buffers ({nbytes / 1e6:.2f} MB), "
                     f"{len(entry.inputs)} inputs, {len(entry.outputs[1])} outputs, "
                     f"{len(entry.guards)} grad guards, 0 graph breaks")
        lines.append("  calls by function: " + ", ".join(f"{n} x{c}" for n, c in counts.most_common()))
        for i, ((fn_, a, k), text) in enumerate(zip(entry.calls, entry.texts)):
            ins = [a_ for a_ in a if hasattr(a_, "shape")]
            outs = k.get("out", ())
            if not k and isinstance(fn_, np.ufunc):  # output passed positionally
                ins, outs = ins[:fn_.nin], ins[fn_.nin:]
            outs = (outs,) if hasattr(outs, "shape") else outs
            lines.append(f"  {i:4d} {text:<22} in: {', '.join(_shape(x) for x in ins) or '-':<30} "
                         f"out: {', '.join(_shape(x) for x in outs) if outs else '(in place / copy-in)'}")
    text = "\n".join(lines)
    print(text)
    return text
