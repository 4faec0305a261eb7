"""torch.cholesky_solve and torch.cholesky_inverse (and their Tensor methods): values, gradients and node names
against torch for lower and upper factors and broadcast batches; float64 gradchecks; errors."""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome

_rng = np.random.default_rng(0)
_M = _rng.standard_normal((2, 3, 3))
_L = np.linalg.cholesky(_M @ _M.transpose(0, 2, 1) + 3 * np.eye(3))
_B = _rng.standard_normal((2, 3, 2))


def _factor(m, upper):
    f = _L.transpose(0, 2, 1).copy() if upper else _L
    return m.tensor(f, dtype=m.float64, requires_grad=True)


CASES = {
    "solve": lambda m, b, f, up: m.cholesky_solve(b, f, up),
    "solve_broadcast": lambda m, b, f, up: m.cholesky_solve(b, f[:1], upper=up),
    "solve_method": lambda m, b, f, up: b[0].cholesky_solve(f[1], up),
    "inverse": lambda m, b, f, up: m.cholesky_inverse(f, up),
    "inverse_method": lambda m, b, f, up: f[0].cholesky_inverse(upper=up),
}


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_cholesky_solvers_match_torch(name, upper):
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        f, b = _factor(m, upper), m.tensor(_B, dtype=m.float64, requires_grad=True)
        r = CASES[name](m, b, f, upper)
        (r * m.arange(r.numel(), dtype=r.dtype).view(r.shape)).sum().backward()
        outs.append((r.grad_fn.name(), tuple(r.shape), r.tolist(), f.grad.tolist(),
                     None if b.grad is None else b.grad.tolist()))
    assert outs[0][:2] == outs[1][:2]
    for a, b in zip(outs[0][2:], outs[1][2:]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_cholesky_solvers_gradcheck(name, upper):
    f, b = _factor(framework, upper), framework.tensor(_B, requires_grad=True)
    tri = framework.triu if upper else framework.tril  # perturb the triangle that is read, as a factor
    assert gradcheck(lambda b_, f_: CASES[name](framework, b_, tri(f_), upper), [b, f])


def test_only_the_factors_triangle_is_read_as_torch():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        f = m.tensor(_L[0] + np.triu(np.ones((3, 3)), 1))  # junk above the diagonal of a lower factor
        outs.append(np.round(m.cholesky_inverse(f).tolist(), 10).tolist())
    assert outs[0] == outs[1]


ERRORS = {
    "solve_1d_b": lambda m: m.cholesky_solve(m.ones(3), m.eye(3)),
    "solve_dtype": lambda m: m.cholesky_solve(m.ones(3, 1), m.eye(3, dtype=m.float64)),
    "inverse_1d": lambda m: m.cholesky_inverse(m.ones(3)),
    "inverse_not_square": lambda m: m.cholesky_inverse(m.ones(3, 2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_cholesky_solver_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    assert outcome(ERRORS[name], framework) == outcome(ERRORS[name], torch)
