"""LU factorization and triangular solves (linalg.lu_factor(_ex), lu, lu_solve, solve_triangular, torch.lu_unpack,
torch.triangular_solve): values, pivots, gradients and grad_fn names against torch (float64, batched, square,
wide and tall), float64 gradchecks and gradgradchecks that need no torch, and the errors word for word."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
from framework.autograd import gradcheck, gradgradcheck
from scenario import outcome


def _inputs():
    rng = np.random.default_rng(0)

    def gen(*s):
        return rng.standard_normal(s)

    def wc(*b, n=3):  # well-conditioned square matrices (pivots stay put under a gradcheck's small steps)
        return rng.standard_normal(b + (n, n)) + 3 * np.eye(n)

    def lu_solve(left=True, adjoint=False):
        def fn(m, a, b):
            LU, piv = m.linalg.lu_factor(a)
            return m.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint)
        return fn

    def factor_sum(m, a):  # every output of lu_factor feeds the loss
        LU, piv = m.linalg.lu_factor(a)
        return LU * 1.5

    def lu_loss(m, a):
        P, L, U = m.linalg.lu(a)
        return (L * 2).sum(-1, keepdim=True) * 0.1 + U.sum(-2, keepdim=True).sum(-1, keepdim=True)

    return {
        "lu_factor": (factor_sum, [wc(2)]),
        "lu_factor_wide": (lambda m, a: m.linalg.lu_factor(a)[0], [gen(3, 5)]),
        "lu_factor_tall": (lambda m, a: m.linalg.lu_factor(a)[0], [gen(2, 5, 3)]),
        "lu_factor_ex": (lambda m, a: m.linalg.lu_factor_ex(a).LU, [wc()]),
        "lu_L": (lambda m, a: m.linalg.lu(a).L, [wc(2)]),
        "lu_U": (lambda m, a: m.linalg.lu(a).U, [wc()]),
        "lu_both": (lu_loss, [wc(2)]),
        "lu_wide_L": (lambda m, a: m.linalg.lu(a).L, [gen(3, 5)]),
        "lu_wide_U": (lambda m, a: m.linalg.lu(a).U, [gen(3, 5)]),
        "lu_tall_L": (lambda m, a: m.linalg.lu(a).L, [gen(5, 3)]),
        "lu_tall_U": (lambda m, a: m.linalg.lu(a).U, [gen(2, 5, 3)]),
        "lu_solve": (lu_solve(), [wc(2), gen(2, 3, 2)]),
        "lu_solve_adjoint": (lu_solve(adjoint=True), [wc(), gen(3, 4)]),
        "lu_solve_right": (lu_solve(left=False), [wc(2), gen(2, 4, 3)]),
        "lu_solve_right_adjoint": (lu_solve(left=False, adjoint=True), [wc(), gen(4, 3)]),
        "lu_solve_broadcast": (lu_solve(), [wc(2, 1), gen(3, 3, 2)]),
        "lu_unpack_L": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a))[1], [wc(2)]),
        "lu_unpack_U_wide": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a))[2], [gen(3, 4)]),
        "solve_triangular_upper": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True), [wc(2), gen(2, 3, 2)]),
        "solve_triangular_lower": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False), [wc(), gen(3, 4)]),
        "solve_triangular_right": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True, left=False),
                                   [wc(2), gen(2, 4, 3)]),
        "solve_triangular_unit": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
                                  [wc(), gen(3, 2)]),
        "solve_triangular_unit_right": (lambda m, a, b: m.linalg.solve_triangular(
            a, b, upper=True, left=False, unitriangular=True), [wc(), gen(2, 3)]),
        "solve_triangular_broadcast": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
                                       [wc(2, 1), gen(3, 3, 2)]),
        "triangular_solve": (lambda m, b, a: m.triangular_solve(b, a).solution, [gen(3, 2), wc()]),
        "triangular_solve_transpose": (lambda m, b, a: m.triangular_solve(b, a, upper=False, transpose=True).solution,
                                       [gen(2, 3, 2), wc(2)]),
        "triangular_solve_both": (lambda m, b, a: _sum_both(m.triangular_solve(b, a, unitriangular=True)),
                                  [gen(3, 2), wc()]),
        "legacy_lu": (lambda m, a: m.lu(a)[0], [wc(2)]),
        "legacy_lu_solve": (lambda m, a, b: b.lu_solve(*a.lu()), [wc(2), gen(2, 3, 2)]),
    }


def _sum_both(result):
    return result.solution.sum(-1, keepdim=True) + result.cloned_coefficient


CASES = _inputs()


def _run(m, name, device):
    fn, arrays = CASES[name]
    kw = {} if device is None else {"device": device}
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True, **kw) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.triangular_solve's deprecation warning
        out = fn(m, *xs)
    upstream = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(m.tensor(upstream, dtype=out.dtype, **kw))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, device, torch, torch_device):
    out, grads = _run(framework, name, device)
    t_out, t_grads = _run(torch, name, torch_device)
    np.testing.assert_allclose(out.detach().cpu().numpy(), t_out.detach().cpu().numpy(), rtol=1e-9, atol=1e-9)
    for g, tg in zip(grads, t_grads):
        np.testing.assert_allclose(g.cpu().numpy(), tg.cpu().numpy(), rtol=1e-8, atol=1e-8)
    assert out.grad_fn.name() == t_out.grad_fn.name()


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name, device):
    fn, arrays = CASES[name]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True, device=device) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda *t: fn(framework, *t), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("name", ["lu_factor", "lu_both", "lu_wide_U", "lu_tall_L", "lu_solve", "lu_solve_adjoint",
                                  "lu_solve_right", "solve_triangular_right", "triangular_solve_both"])
def test_gradgradcheck(name, device):
    fn, arrays = CASES[name]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True, device=device) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradgradcheck(lambda *t: fn(framework, *t), xs, eps=1e-6, atol=1e-4, rtol=1e-3)


def test_factors_pivots_strides_and_nodes_match_torch(torch):
    def run(m):
        a = m.tensor([[[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [4.0, 0.0, 2.0]],
                      [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]], dtype=m.float64, requires_grad=True)
        LU, piv, info = m.linalg.lu_factor_ex(a)
        P, L, U = m.linalg.lu(a)
        Pu, Lu, Uu = m.lu_unpack(LU, piv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts = m.triangular_solve(a[0, :, :2], a[1])
        x = m.linalg.solve_triangular(a[0], a[1], upper=True)
        return (LU.tolist(), piv.tolist(), str(piv.dtype), info.tolist(), str(info.dtype), LU.stride(),
                LU.grad_fn.name(), P.tolist(), P.requires_grad, P.grad_fn, L.stride(), U.tolist(), L.grad_fn.name(),
                Lu.tolist() == L.tolist(), Pu.tolist() == P.tolist(), Lu.grad_fn.name(), Pu.requires_grad,
                ts.solution.grad_fn.name(), ts.cloned_coefficient.grad_fn.name(), x.stride(), x.grad_fn.name(),
                m.linalg.lu_solve(LU, piv, a[0, :, :2]).stride())

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours[0] == "ok" and str(ours).replace("framework", "torch") == str(theirs)


def test_legacy_lu_matches_torch(torch):
    def run(m):
        s = m.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=m.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            LU, piv, info = m.lu(s, get_infos=True)  # a singular A does not raise
            two = m.lu(s)
            m.lu_solve(m.ones(2, 1, dtype=m.float64), *m.lu(s + m.eye(2, dtype=m.float64)))
        return type(two).__name__, len(two), LU.tolist(), piv.tolist(), info.tolist(), caught

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours[1][:-1] == theirs[1][:-1]
    # torch warns once per process (TORCH_WARN_ONCE), so its texts are not here to compare: ours are its first lines
    firsts = {str(w.message).split("\n")[0] for w in ours[1][-1]}
    assert firsts == {"torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                      "be removed in a future PyTorch release.", "torch.lu_solve is deprecated in favor of "
                      "torch.linalg.lu_solveand will be removed in a future PyTorch release."}


def test_singular_and_empty_inputs_match_torch(torch):
    def run(m):
        s = m.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=m.float64)
        LU, piv, info = m.linalg.lu_factor_ex(s)
        P, L, U = m.linalg.lu(s)  # lu does not check
        x = m.linalg.solve_triangular(m.zeros(2, 2, dtype=m.float64), m.ones(2, 1, dtype=m.float64), upper=True)
        shapes = [tuple(t.shape) for t in m.linalg.lu_factor_ex(m.zeros(0, 3, 3))] + \
            [tuple(t.shape) for t in m.linalg.lu_factor_ex(m.zeros(2, 0, 0))] + \
            [tuple(t.shape) for t in m.linalg.lu(m.zeros(0, 3))]
        return LU.tolist(), piv.tolist(), info.tolist(), U.tolist(), [str(v) for v in x.flatten().tolist()], shapes

    assert outcome(run, framework) == outcome(run, torch)


def test_solve_triangular_reads_one_triangle_and_casts_b_to_as_dtype(torch):
    def run(m):
        a = m.tensor([[2.0, 1.0], [5.0, 4.0]], dtype=m.float64)
        b = m.tensor([[1.0], [2.0]])
        return (m.linalg.solve_triangular(a, b, upper=True).tolist(), m.linalg.solve_triangular(a, b, upper=False)
                .tolist(), str(m.linalg.solve_triangular(a.float(), b.double(), upper=True).dtype))

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert str(ours).replace("framework", "torch") == str(theirs)


def _error_cases(m):
    d = m.float64
    A = m.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=d)
    sing = m.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=d)
    LU, piv = m.linalg.lu_factor(A)
    L = m.linalg
    return {
        "lu_factor singular": lambda: L.lu_factor(sing),
        "lu_factor batch singular": lambda: L.lu_factor(m.stack([m.eye(2, dtype=d), sing])),
        "lu_factor_ex check_errors": lambda: L.lu_factor_ex(sing, check_errors=True),
        "lu_factor no pivot": lambda: L.lu_factor(A, pivot=False),
        "lu no pivot": lambda: L.lu(A, pivot=False),
        "lu_factor 1d": lambda: L.lu_factor(m.ones(3)),
        "lu_factor_ex 1d": lambda: L.lu_factor_ex(m.ones(3)),
        "lu 1d": lambda: L.lu(m.ones(3)),
        "lu_factor int": lambda: L.lu_factor(m.ones(3, 3, dtype=m.int64)),
        "lu bool": lambda: L.lu(m.ones(3, 3, dtype=m.bool)),
        "lu half": lambda: L.lu(m.eye(2, dtype=m.float16)),
        "lu_solve half": lambda: L.lu_solve(m.eye(2, dtype=m.float16), m.ones(2, dtype=m.int32),
                                            m.eye(2, dtype=m.float16)),
        "solve_triangular half": lambda: L.solve_triangular(m.eye(2, dtype=m.float16), m.eye(2, dtype=m.float16),
                                                            upper=True),
        "triangular_solve half": lambda: m.triangular_solve(m.eye(2, dtype=m.float16), m.eye(2, dtype=m.float16)),
        "lu_solve rect": lambda: L.lu_solve(*L.lu_factor(m.ones(2, 3, dtype=d) + m.eye(2, 3, dtype=d)),
                                            m.ones(2, 1, dtype=d)),
        "lu_solve shapes": lambda: L.lu_solve(LU, piv, m.ones(4, 2, dtype=d)),
        "lu_solve right shapes": lambda: L.lu_solve(LU, piv, m.ones(3, 2, dtype=d), left=False),
        "lu_solve 1d B": lambda: L.lu_solve(LU, piv, m.ones(3, dtype=d)),
        "lu_solve 1d LU": lambda: L.lu_solve(m.ones(2), m.ones(2, dtype=m.int32), m.ones(2, 1)),
        "lu_solve dtype": lambda: L.lu_solve(LU, piv, m.ones(3, 2)),
        "lu_solve int": lambda: L.lu_solve(m.ones(2, 2, dtype=m.int64), m.ones(2, dtype=m.int32),
                                           m.ones(2, 1, dtype=m.int64)),
        "lu_solve pivots dtype": lambda: L.lu_solve(LU, piv.long(), m.ones(3, 2, dtype=d)),
        "lu_solve pivots shape": lambda: L.lu_solve(LU, piv[:2], m.ones(3, 2, dtype=d)),
        "lu_unpack pivots dtype": lambda: m.lu_unpack(LU, piv.long()),
        "solve_triangular no upper": lambda: L.solve_triangular(A, A),
        "solve_triangular shapes": lambda: L.solve_triangular(A, m.ones(4, 2, dtype=d), upper=True),
        "solve_triangular right shapes": lambda: L.solve_triangular(A, m.ones(3, 2, dtype=d), upper=True, left=False),
        "solve_triangular 1d B": lambda: L.solve_triangular(A, m.ones(3, dtype=d), upper=True),
        "solve_triangular 1d A": lambda: L.solve_triangular(m.ones(3, dtype=d), A, upper=True),
        "solve_triangular rect": lambda: L.solve_triangular(m.ones(3, 2, dtype=d), A, upper=True),
        "solve_triangular int": lambda: L.solve_triangular(m.ones(2, 2, dtype=m.int64), m.ones(2, 1, dtype=m.int64),
                                                           upper=True),
        "triangular_solve 1d": lambda: m.triangular_solve(m.ones(2, 1), m.ones(2)),
        "triangular_solve shapes": lambda: m.triangular_solve(m.ones(3, 1), m.ones(2, 2)),
        "triangular_solve dtype": lambda: m.triangular_solve(m.ones(2, 1), m.ones(2, 2, dtype=d)),
    }


@pytest.mark.parametrize("name", sorted(_error_cases(framework)))
def test_errors_match_torch(name, torch):
    def run(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _error_cases(m)[name]()

    ours = outcome(run, framework)
    assert ours[0] == "error" and ours == outcome(run, torch)


def test_lu_factor_then_maximum_leaf_grad_version_matches_torch(torch):
    """The leaf gets two gradients: maximum's (other) and lu_factor's (through a + 4 eye); the sum's layout decides
    whether AccumulateGrad steals it or copies it into the leaf's strides, and so the grad's _version (fuzz seed
    4303053)."""
    a3 = np.array([[[-0.01, 0.88, -0.64], [-0.04, -0.26, 0.42], [0.52, -0.09, 0.55]],
                   [[-0.82, 0.89, 0.4], [-0.48, 0.62, -0.3], [0.77, 0.01, 0.52]]])
    a6 = np.array([[[[0.99, 1.46, -0.95], [-1.97, -1.75, -1.09], [-0.23, -1.06, 1.07]]],
                   [[[1.13, -0.79, -1.99], [-0.87, -1.41, 1.46], [-1.85, 0.55, -1.51]]]])

    def run(m):
        t3 = m.tensor(a3, dtype=m.float32, requires_grad=True)
        t4 = m.linalg.lu_factor(t3 + 4 * m.eye(3, dtype=t3.dtype))[0]
        t5 = m.maximum(t4, t3)
        t8 = m.tensor(a6, dtype=m.float32) / (t5.abs() + 1)
        (t8 * t8).sum().backward()
        return t3.grad._version, t3.grad.stride(), np.round(t3.grad.tolist(), 4).tolist()

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours[0] == "ok" and ours == theirs
