"""framework.linalg and torch's top-level linear algebra: values, gradients and grad_fn names against torch
(float64, batched), float64 gradchecks that need no torch (gauge-invariant losses for eigh/svd, as torch's own
tests), and the errors (class and first line) for singular, indefinite, non-square and low-dimensional inputs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
from framework.autograd import gradcheck, gradgradcheck


def _sym(a):
    """The symmetric part: cholesky and eigh read one triangle, so a gradcheck needs a symmetric perturbation."""
    return (a + a.mT) / 2


def _svd_of(loss, full: bool = False):
    """A case applying ``loss(U, S, Vh)`` to linalg.svd's factors (gauge-invariant losses: sign flips cancel)."""
    return lambda m, a: loss(*m.linalg.svd(a, full_matrices=full))


def _inputs():
    rng = np.random.default_rng(0)

    def spd(*b, n=3):  # symmetric positive-definite, well conditioned
        a = rng.standard_normal(b + (n, n))
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)

    def gen(*s):
        return rng.standard_normal(s)

    def wc(*b, n=3):  # well-conditioned square matrices
        return rng.standard_normal(b + (n, n)) + 3 * np.eye(n)

    return {
        "inv": (lambda m, a: m.linalg.inv(a), [wc(2)]),
        "inverse": (lambda m, a: m.inverse(a), [wc()]),
        "inv_method": (lambda m, a: a.inverse(), [wc()]),
        "det": (lambda m, a: m.linalg.det(a), [wc(2)]),
        "det_top": (lambda m, a: a.det(), [wc()]),
        "slogdet": (lambda m, a: m.linalg.slogdet(a)[1], [wc(2)]),
        "logdet": (lambda m, a: m.logdet(a), [spd(2)]),
        "solve_mat": (lambda m, a, b: m.linalg.solve(a, b), [wc(2), gen(2, 3, 2)]),
        "solve_vec": (lambda m, a, b: m.linalg.solve(a, b), [wc(2), gen(2, 3)]),
        "solve_bc": (lambda m, a, b: m.linalg.solve(a, b), [wc(), gen(2, 3, 4)]),
        "solve_left": (lambda m, a, b: m.linalg.solve(a, b, left=False), [wc(), gen(2, 3)]),
        "cholesky": (lambda m, a: m.linalg.cholesky(_sym(a)), [spd(2)]),
        "cholesky_up": (lambda m, a: m.linalg.cholesky(_sym(a), upper=True), [spd(2)]),
        "cholesky_top": (lambda m, a: m.cholesky(_sym(a)), [spd()]),
        "qr": (lambda m, a: sum(x.sum() * (i+1) for i, x in enumerate(m.linalg.qr(a))), [gen(2, 4, 3)]),
        "qr_Q": (lambda m, a: m.linalg.qr(a)[0], [gen(2, 4, 3)]),
        "qr_wide": (lambda m, a: m.linalg.qr(a)[0] * 2 + m.linalg.qr(a)[1].sum(), [gen(3, 5)]),
        "qr_wideR": (lambda m, a: m.linalg.qr(a)[1], [gen(3, 5)]),
        "qr_sq_complete": (lambda m, a: m.linalg.qr(a, mode="complete")[1], [gen(3, 3)]),
        "eigh_vals": (lambda m, a: m.linalg.eigvalsh(_sym(a)), [spd(2)]),
        "eigh_gauge": (lambda m, a: (lambda L, V: (V * V.pow(1)).pow(2).sum(-1) + L)(*m.linalg.eigh(_sym(a))),
                       [spd(2)]),
        "eigh_recon": (lambda m, a: (lambda L, V: V @ m.diag_embed(L.exp()) @ V.mT)(*m.linalg.eigh(_sym(a))), [spd(2)]),
        "svdvals": (lambda m, a: m.linalg.svdvals(a), [gen(2, 4, 3)]),
        "svd_recon": (_svd_of(lambda U, S, Vh: (U * S.unsqueeze(-2).exp()) @ Vh),
                      [gen(2, 4, 3)]),
        "svd_recon_wide": (_svd_of(lambda U, S, Vh: (U * S.unsqueeze(-2).exp()) @ Vh),
                           [gen(2, 3, 5)]),
        "svd_UUt": (_svd_of(lambda U, S, Vh: (U @ U.mT).sin().sum() + (Vh.mT @ Vh).sin().sum()),
                    [gen(4, 3)]),
        "svd_UUt_wide": (_svd_of(lambda U, S, Vh: (U @ U.mT).sin().sum() + (Vh.mT @ Vh).sin().sum() * 2),
                         [gen(3, 4)]),
        "svd_abs": (_svd_of(lambda U, S, Vh: U.abs().sum() + Vh.abs().sum() * 2),
                    [gen(4, 3)]),
        "svd_abs_wide": (_svd_of(lambda U, S, Vh: U.abs().sum() + Vh.abs().sum() * 2),
                         [gen(3, 4)]),
        "svd_full": (_svd_of(lambda U, S, Vh: (U[..., :3] * S.unsqueeze(-2)) @ Vh, full=True),
                     [gen(4, 3)]),
        "torch_svd": (lambda m, a: (lambda U, S, V: (U * S.unsqueeze(-2).sin()) @ V.mT)(*m.svd(a)), [gen(4, 3)]),
        "pinv": (lambda m, a: m.linalg.pinv(a), [gen(2, 4, 3)]),
        "pinv_wide": (lambda m, a: m.linalg.pinv(a), [gen(3, 5)]),
        "pinverse": (lambda m, a: m.pinverse(a), [gen(3, 5)]),
        "lstsq": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [gen(5, 3), gen(5, 2)]),
        "lstsq_b": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [gen(2, 5, 3), gen(2, 5, 2)]),
        "lstsq_vec": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [gen(5, 3), gen(5)]),
        "matrix_power3": (lambda m, a: m.linalg.matrix_power(a, 3), [gen(2, 3, 3)]),
        "matrix_power5": (lambda m, a: m.matrix_power(a, 5), [gen(3, 3)]),
        "matrix_power_neg": (lambda m, a: m.linalg.matrix_power(a, -2), [wc()]),
        "matrix_power0": (lambda m, a: m.linalg.matrix_power(a, 0) * a, [gen(2, 3, 3)]),
        "matrix_power1": (lambda m, a: a.matrix_power(1), [wc()]),
        "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), [gen(2, 3, 3)]),
        "matrix_exp_big": (lambda m, a: m.matrix_exp(a * 3), [gen(4, 4)]),
        "cross": (lambda m, a, b: m.linalg.cross(a, b), [gen(4, 3), gen(4, 3)]),
        "multi_dot": (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [gen(3), gen(3, 4), gen(4, 2)]),
        "multi_dot4": (lambda m, a, b, c, d: m.linalg.multi_dot([a, b, c, d]), 
                       [gen(2, 3), gen(3, 4), gen(4, 2), gen(2, 5)]),
        "multi_dot5": (lambda m, a, b, c, d, e: m.linalg.multi_dot([a, b, c, d, e]),
                       [gen(6, 2), gen(2, 5), gen(5, 1), gen(1, 4), gen(4, 3)]),
        "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), [gen(4, 3), gen(3)]),
        "ldiagonal": (lambda m, a: m.linalg.diagonal(a), [gen(2, 3, 3)]),
        "vector_norm": (lambda m, a: m.linalg.vector_norm(a, 3, dim=-1), [gen(2, 3)]),
        "matrix_norm_fro": (lambda m, a: m.linalg.matrix_norm(a), [gen(2, 3, 3)]),
        "matrix_norm_nuc": (lambda m, a: m.linalg.matrix_norm(a, "nuc"), [gen(2, 3, 4)]),
        "matrix_norm_2": (lambda m, a: m.linalg.matrix_norm(a, 2), [gen(2, 3, 4)]),
        "matrix_norm_1": (lambda m, a: m.linalg.matrix_norm(a, 1, keepdim=True), [gen(2, 3, 4)]),
        "matrix_norm_inf": (lambda m, a: m.linalg.matrix_norm(a, float('inf'), dim=(0, 2)), [gen(2, 3, 4)]),
        "lnorm": (lambda m, a: m.linalg.norm(a), [gen(2, 3, 4)]),
        "lnorm_mat": (lambda m, a: m.linalg.norm(a, 'nuc'), [gen(3, 4)]),
        "lnorm_vec": (lambda m, a: m.linalg.norm(a, 1, dim=1), [gen(3, 4)]),
        "tensordot": (lambda m, a, b: m.tensordot(a, b, dims=2), [gen(2, 3, 4), gen(3, 4, 5)]),
        "tensordot_l": (lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0])), [gen(2, 3, 4), gen(4, 2, 5)]),
        "kron": (lambda m, a, b: m.kron(a, b), [gen(2, 3), gen(3, 2)]),
        "kron_nd": (lambda m, a, b: a.kron(b), [gen(3), gen(2, 2)]),
        "inner": (lambda m, a, b: m.inner(a, b), [gen(2, 3), gen(4, 3)]),
        "inner_v": (lambda m, a, b: a.inner(b), [gen(3), gen(3)]),
        "addmv": (lambda m, a, b, c: m.addmv(a, b, c, beta=0.5, alpha=2), [gen(3), gen(3, 4), gen(4)]),
        "addr": (lambda m, a, b, c: a.addr(b, c, alpha=3), [gen(3, 4), gen(3), gen(4)]),
        "addbmm": (lambda m, a, b, c: m.addbmm(a, b, c, beta=2), [gen(3, 2), gen(4, 3, 5), gen(4, 5, 2)]),
        "chain_matmul": (lambda m, a, b, c: m.chain_matmul(a, b, c), [gen(2, 3), gen(3, 4), gen(4, 2)]),
        "dist": (lambda m, a, b: m.dist(a, b), [gen(3, 4), gen(4)]),
        "dist3": (lambda m, a, b: a.dist(b, 3), [gen(3, 4), gen(3, 4)]),
        "dist_inf": (lambda m, a, b: a.dist(b, float('inf')), [gen(3, 4), gen(3, 4)]),
        "dist1": (lambda m, a, b: a.dist(b, 1), [gen(3, 4), gen(3, 4)]),
        "cdist": (lambda m, a, b: m.cdist(a, b), [gen(2, 3, 4), gen(2, 5, 4)]),
        "cdist1": (lambda m, a, b: m.cdist(a, b, p=1), [gen(3, 4), gen(5, 4)]),
        "cdist3": (lambda m, a, b: m.cdist(a, b, p=3), [gen(3, 4), gen(5, 4)]),
        "cdist_inf": (lambda m, a, b: m.cdist(a, b, p=float('inf')), [gen(3, 4), gen(5, 4)]),
        "diag_embed": (lambda m, a: m.diag_embed(a, offset=1, dim1=0, dim2=2), [gen(2, 3)]),
        "diag_embed_m": (lambda m, a: a.diag_embed(), [gen(2, 3)]),
        "diagflat": (lambda m, a: m.diagflat(a, -1), [gen(2, 2)]),
        "block_diag": (lambda m, a, b, c: m.block_diag(a, b, c), [gen(2, 3), gen(3), gen()]),
    }


CASES = _inputs()


def _run(m, name, device, dtype="float64"):
    fn, arrays = CASES[name]
    kw = {} if device is None else {"device": device}
    xs = [m.tensor(a, dtype=getattr(m, dtype), requires_grad=True, **kw) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cholesky/qr/chain_matmul's deprecation warnings
        out = fn(m, *xs)
    upstream = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(m.tensor(upstream, dtype=out.dtype, **kw))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, device, torch, torch_device):
    out, grads = _run(framework, name, device)
    t_out, t_grads = _run(torch, name, torch_device)
    assert out.device == device
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


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve_mat", "cholesky", "qr_Q", "eigh_recon",
                                  "svd_recon", "pinv", "matrix_exp"])  # cdist: torch has no second derivative
def test_gradgradcheck(name, device):
    fn, arrays = CASES[name]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True, device=device) for a in arrays]
    assert gradgradcheck(lambda *t: fn(framework, *t), xs, eps=1e-6, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("p", [0.0, 1.0, 1.5, 2.0, float("inf")])
def test_cdist_gradient_is_torchs_cdist_backward_without_a_derivative(p):
    """torch's cdist gradients come out of _cdist_backward (CdistBackwardBackward0, an expanded batch input's summed
    back: SumBackward1), which has no derivative: differentiating it raises torch's NotImplementedError."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b, g = rng.standard_normal((2, 3, 4)), rng.standard_normal((1, 5, 4)), rng.standard_normal((2, 3, 5))

    def run(m):
        x1, x2 = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        g1, g2 = m.autograd.grad(m.cdist(x1, x2, p=p), [x1, x2], m.tensor(g), create_graph=True)
        with pytest.raises(NotImplementedError) as err:
            (g1.sum() + g2.sum()).backward()
        return (g1.grad_fn.name(), g2.grad_fn.name(), str(err.value), g1.detach().cpu().numpy(),
                g2.detach().cpu().numpy())

    ours, theirs = run(framework), run(torch)
    assert ours[:3] == theirs[:3] == ("CdistBackwardBackward0", "SumBackward1",
                                      "the derivative for '_cdist_backward' is not implemented.")
    for x, y in zip(ours[3:], theirs[3:]):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)


def _error_cases(m):
    """name -> a call that raises (the same text run with framework and with torch)."""
    def t(a):
        return m.tensor(np.array(a, dtype=float), dtype=m.float64)

    def f32(shape):
        return m.ones(*shape, dtype=m.float32)

    L = m.linalg
    sing = t([[1.,2.],[2.,4.]])
    sing3 = t([[1.,2.,3],[2.,4.,6], [1,1,1]])
    nonsq = t(np.ones((2,3)))
    vec = t(np.ones(3))
    ints = m.ones(2,2, dtype=m.int64); npd = t([[1.,2.],[2.,1.]]); eye2 = t(np.eye(2))
    bnpd = m.stack([eye2, npd])
    return {
        "inv sing": lambda: L.inv(sing),
        "inv sing3": lambda: L.inv(sing3),
        "inv batch sing": lambda: L.inv(m.stack([eye2, sing])),
        "inv nonsq": lambda: L.inv(nonsq), "inv vec": lambda: L.inv(vec), "inv int": lambda: L.inv(ints),
        "inverse sing": lambda: m.inverse(sing), "inv zero": lambda: L.inv(t(np.zeros((3, 3)))),
        "chol npd": lambda: L.cholesky(npd),
        "chol bnpd": lambda: L.cholesky(bnpd),
        "chol nonsq": lambda: L.cholesky(nonsq),
        "t.chol npd": lambda: m.cholesky(npd),
        "det nonsq": lambda: L.det(nonsq),
        "det vec": lambda: L.det(vec),
        "det int": lambda: L.det(ints),
        "slogdet nonsq": lambda: L.slogdet(nonsq),
        "solve sing": lambda: L.solve(sing, t(np.ones(2))),
        "solve bsing": lambda: L.solve(m.stack([eye2, sing]), t(np.ones((2,2)))),
        "solve nonsq": lambda: L.solve(nonsq, vec), "solve mismatch": lambda: L.solve(t(np.eye(3)), t(np.ones(2))),
        "solve mismatch2": lambda: L.solve(t(np.eye(3)), t(np.ones((2,2)))),
        "eigh nonsq": lambda: L.eigh(nonsq),
        "qr vec": lambda: L.qr(vec),
        "qr mode": lambda: L.qr(sing, mode='foo'),
        "svd vec": lambda: L.svd(vec),
        "matrix_power nonsq": lambda: L.matrix_power(nonsq, 2),
        "matrix_power sing neg": lambda: L.matrix_power(sing, -1),
        "matrix_exp nonsq": lambda: L.matrix_exp(nonsq), "multi_dot 1": lambda: L.multi_dot([nonsq]),
        "multi_dot bad": lambda: L.multi_dot([nonsq, nonsq]), "pinv vec": lambda: L.pinv(vec),
        "tensordot bad": lambda: m.tensordot(nonsq, nonsq, dims=1),
        "cdist bad": lambda: m.cdist(nonsq, t(np.ones((2,2)))), "cdist 1d": lambda: m.cdist(vec, vec),
        "addmv bad": lambda: m.addmv(vec, nonsq, vec), "addr bad": lambda: m.addr(nonsq, vec, vec),
        "matrix_norm vec": lambda: L.matrix_norm(vec), "matrix_norm ord": lambda: L.matrix_norm(nonsq, 3),
        "qr r grad": lambda: L.qr(sing.clone().requires_grad_(), mode='r')[1].sum().backward(),
        "qr complete grad": lambda: L.qr(nonsq.T.clone().requires_grad_(), mode='complete')[0].sum().backward(),
        "block_diag 3d": lambda: m.block_diag(m.ones(2,2,2)),
        "norm 3d ord": lambda: L.norm(m.ones(2,2,2), 2),
        "inner bad": lambda: m.inner(vec, t(np.ones(2))),
        "lstsq bad": lambda: L.lstsq(nonsq, t(np.ones(3))),
        "cdist dtypes": lambda: m.cdist(f32((3, 4)), t(np.ones((2, 4)))),
        "cdist int": lambda: m.cdist(ints, ints),
        "solve dtypes": lambda: L.solve(t(np.eye(2)), f32((2,))),
        "tensordot dtypes": lambda: m.tensordot(f32((3, 4)), t(np.ones((4, 2))), dims=1),
        "inner dtypes": lambda: m.inner(vec, f32((3,))),
        "multi_dot dtypes": lambda: L.multi_dot([f32((3,)), f32((3, 4)), t(np.ones((4, 2)))]),
        "addmv dtypes": lambda: m.addmv(f32((2,)), nonsq, vec),
        "addbmm dtypes": lambda: m.addbmm(f32((3, 2)), f32((4, 3, 5)), m.ones(4, 5, 2, dtype=m.float64)),
        "addbmm batch dtypes": lambda: m.addbmm(f32((3, 2)), m.ones(4, 3, 5, dtype=m.float64), f32((4, 5, 2))),
        "vecdot dtypes": lambda: L.vecdot(nonsq, f32((3,))),
        "lstsq dtypes": lambda: L.lstsq(t(np.ones((4, 3))), f32((4, 2))),
        "dist int": lambda: m.dist(ints, ints),
        "eigh int": lambda: L.eigh(ints),
        "matrix_norm int": lambda: L.matrix_norm(ints),
        "addbmm bad": lambda: m.addbmm(t(np.ones((2, 2))), m.ones(2, 2, 3, dtype=m.float64),
                                      m.ones(2, 2, 2, dtype=m.float64)),
        "diag_embed same": lambda: m.diag_embed(vec, dim1=0, dim2=0),
        "tensordot neg": lambda: m.tensordot(nonsq, nonsq, dims=-1),
    }


def _raised(call) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as e:  # noqa: BLE001  (any class: compared with torch's)
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "no error"


ERROR_CASES = sorted(_error_cases(framework))


@pytest.mark.parametrize("name", ERROR_CASES)
def test_errors_match_torch(name, torch):
    assert _raised(_error_cases(framework)[name]) == _raised(_error_cases(torch)[name])


def test_singular_and_indefinite_errors_without_torch():
    sing = framework.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=framework.float64)
    with pytest.raises(framework.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 2 is zero, the "
                       r"inversion could not be completed because the input matrix is singular.$"):
        framework.linalg.inv(sing)
    assert issubclass(framework.linalg.LinAlgError, RuntimeError)
    assert framework.linalg.LinAlgError.__name__ == "_LinAlgError"  # torch._C._LinAlgError's name
    batch = framework.stack([framework.eye(2, dtype=framework.float64), sing])
    with pytest.raises(framework.linalg.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The diagonal "):
        batch.inverse()
    npd = framework.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=framework.float64)
    with pytest.raises(framework.linalg.LinAlgError, match=r"the leading minor of order 2 is not positive-definite"):
        framework.linalg.cholesky(npd)
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        framework.linalg.det(framework.ones(2, 3, dtype=framework.float64))


def test_matrix_power_zero_is_torchs_copy_of_the_identity():
    a = framework.tensor(np.ones((2, 3, 3)), dtype=framework.float64, requires_grad=True)
    out = framework.linalg.matrix_power(a, 0)
    assert out.grad_fn.name() == "torch::autograd::CopyBackwards" and out._version == 1  # as torch's C++ node
    assert out.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    out.sum().backward()
    assert float(a.grad.abs().sum()) == 0.0


@pytest.mark.parametrize("shapes", [[((2, 3), "float32"), ((3,), "float64")], [((), "float64"), ((2, 2), "float32")],
                                    [((3,), "float64"), ((), "float64"), ((0,), "float32"), ((1,), "float32")],
                                    [((2, 3), "float32"), ((2, 3), "float32")]])
def test_block_diag_dtype_and_gradients_as_torchs(torch, shapes):
    # torch: result_type over the inputs (a 0-d float64 does not widen a float32 matrix); a 1-D input's gradient is
    # its (1, n) row summed by the engine (a new tensor, version 0), a 0-d one a squeezed view; an empty 1-D input
    # takes no row in backward; the second backward accumulates in place
    def run(m):
        xs = [m.tensor(np.arange(1.0, 1.0 + np.prod(s)).reshape(s), dtype=getattr(m, d), requires_grad=True)
              if np.prod(s) else m.ones(s, dtype=getattr(m, d), requires_grad=True) for s, d in shapes]
        y = m.block_diag(*xs)
        grads = m.autograd.grad((y * y).sum(), xs, create_graph=True)
        names = [type(g.grad_fn).__name__ for g in grads]
        (y * y).sum().backward()
        (y * 3).sum().backward()
        return str(y.dtype), names, [(x.grad.tolist(), x.grad._version) for x in xs]

    assert run(framework)[1:] == run(torch)[1:] and run(framework)[0][-7:] == run(torch)[0][-7:]


def test_repeated_singular_values_and_eigenvalues_keep_finite_gradients():
    # svdvals/eigvalsh: the unused factors' gradients are None (torch's undefined), not zeros that would meet a
    # 0 / 0 in the factors' terms where values repeat
    a = framework.tensor(np.eye(3) * 3 + 0.1, dtype=framework.float64, requires_grad=True)
    framework.linalg.svdvals(a).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), np.eye(3), atol=1e-12)
    a.grad = None
    framework.linalg.eigvalsh(a).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), np.eye(3), atol=1e-12)
    a.grad = None
    framework.linalg.qr(a).R.sum().backward()  # Q unused: its gradient is None
    assert np.isfinite(a.grad.cpu().numpy()).all()


def test_inv_ex_reports_lapack_info_and_raises_only_when_asked(torch):
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    got = [m.linalg.inv_ex(m.tensor(a, dtype=m.float64)) for m in (framework, torch)]
    assert got[0].info.cpu().tolist() == got[1].info.cpu().tolist() == [2, 0]
    np.testing.assert_allclose(got[0].inverse[1].cpu().numpy(), got[1].inverse[1].cpu().numpy(), rtol=1e-12)
    assert _raised(lambda: framework.linalg.inv_ex(framework.tensor(a), check_errors=True)) == \
        _raised(lambda: torch.linalg.inv_ex(torch.tensor(a), check_errors=True))


def test_slogdet_of_a_singular_matrix_is_minus_inf_and_its_backward_does_not_raise():
    a = framework.zeros(2, 2, dtype=framework.float64, requires_grad=True)
    sign, logabs = framework.linalg.slogdet(a)
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    logabs.backward()  # torch's unchecked inverse: a non-finite gradient, no error
    assert not np.isfinite(a.grad.cpu().numpy()).all()


def test_singular_det_gradient_is_the_cofactor_matrix():
    a = framework.tensor([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.0, 1.0, 3.0]], dtype=framework.float64,
                         requires_grad=True)
    framework.linalg.det(a).backward()
    cofactor = np.array([[12.0 - 1.0, -(6.0 - 0.0), 2.0 - 0.0], [-(6.0 - 0.5), 3.0, -(1.0 - 0.0)],
                         [2.0 - 2.0, -(1.0 - 1.0), 4.0 - 4.0]])
    np.testing.assert_allclose(a.grad.cpu().numpy(), cofactor, atol=1e-12)


def test_result_tuples_and_conventions():
    a = framework.tensor(np.random.default_rng(3).standard_normal((4, 3)), dtype=framework.float64)
    u, s, v = framework.svd(a)  # torch.svd: V, reduced by default
    assert tuple(u.shape) == (4, 3) and tuple(v.shape) == (3, 3)
    np.testing.assert_allclose(((u * s) @ v.mT).numpy() if a.device == "cpu" else ((u * s) @ v.mT).cpu().numpy(),
                               a.cpu().numpy(), atol=1e-12)
    u, s, vh = framework.linalg.svd(a)  # linalg.svd: Vh, full by default
    assert tuple(u.shape) == (4, 4) and tuple(vh.shape) == (3, 3)
    sq = a[:3] + 3 * framework.eye(3, dtype=framework.float64)
    sign, logabs = framework.linalg.slogdet(sq)
    assert float(sign * logabs.exp()) == pytest.approx(float(framework.linalg.det(sq)))
    res = framework.linalg.lstsq(a, a[:, :2])
    assert int(res.rank) == 3 and tuple(res.solution.shape) == (3, 2)
    assert tuple(framework.block_diag().shape) == (1, 0)  # torch's shape for no blocks
    q, r = framework.linalg.qr(a, mode="r")
    assert tuple(q.shape) == (0,) and tuple(r.shape) == (3, 3)
    names = ["vector_norm", "matrix_norm", "norm", "inv", "det", "slogdet", "solve", "cholesky", "qr", "eigh",
             "eigvalsh", "svd", "svdvals", "pinv", "matrix_power", "matrix_exp", "cross", "multi_dot", "vecdot",
             "lstsq", "diagonal"]
    assert all(callable(getattr(framework.linalg, n)) for n in names)
    for method in ("det", "logdet", "slogdet", "inverse", "pinverse", "cholesky", "qr", "svd", "matrix_power",
                   "matrix_exp", "kron", "inner", "addmv", "addr", "addbmm", "dist", "diag_embed", "diagflat"):
        assert hasattr(framework.Tensor, method)


@pytest.mark.explicit_device  # framework.compile captures NumPy steps (as tests/test_compile.py)
def test_compiled_step_with_linalg_ops_equals_eager():
    """framework.compile replays the LAPACK calls (numpy's named-tuple results: SVDResult, EighResult...)."""
    device = "cpu"
    w = framework.tensor(np.eye(3) * 3 + 0.1, dtype=framework.float64, requires_grad=True, device=device)

    def step(x):
        la = framework.linalg
        y = (la.inv(w) @ x).sum() + la.det(w) + la.cholesky(w @ w.mT).sum() + la.svdvals(w).sum() \
            + la.eigvalsh(w @ w.mT).sum() + la.solve(w, x).sum() + framework.cdist(w, x.mT).sum() \
            + la.slogdet(w)[1] + la.qr(w)[0].sum() + la.pinv(w).sum()
        loss = y * y
        w.grad = None
        loss.backward()
        return loss.detach(), w.grad.clone()

    compiled = framework.compile(step)
    for i in range(4):
        x = framework.tensor(np.random.default_rng(i).standard_normal((3, 2)), dtype=framework.float64, device=device)
        (l1, g1), (l2, g2) = step(x), compiled(x)
        assert float(l1) == float(l2)
        np.testing.assert_array_equal(g1.cpu().numpy(), g2.cpu().numpy())
    assert compiled.replays >= 1
