"""Gradient layouts equal torch's for every op in the op table (issue 33): fed a non-contiguous incoming gradient
(a transposed one, a strided slice) or a transposed leaf, each input gradient has torch's strides, and the leaf's
``.grad._version`` after ``.backward(g)`` is torch's (AccumulateGrad steals a gradient that obeys the layout
contract, else clones it, which bumps the clone's version).

Run as a script (``PYTHONPATH=tests python tests/test_exact_backward_layouts.py``) it prints every difference."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from op_table import OPS

torch = pytest.importorskip("torch")

# how the gradient or the leaves are laid out: the incoming gradient transposed (its last two dims swapped), the
# incoming gradient a strided slice of a larger one (last dim), or each leaf of rank >= 2 transposed
MODES = ("grad_t", "grad_step", "input_t")


def _swap_last(m, x):
    return x.transpose(-1, -2) if x.dim() >= 2 else x


def _leaf(m, a, dtype, mode, grad):
    if mode == "input_t" and a.ndim >= 2:
        t = m.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype)
        return _swap_last(m, t).detach().requires_grad_(grad)
    return m.tensor(a, dtype=dtype, requires_grad=grad)


def _incoming(m, shape, dtype, mode):
    rng = np.random.default_rng(1)
    g = rng.standard_normal(shape)
    if mode == "grad_t" and len(shape) >= 2:
        return _swap_last(m, m.tensor(np.ascontiguousarray(np.swapaxes(g, -1, -2)), dtype=dtype))
    if mode == "grad_step" and len(shape) >= 1:
        wide = np.repeat(g, 2, axis=-1)
        return m.tensor(wide, dtype=dtype)[..., ::2]
    return m.tensor(g, dtype=dtype)


def layouts(m, case, dtype_name: str, mode: str):
    """What a user sees of the gradients' layouts: autograd.grad's strides per input, then after .backward(g) each
    leaf's .grad strides and version; None where the op does not apply (torch raises)."""
    dtype = getattr(m, dtype_name)
    rng = np.random.default_rng(0)
    lo, hi = case.domain
    arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]
    seen = []
    for call in ("grad", "backward"):
        xs = [_leaf(m, a, dtype, mode, i not in case.nondiff) for i, a in enumerate(arrays)]
        out = case.fn(m, *xs)
        g = _incoming(m, tuple(out.shape), out.dtype, mode)
        wanted = [x for x in xs if x.requires_grad]
        if call == "grad":
            grads = m.autograd.grad(out, wanted, g, allow_unused=True)
            seen.append([None if d is None else d.stride() for d in grads])
        else:
            out.backward(g)
            seen.append([None if x.grad is None else (x.grad.stride(), x.grad._version) for x in wanted])
    return seen


def _outcome(m, case, dtype_name, mode):
    try:
        return layouts(m, case, dtype_name, mode)
    except Exception as e:  # noqa: BLE001 - an op that refuses this layout: only its refusal is compared
        return type(e).__name__


def _applies(case, mode) -> bool:
    if mode == "input_t":
        return any(len(s) >= 2 for s in case.shapes)
    return True


CASES = [(c, d, mode) for c in OPS for d in ("float32", "float64") for mode in MODES if _applies(c, mode)]


@pytest.mark.parametrize("case,dtype,mode", CASES, ids=[f"{c.name}-{d}-{mode}" for c, d, mode in CASES])
def test_backward_layouts_match_torch(case, dtype, mode):
    theirs = _outcome(torch, case, dtype, mode)
    if isinstance(theirs, str):
        pytest.skip(f"torch refuses this layout ({theirs})")
    assert _outcome(framework, case, dtype, mode) == theirs


def _report() -> None:
    """Print each op whose gradient layout differs from torch's."""
    bad = 0
    for case, dtype, mode in CASES:
        theirs = _outcome(torch, case, dtype, mode)
        if isinstance(theirs, str):
            continue
        ours = _outcome(framework, case, dtype, mode)
        if ours != theirs:
            bad += 1
            print(f"{case.name:28s} {dtype} {mode:9s} ours={ours} torch={theirs}")
    print(f"{bad} of {len(CASES)} differ")


if __name__ == "__main__":
    _report()
