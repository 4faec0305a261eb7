"""erfc: torch's values (accurate where 1 - erf(x) would cancel), ErfcBackward0 and its double-backward nodes,
the in-place form, integer promotion, a float64 gradcheck without torch, and a compiled replay."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck, gradgradcheck

X = np.array([-3.0, -0.5, -0.0, 0.0, 0.3, 1.0, 4.0, 9.0, 26.5, np.inf, -np.inf, np.nan])


def _graph(f) -> str:
    if f is None:
        return "-"
    kids = ",".join(_graph(n) for n, _ in f.next_functions)
    return type(f).__name__ + (f"({kids})" if kids else "")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_torch_where_one_minus_erf_cancels(dtype):
    torch = pytest.importorskip("torch")
    ours = framework.erfc(framework.tensor(X, dtype=getattr(framework, dtype))).cpu().numpy()
    theirs = torch.erfc(torch.tensor(X, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(dtype).eps, atol=0)
    assert ours[7] > 0  # erfc(9) ~ 4e-37: 1 - erf(9) is 0 in any float


def test_gradients_and_graphs_match_torch_to_second_order():
    torch = pytest.importorskip("torch")
    x = X[np.isfinite(X)]
    out = []
    for m in (framework, torch):
        a = m.tensor(x, dtype=m.float64, requires_grad=True)
        y = m.erfc(a)
        (g,) = m.autograd.grad((y * y).sum(), a, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), a)
        out.append((_graph(y.grad_fn), _graph(g.grad_fn), g.detach().cpu().numpy(), gg.cpu().numpy()))
    assert out[0][:2] == out[1][:2]
    for mine, ref in zip(out[0][2:], out[1][2:]):
        np.testing.assert_allclose(mine, ref, rtol=1e-13, atol=1e-300)


def test_in_place_method_and_integer_promotion_match_torch():
    torch = pytest.importorskip("torch")
    res = []
    for m in (framework, torch):
        a = m.tensor([0.2, -1.0], dtype=m.float64, requires_grad=True)
        b = a * 1
        v = b._version
        b.erfc_()
        (g,) = m.autograd.grad(b.sum(), a, create_graph=True)
        res.append((b._version - v, _graph(b.grad_fn), _graph(g.grad_fn), g.tolist(),
                    m.tensor([1, 2]).erfc().dtype == m.float32, m.special.erfc(m.tensor([0.5])).tolist()))
    assert res[0][:3] == res[1][:3] and res[0][4:] == res[1][4:]
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-13)


def test_gradcheck_float64_without_torch():
    a = framework.tensor([-1.3, -0.2, 0.4, 1.7], dtype=framework.float64, requires_grad=True)
    assert gradcheck(framework.erfc, (a,))
    assert gradgradcheck(framework.erfc, (a,))


@pytest.mark.explicit_device  # compile records NumPy steps only
def test_compiled_replay_equals_eager():
    x = framework.tensor([-1.0, 0.25, 2.0])

    @framework.compile(fullgraph=True)
    def step(t):
        return framework.erfc(t) * 2

    eager = (framework.erfc(x) * 2).numpy()
    for _ in range(3):
        np.testing.assert_array_equal(step(x).numpy(), eager)
    assert step.replays >= 2
