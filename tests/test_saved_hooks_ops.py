"""Every op of the op table gives the same gradients (first and second order) when its saved tensors go through
saved_tensors_hooks, and when it runs inside a non-reentrant checkpoint (recomputed in backward): no torch needed."""
import numpy as np
import pytest

import framework
import framework.utils.checkpoint as fcp
from op_table import EINSUM_OPS, OPS

CASES = OPS + EINSUM_OPS


def _inputs(case):
    rng = np.random.default_rng(0)
    lo, hi = case.domain
    xs = []
    for i, s in enumerate(case.shapes):
        a = rng.uniform(lo, hi, size=s)
        xs.append(framework.tensor(a, dtype=framework.float64, requires_grad=i not in case.nondiff))
    return xs


def _grads(case, wrap):
    xs = _inputs(case)
    diff = [x for x in xs if x.requires_grad]
    out = wrap(lambda *ts: case.fn(framework, *ts), xs)
    outs = out if isinstance(out, tuple) else (out,)
    outs = [o for o in outs if isinstance(o, framework.Tensor) and o.requires_grad]
    if not outs:
        return []
    total = sum((o * o).sum() for o in outs)
    first = framework.autograd.grad(total, diff, create_graph=True, allow_unused=True)
    used = [(x, g) for x, g in zip(diff, first) if g is not None and g.requires_grad]
    try:
        second = framework.autograd.grad(sum((g * g).sum() for _, g in used), [x for x, _ in used],
                                         allow_unused=True) if used else ()
    except RuntimeError as e:  # no second derivative (as torch's): the same error either way
        second = (str(e).split("\n")[0],)
    return [g if g is None or isinstance(g, str) else g.detach().cpu().numpy() for g in list(first) + list(second)]


def _plain(fn, xs):
    return fn(*xs)


def _hooked(fn, xs):
    with framework.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        return fn(*xs)


def _checkpointed(fn, xs):
    return fcp.checkpoint(fn, *xs, use_reentrant=False)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gradients_unchanged_by_hooks_and_checkpoint(case):
    ref = _grads(case, _plain)
    for wrap in (_hooked, _checkpointed):
        got = _grads(case, wrap)
        assert len(got) == len(ref)
        for a, b in zip(ref, got):
            assert (a is None) == (b is None)
            if isinstance(a, str):
                assert a == b
            elif a is not None:
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
