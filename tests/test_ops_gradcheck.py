"""Every op in the op table passes a float64 numerical gradient check (no torch needed)."""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from op_table import OPS


def make_inputs(case, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = case.domain
    return [rng.uniform(lo, hi, size=s).astype(dtype) for s in case.shapes]


@pytest.mark.parametrize("case", OPS, ids=[c.name for c in OPS])
def test_gradcheck(case):
    arrays = make_inputs(case)
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *ts: case.fn(framework, *ts), xs)


def test_gradcheck_catches_a_wrong_backward():
    class BadSquare(framework.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # wrong: should be 2 * g * x

    x = framework.tensor([1.0, 2.0], dtype=framework.float64, requires_grad=True)
    with pytest.raises(AssertionError):
        gradcheck(BadSquare.apply, [x])
