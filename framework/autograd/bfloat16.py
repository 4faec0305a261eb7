"""bfloat16 through the ops: each built-in computes on float32 copies of its bfloat16 operands and rounds its
result once, as torch's CPU kernels do (function.py's apply calls these only once a bfloat16 tensor exists)."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor


def _widen(arrays) -> tuple:
    """float32 copies of the bfloat16 arrays (others as they are), and a map from each copy back to its original."""
    bf16 = dtypes.BFLOAT16_NP
    back, wide = {}, []
    for a in arrays:
        if getattr(a, "dtype", None) == bf16:
            w = a.astype(np.float32)
            back[id(w)] = a
            a = w
        wide.append(a)
    return wide, back


def _forward_bfloat16(cls, ctx, arrays):
    """cls.forward, with bfloat16 operands computed in float32 and each float result rounded once to bfloat16,
    as torch's CPU kernels do (a formula of several NumPy calls on bfloat16 arrays would round after each call).

    The result is bfloat16 only when torch's promotion says so: every floating operand (every dimensioned one,
    if any) is bfloat16, and no dtype is asked for (``to(float32)``, ``sum(dtype=...)`` choose their own).
    What forward saves is mapped back to the bfloat16 arrays, so backward sees what torch saves.
    """
    if cls.exact_in_bfloat16:
        return cls.forward(ctx, *arrays)
    bf16 = dtypes.BFLOAT16_NP
    floats = [a for a in arrays if getattr(a, "dtype", None) is not None and a.dtype.kind in "fV"]
    dimensioned = [a for a in floats if a.ndim] or floats
    if not floats or any(a.dtype != bf16 for a in dimensioned):
        return cls.forward(ctx, *arrays)
    wide, back = _widen(arrays)
    out = cls.forward(ctx, *wide)
    if not any(isinstance(a, (np.dtype, dtypes.dtype)) for a in arrays):
        outs = out if type(out) is tuple else (out,)
        rounded = []
        for o in outs:
            if getattr(o, "dtype", None) is not None and o.dtype.kind == "f":
                r = o.astype(bf16)
                back[id(o)] = r
                o = r
            rounded.append(o)
        out = tuple(rounded) if type(out) is tuple else rounded[0]
        # constants forward kept on ctx for backward (affine_grid's base grid) are made in the operands' dtype
        for name, value in list(vars(ctx).items()):
            arr = value._array if isinstance(value, Tensor) else value
            if getattr(arr, "dtype", None) == np.float32:  # (an operand or the result: its bfloat16 array)
                arr = back[id(arr)] if id(arr) in back else arr.astype(bf16)
                setattr(ctx, name, Tensor._make(arr) if isinstance(value, Tensor) else arr)
    if ctx._to_save:
        ctx._to_save = tuple([back.get(id(x), x) for x in ctx._to_save])
    return out


def _forward_bfloat16_inplace(cls, ctx, arrays):
    """An in-place built-in writing a bfloat16 tensor: computed on a float32 copy of it (and of the other bfloat16
    operands), then written back rounded once, as torch's CPU kernels (``p.addcdiv_(a, b)`` rounds once, not after
    each NumPy call of its formula)."""
    bf16 = dtypes.BFLOAT16_NP
    target = arrays[0]
    wide, back = _widen(arrays)
    out = cls.forward(ctx, *wide)
    target[...] = wide[0].astype(bf16)
    outs = out if type(out) is tuple else (out,)
    outs = tuple([back.get(id(o), o) for o in outs])
    if ctx._dirty:
        ctx._dirty = tuple([back.get(id(d), d) for d in ctx._dirty])
    if ctx._to_save:
        ctx._to_save = tuple([back.get(id(x), x) for x in ctx._to_save])
    return outs if type(out) is tuple else outs[0]
