"""bfloat16 and float16 through the ops: each built-in computes on float32 copies of its bfloat16 (float16)
operands and rounds its result once, as torch's CPU kernels do for both (function.py's apply calls these only once
such a tensor exists).  NumPy's own float16 loops round after each call of a formula of several.

A built-in whose torch kernel computes a half dtype step by step instead, rounding each step (or accumulating in
it) as NumPy's float16 and ml_dtypes' bfloat16 loops do, names it in ``half_in_steps`` ("float16", "bfloat16"):
its forward then runs on the half arrays as they are."""
from __future__ import annotations

import functools

import numpy as np

from .. import dtypes
from ..backend import get_array_module
from ..tensor import Tensor


def widen_half(a):
    """A float32 copy of the bfloat16 array ``a`` that repeats its elements where ``a`` does (an expand's stride-0
    dims): NumPy's astype lays a stride-0 dim innermost (a column-major copy of ``x.expand(3, 4)``), so the op's
    result would come out column-major where the float32 op's, as torch's, is row-major."""
    repeated = [n > 1 and st == 0 for n, st in zip(a.shape, a.strides)]
    if True not in repeated:
        return a.astype(np.float32)
    one = a[tuple(slice(0, 1) if r else slice(None) for r in repeated)].astype(np.float32)
    strides = tuple(0 if r else st for r, st in zip(repeated, one.strides))
    return get_array_module(one).lib.stride_tricks.as_strided(one, a.shape, strides)


def half_dtype(a):
    """The array's dtype when it is bfloat16 or float16 (computed in float32 by torch's CPU kernels), else None."""
    dt = getattr(a, "dtype", None)
    return dt if dt is not None and (dt == dtypes.BFLOAT16_NP or dt == dtypes.FLOAT16_NP) else None


def _widen(arrays, bf16=dtypes.BFLOAT16_NP) -> tuple:
    """float32 copies of the ``bf16`` (bfloat16 or float16) arrays (others as they are), and a map from each copy
    back to its original."""
    back, wide = {}, []
    for a in arrays:
        if getattr(a, "dtype", None) == bf16:
            w = widen_half(a)
            back[id(w)] = a
            a = w
        wide.append(a)
    return wide, back


def refuse_half(cls, arrays) -> None:
    """torch's refusal of a float16/bfloat16 operand where its CPU kernel has none (cls.half_kernel or
    cls.low_precision_check); for bfloat16, checked before the float32 widening that would hide the dtype."""
    if cls.half_kernel is None and cls.low_precision_check is None:
        return
    arrays = arrays[:cls.half_operands]  # (the operands a user passed, not the op's own constants)
    floats = {a.dtype for a in arrays if getattr(a, "dtype", None) is not None and a.dtype.kind in "fV"}
    if len(floats) > 1:
        return  # operands of two float dtypes: torch promotes them, or checks them first (forward does)
    for a in arrays:
        dt = getattr(a, "dtype", None)
        if dt is not None and dt.kind in "fV" and dt.itemsize == 2:
            name = dtypes.from_numpy_dtype(dt).legacy.replace("Tensor", "")  # Half, BFloat16
            if cls.low_precision_check is not None:
                raise RuntimeError(f"{cls.low_precision_check}: Low precision dtypes not supported. Got {name}")
            raise NotImplementedError(f"\"{cls.half_kernel}\" not implemented for '{name}'")


def refuse_half_first(cls) -> None:
    """Make cls.forward refuse float16 operands first, as torch's CPU kernel does (bfloat16 ones are refused before
    their float32 widening, in _forward_bfloat16). The refusal read is the node's class: a subclass may lift it."""
    raw = next(k.__dict__["forward"] for k in cls.__mro__ if "forward" in k.__dict__)
    fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
    if getattr(fn, "_refuses_half", False):
        return
    at = 1 if isinstance(raw, classmethod) else 0  # where ctx sits among the arguments

    @functools.wraps(fn)  # keeps forward's signature, which apply binds keyword arguments to
    def checked(*args):
        refuse_half(args[at]._forward_cls, args[at + 1:])
        return fn(*args)
    checked._refuses_half = True
    cls.forward = classmethod(checked) if at else staticmethod(checked)


def _as_bfloat16_meta(value, bf16=dtypes.BFLOAT16_NP):
    """A (shape, dtype) meta that forward kept on ctx for backward (the dtype a gradient is cast to), with the
    float32 of the widened operands put back to bf16 (bfloat16 or float16); other values as they are."""
    if isinstance(value, np.dtype):
        return bf16 if value == np.float32 else value
    if isinstance(value, (tuple, list)):
        return type(value)(_as_bfloat16_meta(v, bf16) for v in value)
    return value


def _cast_0d_operands(cls, arrays, floats, bf16, first: int = 0):
    """0-d float operands of another dtype cast to the half dtype first (torch's common dtype), but where torch's
    kernel reads the value itself (``bfloat16_reads_scalar``); with the map cast -> operand, since torch saves the
    tensor the user passed (its version), not the cast."""
    if not any(a.ndim == 0 and a.dtype != bf16 for a in floats):
        return arrays, {}
    keep = cls.bfloat16_reads_scalar
    cast = [a.astype(bf16) if i >= first and i not in keep and getattr(a, "ndim", None) == 0 and a.dtype.kind == "f"
            and a.dtype != bf16 else a for i, a in enumerate(arrays)]
    return cast, {id(c): a for c, a in zip(cast, arrays) if c is not a}


def _forward_bfloat16(cls, ctx, arrays):
    """cls.forward, with bfloat16 operands computed in float32 and each float result rounded once to bfloat16,
    as torch's CPU kernels do (a formula of several NumPy calls on bfloat16 arrays would round after each call).

    The result is bfloat16 only when torch's promotion says so: every floating operand (every dimensioned one,
    if any) is bfloat16, and no dtype is asked for (``to(float32)``, ``sum(dtype=...)`` choose their own).
    What forward saves is mapped back to the bfloat16 arrays, so backward sees what torch saves.
    """
    if cls.exact_in_bfloat16:
        return cls.forward(ctx, *arrays)
    refuse_half(cls, arrays)
    floats = [a for a in arrays if getattr(a, "dtype", None) is not None and a.dtype.kind in "fV"]
    dimensioned = [a for a in floats if a.ndim] or floats
    bf16 = half_dtype(dimensioned[0]) if floats else None  # the result's dtype: bfloat16 or float16
    if bf16 is None or any(a.dtype != bf16 for a in dimensioned) or bf16.name in getattr(cls, "half_in_steps", ()):
        return cls.forward(ctx, *arrays)
    arrays, origin = _cast_0d_operands(cls, arrays, floats, bf16)
    wide, back = _widen(arrays, bf16)
    if cls.bfloat16_scalars:  # torch casts the number to the tensor's bfloat16 before its kernel reads it
        wide = [float(np.asarray(a).astype(bf16)) if type(a) is float else a for a in wide]
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
            elif isinstance(value, (tuple, list, np.dtype)):
                setattr(ctx, name, _as_bfloat16_meta(value, bf16))
    if ctx._to_save:
        saved = [back.get(id(x), x) for x in ctx._to_save]
        ctx._to_save = tuple([origin.get(id(x), x) for x in saved] if origin else saved)
    return out


def _forward_bfloat16_inplace(cls, ctx, arrays):
    """An in-place built-in writing a bfloat16 tensor: computed on a float32 copy of it (and of the other bfloat16
    operands), then written back rounded once, as torch's CPU kernels (``p.addcdiv_(a, b)`` rounds once, not after
    each NumPy call of its formula)."""
    refuse_half(cls, arrays)
    target = arrays[0]
    bf16 = target.dtype
    floats = [a for a in arrays[1:] if getattr(a, "dtype", None) is not None and a.dtype.kind in "fV"]
    # (a 0-d target with a 0-d operand of another float dtype: torch's common dtype is the wider one, all operands
    # being 0-d, so NumPy computes in it and rounds once into the target too; fuzz seed 7602691)
    if any(a.dtype != bf16 for a in floats if a.ndim or not target.ndim) or \
            bf16.name in getattr(cls, "half_in_steps", ()):
        # a source of another float dtype: the op's own checks see both dtypes (index_copy_, put_ refuse them, as
        # torch's), and NumPy computes in the wider dtype and rounds once into the bfloat16 target
        return cls.forward(ctx, *arrays)
    # (a 0-d operand of another float dtype: cast first, as the out-of-place path; fuzz seed 5800439's sub_)
    arrays, origin = _cast_0d_operands(cls, arrays, floats, bf16, first=1)
    wide, back = _widen(arrays, bf16)
    out = cls.forward(ctx, *wide)
    target[...] = wide[0].astype(bf16)
    outs = out if type(out) is tuple else (out,)
    outs = tuple([back.get(id(o), o) for o in outs])
    for name, value in list(vars(ctx).items()):
        if isinstance(value, (tuple, list, np.dtype)):
            setattr(ctx, name, _as_bfloat16_meta(value, bf16))
    if ctx._dirty:
        ctx._dirty = tuple([back.get(id(d), d) for d in ctx._dirty])
    if ctx._to_save:
        ctx._to_save = tuple([origin.get(id(y), y) for y in [back.get(id(x), x) for x in ctx._to_save]])
    return outs if type(out) is tuple else outs[0]
