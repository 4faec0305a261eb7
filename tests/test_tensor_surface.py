"""More of torch.Tensor's surface (ops/shape/strided.py, random_fill.py, stats_more.py): unfold as a view, in-place
cumsum_/cumprod_/sign_, fill_diagonal_, random fills, cov's weights, storage queries, H/mH/adjoint and the
complex-number queries of a real tensor — against torch. Values and gradients of the differentiable ones, and
their float64 gradchecks, are op-table rows.
"""
import numpy as np
import pytest

import framework
from scenario import error_of
from framework.testing import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


def test_unfold_is_a_view_sharing_storage_and_version_as_torch():
    outs = []
    for m in (framework, torch):
        base = m.arange(12.0).reshape(3, 4)
        w = base.unfold(1, 2, 2)
        w.mul_(10)  # windows apart: every element once
        outs.append((tuple(w.shape), w.stride(), w._base is base, base._version, base.tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("args", [(0, 2, 1), (1, 3, 2), (1, 1, 5), (0, 3, 3), (-1, 4, 1)])
def test_unfold_values_gradients_and_double_backward_match_torch(args):
    a = np.random.default_rng(0).standard_normal((3, 4))
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = x.unfold(*args)
        g = m.tensor(np.arange(y.numel(), dtype=float).reshape(tuple(y.shape)), requires_grad=True)
        (gx,) = m.autograd.grad(y, x, g, create_graph=True)
        (gg,) = m.autograd.grad(gx.pow(2).sum(), g)
        outs.append((tuple(y.shape), _np(y), gx.grad_fn.name(), _np(gx), _np(gg)))
    assert outs[0][0] == outs[1][0] and outs[0][2] == outs[1][2]
    for o, t in zip(outs[0][1:], outs[1][1:]):
        if not isinstance(o, str):
            np.testing.assert_allclose(o, t, rtol=1e-12)


def test_unfold_gradchecks_without_torch():
    x = framework.tensor(np.random.default_rng(1).standard_normal((4, 5)), requires_grad=True)
    assert gradcheck(lambda t: t.unfold(1, 3, 1) * t.unfold(1, 3, 1), [x])
    assert gradgradcheck(lambda t: (t.unfold(0, 2, 2) ** 2).sum(), [x])


def test_unfold_errors_match_torch():
    for fn in (lambda m: m.zeros(4).unfold(0, 5, 1), lambda m: m.zeros(4).unfold(0, 2, 0),
               lambda m: m.zeros(4).unfold(0, -1, 1), lambda m: m.zeros(4).unfold(2, 1, 1)):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)
    assert framework.tensor(3.0).unfold(0, 1, 1).tolist() == torch.tensor(3.0).unfold(0, 1, 1).tolist()


@pytest.mark.parametrize("name,args", [("cumsum_", (1,)), ("cumprod_", (0,)), ("sign_", ()), ("reciprocal_", ()),
                                       ("rsqrt_", ())])
def test_in_place_twins_record_torchs_node_and_gradient(name, args):
    a = np.array([[0.5, 1.5, 2.0], [3.0, 0.25, 1.0]])
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = x * 1
        v = y._version
        r = getattr(y, name)(*args)
        r.backward(m.tensor(np.arange(6.0).reshape(2, 3)))
        outs.append((r is y, y._version - v, y.grad_fn.name(), _np(y), _np(x.grad)))
    assert outs[0][:3] == outs[1][:3]
    np.testing.assert_allclose(outs[0][3], outs[1][3], rtol=1e-12)
    np.testing.assert_allclose(outs[0][4], outs[1][4], rtol=1e-12)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 2), True), ((5, 2), False), ((2, 4), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal_matches_torch(shape, wrap):
    outs = []
    for m in (framework, torch):
        x = m.zeros(shape, requires_grad=True)
        y = x * 1
        y.fill_diagonal_(2.5, wrap=wrap)
        y.backward(m.ones(shape))
        outs.append((y.tolist(), x.grad.tolist()))
    assert outs[0] == outs[1]
    for fn in (lambda m: m.zeros(3).fill_diagonal_(1), lambda m: m.zeros(2, 3, 4).fill_diagonal_(1)):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs and ours[0] != "ok"


@pytest.mark.parametrize("name,args,check", [
    ("exponential_", (2.0,), lambda v: (v > 0).all() and abs(v.mean() - 0.5) < 0.05),
    ("cauchy_", (1.0, 0.5), lambda v: abs(np.median(v) - 1.0) < 0.1),
    ("log_normal_", (0.0, 0.5), lambda v: (v > 0).all() and abs(np.log(v).std() - 0.5) < 0.05),
    ("geometric_", (0.25,), lambda v: (v >= 1).all() and (v == np.round(v)).all() and abs(v.mean() - 4) < 0.3),
    ("random_", (2, 7), lambda v: set(np.unique(v)) == {2, 3, 4, 5, 6}),
    ("bernoulli_", (0.3,), lambda v: set(np.unique(v)) == {0, 1} and abs(v.mean() - 0.3) < 0.05),
])
def test_random_fills_draw_from_their_distribution_and_record_torchs_node(name, args, check):
    framework.manual_seed(3)
    x = framework.zeros(4000, requires_grad=True)
    y = x * 1
    getattr(y, name)(*args)
    assert check(_np(y))
    y.sum().backward()
    assert _np(x.grad).tolist() == [0.0] * 4000  # the gradient through a fill is zero, as torch's
    t = torch.zeros(3, requires_grad=True) * 1
    getattr(t, name)(*args)
    assert y.grad_fn.name() == t.grad_fn.name()
    framework.manual_seed(3)
    again = getattr(framework.zeros(4000), name)(*args)
    assert np.array_equal(_np(again), _np(y))  # the framework generator decides: same seed, same draws


def test_random_fill_defaults_and_errors_match_torch():
    assert set(np.unique(_np(framework.zeros(2000).random_(3)))) == {0, 1, 2}
    assert _np(framework.zeros(100, dtype=framework.int64).random_()).min() >= 0
    p = framework.tensor([0.0, 1.0, 0.0, 1.0])
    assert framework.zeros(4).bernoulli_(p).tolist() == [0.0, 1.0, 0.0, 1.0]
    for fn in (lambda m: m.zeros(3).exponential_(-1.0), lambda m: m.zeros(3).geometric_(1.5),
               lambda m: m.zeros(3).random_(5, 2), lambda m: m.zeros(3).bernoulli_(1.5)):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours[0] == theirs[0] != "ok", (ours, theirs)


def test_cov_with_weights_and_corrcoef_match_torch():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 6))
    fw = np.array([1, 2, 1, 3, 1, 1])
    aw = rng.uniform(0.5, 2.0, 6)
    for fn in (lambda m, t: m.cov(t, fweights=m.tensor(fw)), lambda m, t: m.cov(t, fweights=m.tensor(fw),
                                                                               aweights=m.tensor(aw)),
               lambda m, t: m.cov(t, correction=0, aweights=m.tensor(aw)), lambda m, t: t.cov(),
               lambda m, t: t.corrcoef(), lambda m, t: m.corrcoef(t[0])):
        outs = []
        for m in (framework, torch):
            t = m.tensor(x, requires_grad=True)
            y = fn(m, t)
            y.sum().backward()
            outs.append((y.grad_fn.name(), _np(y), _np(t.grad)))
        assert outs[0][0] == outs[1][0]
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-10, atol=1e-12)
    for fn in (lambda m: m.cov(m.zeros(2, 2, 2)), lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([1.0, 1, 1])),
               lambda m: m.cov(m.zeros(2, 3), aweights=m.tensor([1, 1, 1])),
               lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([1, -1, 1]))):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        framework.cov(framework.ones(2, 1))


def test_storage_and_dtype_queries_match_torch():
    for fn in (lambda m: m.arange(16.0).reshape(4, 4)[1:, 2:].storage_offset(),
               lambda m: m.arange(16.0).reshape(4, 4).t()[1].storage_offset(),
               lambda m: (m.zeros(3).itemsize, m.zeros(3, dtype=m.float64).nbytes, m.zeros(2, 2).nbytes),
               lambda m: (m.zeros(1).is_signed(), m.zeros(1, dtype=m.uint8).is_signed(),
                          m.zeros(1, dtype=m.bool).is_signed(), m.zeros(1, dtype=m.int32).is_signed()),
               lambda m: (m.zeros(2, 3).is_same_size(m.ones(2, 3)), m.zeros(2).is_same_size(m.zeros(3))),
               lambda m: (m.tensor([0.0]).is_nonzero(), m.tensor([2]).is_nonzero(), m.is_nonzero(m.tensor(1.0))),
               lambda m: (m.zeros(2).is_complex(), m.is_complex(m.zeros(1)), m.zeros(1).is_conj(),
                          m.zeros(1).is_neg()),
               lambda m: [str(m.zeros(2).byte().dtype), str(m.zeros(2).char().dtype), str(m.zeros(2).short().dtype)],
               lambda m: m.zeros(2).new_empty_strided((2, 3), (1, 2)).stride()):
        ours, theirs = fn(framework), fn(torch)
        if isinstance(ours, list):
            ours, theirs = [o.split(".")[-1] for o in ours], [t.split(".")[-1] for t in theirs]
        assert ours == theirs
    for fn in (lambda m: m.zeros(2).is_nonzero(), lambda m: m.zeros(0).is_nonzero(), lambda m: m.zeros(3).H,
               lambda m: m.zeros(3).mH, lambda m: m.zeros(3).adjoint(), lambda m: m.zeros(3).imag):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)


def test_conjugate_views_and_queries_of_a_real_tensor_match_torch():
    outs = []
    for m in (framework, torch):
        x = m.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = x * 1
        h, mh, adj = y[0].H, y.mH, y.adjoint()
        (h.sum() + mh.sum() + adj.sum()).backward()
        outs.append((tuple(h.shape), tuple(mh.shape), h._base is y, h.grad_fn.name(), adj.grad_fn.name(),
                     x.grad.tolist(), y.conj() is y, y.real is y, m.real(y) is y, y.resolve_conj() is y,
                     m.ravel(y.transpose(0, 2)).grad_fn.name(), m.ravel(y).tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("data", [np.float64(1.5), np.float32(1.5), np.float16(1.0), np.int32(3), np.int64(3),
                                  np.bool_(True), [np.float64(1.0), 2.0], [np.int32(1), 2],
                                  [np.float32(1.0), np.float64(2.0)], [True, 2.0], [[np.int32(1)], [np.int32(2)]]])
def test_tensor_infers_numpy_scalars_dtypes_as_torch(data):
    """torch.tensor(np.float64(x)) is float64 (a NumPy scalar keeps its dtype, promoted with the other elements'
    as torch promotes); it was float32 here."""
    for make in ("tensor", "as_tensor"):
        ours, theirs = getattr(framework, make)(data), getattr(torch, make)(data)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours.tolist() == theirs.tolist()


def test_tensor_of_tensors_keeps_their_dtype_as_torch():
    ours = framework.tensor([framework.tensor(1.0, dtype=framework.float64), framework.tensor(2.0)])
    theirs = torch.tensor([torch.tensor(1.0, dtype=torch.float64), torch.tensor(2.0)])
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "float64"


def test_cat_and_stack_write_contiguous_results_below_four_dims_as_torch():
    """NumPy's concatenate keeps its inputs' order: stacking transposed (or LAPACK column-major) matrices gave a
    Fortran-ordered result whose .view() failed where torch's works (found by the fuzzer)."""
    for fn in (lambda m, a: m.stack([a, a], 2), lambda m, a: m.stack([a, a], 0), lambda m, a: m.cat([a, a], 0),
               lambda m, a: m.cat([a, a], 1), lambda m, a: m.stack([m.linalg.inv(a + 3 * m.eye(3))] * 2, 2)):
        outs = []
        for m in (framework, torch):
            a = m.tensor(np.arange(9.0).reshape(3, 3)).t()
            y = fn(m, a)
            outs.append((y.stride(), y.is_contiguous(), tuple(y.reshape(-1).shape)))
        assert outs[0] == outs[1]


def test_mean_losses_of_empty_tensors_backpropagate_as_torch():
    outs = []
    for m in (framework, torch):
        x = m.tensor(0.59, requires_grad=True)
        e = x - m.zeros(0)
        loss = m.nn.functional.mse_loss(e, e)
        (loss * loss).sum().backward()
        outs.append((bool(loss.isnan()), x.grad.item()))
    assert outs[0] == outs[1]
