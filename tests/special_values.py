"""Special-value inputs for the op table (signed zeros, infinities, NaN, tiny and huge values) and the comparison
with torch used by tests/test_special_values.py: the same inputs and incoming gradients run through framework and
torch, and the results are compared element class by element class (NaN, +-inf, +-0) and value by value."""
from __future__ import annotations

import math

import numpy as np


def special_values(dtype: str, nan: bool = True) -> list:
    """The special values of a dtype: signed zeros, infinities, NaN, +-1, tiny (incl. subnormal) and huge values."""
    sub = 1e-40 if dtype == "float32" else 1e-310  # below the smallest normal number of the dtype
    out = [-0.0, 0.0, math.inf, -math.inf, math.nan, 1e-30, -1e-30, sub, -sub, 1e30, -1e30, 1.0, -1.0]
    return out if nan else [v for v in out if not math.isnan(v)]


def unit_interval_values(dtype: str) -> list:
    """The special values inside [0, 1] (binary cross-entropy's domain): signed zeros, 1, tiny and subnormal."""
    sub = 1e-40 if dtype == "float32" else 1e-310
    return [-0.0, 0.0, 1.0, 1e-30, sub, float(1 - np.finfo(dtype).eps)]


def fill(shape: tuple, dtype: str, seed: int, domain: tuple = (-2.0, 2.0), nan: bool = True,
         values: list | None = None) -> np.ndarray:
    """Uniform values from the case's domain with every special value (or ``values``) at shuffled places."""
    rng = np.random.default_rng(seed)
    lo, hi = domain
    x = rng.uniform(lo, hi, size=shape).astype(dtype)
    flat = x.reshape(-1)
    sv = special_values(dtype, nan) if values is None else values
    n = flat.size
    if n:
        places = rng.permutation(n)
        k = min(n, len(sv)) if n < 4 * len(sv) else len(sv) * (n // (4 * len(sv)))  # a quarter special on big ones
        flat[places[:k]] = np.resize(np.array(sv, dtype=dtype), k)
    return x


def upstream(shape: tuple, dtype: str, seed: int, special: bool) -> np.ndarray:
    """An incoming gradient: normal values, or normal values with inf, -inf, nan and -0.0 mixed in."""
    rng = np.random.default_rng(seed + 1000)
    g = rng.standard_normal(shape).astype(dtype)
    if special and g.size:
        flat = g.reshape(-1)
        sv = np.array([math.inf, -math.inf, math.nan, -0.0, 0.0], dtype=dtype)
        k = max(1, flat.size // 4)
        flat[rng.permutation(flat.size)[:k]] = np.resize(sv, k)
    return g


def classes(a: np.ndarray) -> np.ndarray:
    """Per element: 0 finite non-zero, 1 nan, 2 +inf, 3 -inf, 4 +0.0, 5 -0.0."""
    c = np.zeros(a.shape, dtype=np.int8)
    c[np.isnan(a)] = 1
    c[a == np.inf] = 2
    c[a == -np.inf] = 3
    c[(a == 0) & ~np.signbit(a)] = 4
    c[(a == 0) & np.signbit(a)] = 5
    return c


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, any NaN equal to any NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = a.copy(), b.copy()
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    a[nan_a] = 0
    b[nan_b] = 0
    return a.tobytes() == b.tobytes()


def difference(ours: np.ndarray, theirs: np.ndarray, exact: bool, rtol: float) -> str | None:
    """None where ours is torch's (bit for bit if exact, else same classes and values within rtol); else why not."""
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return f"shape/dtype {ours.shape} {ours.dtype} vs torch {theirs.shape} {theirs.dtype}"
    if same_bits(ours, theirs):
        return None
    co, ct = classes(ours), classes(theirs)
    bad = co != ct
    names = ["finite", "nan", "+inf", "-inf", "+0", "-0"]
    if bad.any():
        i = np.argwhere(bad)[0]
        return (f"{int(bad.sum())} of {bad.size} differ in kind, first at {tuple(int(j) for j in i)}: "
                f"ours {names[co[tuple(i)]]} ({ours[tuple(i)]!r}) torch {names[ct[tuple(i)]]} ({theirs[tuple(i)]!r})")
    fin = co == 0
    o, t = ours[fin].astype(np.float64), theirs[fin].astype(np.float64)
    # relative to the value, or to the typical magnitude for values left by cancellation in a sum
    scale = np.median(np.abs(t)) * 64 if t.size else 0.0
    err = np.abs(o - t) / np.maximum(np.maximum(np.abs(t), scale), np.finfo(ours.dtype).tiny)
    if exact or (err > rtol).any():
        k = int(np.argmax(err))
        return f"values differ (max rel {err[k]:.3g}): ours {o[k]!r} torch {t[k]!r}"
    return None
