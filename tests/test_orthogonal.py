"""parametrizations.orthogonal (matrix_exp, cayley, householder; with and without the trivialization) vs torch,
and the ops it needs: geqrf and linalg.householder_product (values and errors vs torch, float64 gradcheck).

For tall or wide weights torch completes the matrix with its own random columns, so those comparisons copy torch's
state (original and base) in; a square weight needs no randomness and is compared from registration on.
"""
import numpy as np
import pytest

import framework
from framework.nn.utils.parametrizations import orthogonal
from framework.testing import assert_close, gradcheck

from scenario import error_of

MAPS = ["matrix_exp", "cayley", "householder"]
SHAPES = [(4, 4), (5, 3), (3, 5)]


def _tol(dtype, orthogonal_map=None):
    if dtype == "float64":
        return dict(rtol=1e-12, atol=1e-12)
    # framework's float32 matrix_exp (degree-18 Taylor, scaling and squaring) and torch's (degree chosen by
    # norm thresholds) differ by a few 1e-6, each about 1e-6 from the exact exponential; householder_product
    # applies the reflectors one by one where LAPACK's orgqr works in blocks: float32 roundings differ there too
    return {"matrix_exp": dict(rtol=2e-5, atol=2e-5), "householder": dict(rtol=5e-6, atol=5e-6)}.get(
        orthogonal_map, dict(rtol=1e-6, atol=1e-6))


def _close(ours, theirs, tol):
    """assert_close with the absolute tolerance scaled to the largest entry (float32 gradients summed in another
    order differ by a few ulps of their largest terms)."""
    expected = theirs.detach().numpy()
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    assert_close(ours.detach(), expected, rtol=tol["rtol"], atol=tol["atol"] * scale)


def _linear(m, shape, dtype):
    return m.nn.Linear(shape[1], shape[0]).to(getattr(m, dtype))


def _pair(torch, shape, dtype, copy_state=True, **kw):
    """torch's orthogonal Linear and ours; the same weights before registering, and after (copy_state)."""
    torch.manual_seed(0)
    plain = _linear(torch, shape, dtype)
    ours = _linear(framework, shape, dtype)
    ours.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in plain.state_dict().items()})
    theirs = torch.nn.utils.parametrizations.orthogonal(plain, **kw)
    ours = orthogonal(ours, **kw)
    if copy_state:
        ours.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


def _same_state(ours, theirs, tol):
    t_state, f_state = theirs.state_dict(), ours.state_dict()
    assert list(f_state) == list(t_state)
    for k, v in t_state.items():
        assert_close(f_state[k], v.detach().numpy(), **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("trivial", [True, False], ids=["trivialization", "plain"])
@pytest.mark.parametrize("shape", SHAPES, ids=["square", "tall", "wide"])
@pytest.mark.parametrize("orthogonal_map", MAPS)
def test_orthogonal_matches_torch_over_training_steps(torch, orthogonal_map, shape, trivial, dtype):
    theirs, ours = _pair(torch, shape, dtype, orthogonal_map=orthogonal_map, use_trivialization=trivial)
    tol = _tol(dtype, orthogonal_map)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.05)
    opt_f = framework.optim.SGD(ours.parameters(), lr=0.05)
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((6, shape[1]))
        t_out = theirs(torch.tensor(x, dtype=getattr(torch, dtype)))
        f_out = ours(framework.tensor(x, dtype=getattr(framework, dtype)))
        _close(f_out, t_out, tol)
        w = ours.weight.detach().cpu().numpy().astype(np.float64)
        if trivial or orthogonal_map != "householder" or shape[0] >= shape[1]:
            small = min(shape)
            gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
            np.testing.assert_allclose(gram, np.eye(small), atol=1e-5 if dtype == "float32" else 1e-12)
        opt_t.zero_grad(), opt_f.zero_grad()
        up = rng.standard_normal(tuple(t_out.shape))
        t_out.backward(torch.tensor(up, dtype=t_out.dtype))
        f_out.backward(framework.tensor(up, dtype=f_out.dtype))
        _close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad, tol)
        opt_t.step(), opt_f.step()
    _same_state(ours, theirs, tol)


@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("trivial", [True, False], ids=["trivialization", "plain"])
def test_orthogonal_registration_of_a_square_weight_matches_torch(torch, orthogonal_map, trivial):
    """No randomness for a square matrix: our own QR (geqrf, householder_product) must give torch's base."""
    theirs, ours = _pair(torch, (4, 4), "float64", copy_state=False, orthogonal_map=orthogonal_map,
                         use_trivialization=trivial)
    _same_state(ours, theirs, _tol("float64"))
    assert_close(ours.weight.detach(), theirs.weight.detach().numpy(), **_tol("float64"))


def test_orthogonal_batch_of_matrices_matches_torch(torch):
    class Batched:
        def __init__(self, m):
            self.module = m.nn.Module()
            self.module.weight = m.nn.Parameter(m.tensor(np.random.default_rng(4).standard_normal((2, 5, 3))))
    for orthogonal_map in MAPS:
        torch.manual_seed(1)
        theirs = torch.nn.utils.parametrizations.orthogonal(Batched(torch).module, orthogonal_map=orthogonal_map)
        ours = orthogonal(Batched(framework).module, orthogonal_map=orthogonal_map)
        ours.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
        assert_close(ours.weight.detach(), theirs.weight.detach().numpy(), **_tol("float64"))
        theirs.weight.sum().backward(), ours.weight.sum().backward()
        assert_close(ours.parametrizations.weight.original.grad,
                     theirs.parametrizations.weight.original.grad.numpy(), **_tol("float64"))


@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("trivial", [True, False], ids=["trivialization", "plain"])
def test_assigning_an_orthogonal_weight_matches_torch(torch, orthogonal_map, trivial):
    """module.weight = Q goes through right_inverse (a non-orthogonal square Q is orthogonalized by QR)."""
    theirs, ours = _pair(torch, (4, 4), "float64", orthogonal_map=orthogonal_map, use_trivialization=trivial)
    q = np.random.default_rng(5).standard_normal((4, 4))

    def assign(m, module):
        with m.no_grad():
            module.weight = m.tensor(q)
        return module.weight.detach().tolist()
    ours_out, theirs_out = error_of(lambda: assign(framework, ours)), error_of(lambda: assign(torch, theirs))
    assert ours_out == theirs_out
    if ours_out == ("ok",):
        _same_state(ours, theirs, _tol("float64"))
        assert_close(ours.weight.detach(), theirs.weight.detach().numpy(), **_tol("float64"))
    else:
        assert ours_out[0] == "NotImplementedError" and orthogonal_map != "householder" and not trivial


def test_orthogonal_errors_match_torch(torch):
    cases = [
        lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), name="nothing"),
        lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), name="bias"),
        lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), orthogonal_map="qr"),
        lambda m: setattr(m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3)), "weight", m.ones(2, 3)),
    ]
    for case in cases:
        assert error_of(lambda: case(framework)) == error_of(lambda: case(torch)) != ("ok",)


# ---- the ops: geqrf and linalg.householder_product ------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 6, 3)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_geqrf_and_householder_product_match_torch(torch, shape, dtype):
    x = np.random.default_rng(6).standard_normal(shape)
    a, tau = framework.geqrf(framework.tensor(x, dtype=getattr(framework, dtype)))
    ta, ttau = torch.geqrf(torch.tensor(x, dtype=getattr(torch, dtype)))
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    assert_close(a, ta.numpy(), **tol)
    assert_close(tau, ttau.numpy(), **tol)
    assert a.stride() == ta.stride()
    for k in range(shape[-1] + 1):  # fewer reflectors than columns too
        q = framework.linalg.householder_product(a, tau[..., :k].contiguous())
        tq = torch.linalg.householder_product(ta, ttau[..., :k].contiguous())
        assert_close(q, tq.numpy(), **tol)


def test_tensor_methods_geqrf_and_orgqr(torch):
    x = np.random.default_rng(10).standard_normal((4, 3))
    a, tau = framework.tensor(x).geqrf()
    ta, ttau = torch.tensor(x).geqrf()
    assert_close(a.orgqr(tau), ta.orgqr(ttau).numpy(), rtol=1e-12, atol=1e-12)
    assert_close(framework.orgqr(a, tau), torch.orgqr(ta, ttau).numpy(), rtol=1e-12, atol=1e-12)


def test_householder_product_gradients_match_torch(torch):
    rng = np.random.default_rng(7)
    x, t, up = rng.standard_normal((5, 3)), rng.standard_normal(2), rng.standard_normal((5, 3))
    fa, ft = framework.tensor(x, requires_grad=True), framework.tensor(t, requires_grad=True)
    ta, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
    framework.linalg.householder_product(fa, ft).backward(framework.tensor(up))
    torch.linalg.householder_product(ta, tt).backward(torch.tensor(up))
    assert_close(fa.grad, ta.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert_close(ft.grad, tt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((4, 4), 2), ((2, 3, 2), 2)])
def test_householder_product_gradcheck_and_gradgradcheck(shape, k):
    rng = np.random.default_rng(8)
    a = framework.tensor(rng.standard_normal(shape), requires_grad=True)
    tau = framework.tensor(rng.uniform(0.5, 1.5, shape[:-2] + (k,)), requires_grad=True)
    assert gradcheck(framework.linalg.householder_product, (a, tau))
    assert framework.autograd.gradgradcheck(framework.linalg.householder_product, (a, tau))


def test_householder_product_node_and_empty_tau_match_torch(torch):
    for k in (2, 0):
        names, grads = [], []
        for m in (torch, framework):
            a = m.ones(3, 2, dtype=m.float64, requires_grad=True)
            t = m.full((k,), 0.5, dtype=m.float64, requires_grad=True)
            out = m.linalg.householder_product(a, t)
            out.sum().backward()
            names.append(out.grad_fn.name())
            grads.append((a.grad is None, t.grad is None))
        assert names[0] == names[1] == "LinalgHouseholderProductBackward0"
        assert grads[0] == grads[1] == ((True, True) if k == 0 else (False, False))


def test_orthogonal_maps_gradcheck():
    """The three maps, composed of differentiable ops, against central differences (float64, no torch)."""
    from framework.nn.utils.orthogonal import _OrthMaps, _Orthogonal
    rng = np.random.default_rng(9)
    for shape in ((3, 3), (4, 2), (2, 4)):
        for kind in _OrthMaps:
            x = framework.tensor(rng.standard_normal(shape), requires_grad=True)
            orth = _Orthogonal(x, kind, use_trivialization=False)
            assert gradcheck(orth, (x,)), (shape, kind)


def test_householder_product_and_geqrf_errors_match_torch(torch):
    cases = [
        lambda m: m.linalg.householder_product(m.ones(3), m.ones(1)),
        lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(1)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(3)),
        lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(3, 2)),
        lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(2)),
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.float64)),
        lambda m: m.linalg.householder_product(m.ones(3, 2, dtype=m.int64), m.ones(2, dtype=m.int64)),
        lambda m: m.geqrf(m.ones(3)),
    ]
    for case in cases:
        assert error_of(lambda: case(framework)) == error_of(lambda: case(torch)) != ("ok",)
