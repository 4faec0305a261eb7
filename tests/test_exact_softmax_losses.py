"""PyTorch-exactness of the softmax family without ``dim``, of sigmoid past exp's overflow and of losses given an
integer target (issue 33), each against torch: the legacy implicit dim with its deprecation warning, and the loss's
dtype, value, gradient dtype or error (class and first sentence) for float32/float64 inputs with int64/int32/bool
targets.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")

SOFTMAXES = {
    "softmax": lambda m, x: m.nn.functional.softmax(x),
    "log_softmax": lambda m, x: m.nn.functional.log_softmax(x),
    "softmin": lambda m, x: m.nn.functional.softmin(x),
    "nn.Softmax": lambda m, x: m.nn.Softmax()(x),
    "nn.LogSoftmax": lambda m, x: m.nn.LogSoftmax()(x),
    "nn.Softmin": lambda m, x: m.nn.Softmin()(x),
    "softmax_stacklevel": lambda m, x: m.nn.functional.softmax(x, _stacklevel=2, dtype=m.float64),
}


def _run_warned(m, fn, shape):
    x = m.tensor(np.arange(float(np.prod(shape))).reshape(shape) / 7, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(m, x)
    out.sum().backward()
    return out, x.grad, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", sorted(SOFTMAXES))
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4), (2, 1, 3, 2)])
def test_implicit_dim_matches_torch(name, shape):
    ours, ours_grad, ours_warn = _run_warned(framework, SOFTMAXES[name], shape)
    ref, ref_grad, ref_warn = _run_warned(torch, SOFTMAXES[name], shape)
    assert ours_warn == ref_warn and len(ref_warn) == 1  # the same category and text, once
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours_grad.cpu().numpy(), ref_grad.numpy(), rtol=1e-5, atol=1e-6)
    assert type(ours.grad_fn).__name__ == type(ref.grad_fn).__name__


def test_implicit_dim_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        framework.nn.functional.log_softmax(framework.ones(2, 3))
    assert caught[0].filename == __file__  # _stacklevel=3: the line that called F.log_softmax


LOSSES = {
    "mse_loss": lambda F, a, t: F.mse_loss(a, t),
    "mse_loss_none": lambda F, a, t: F.mse_loss(a, t, reduction="none"),
    "mse_loss_broadcast": lambda F, a, t: F.mse_loss(a, t[0]),
    "l1_loss": lambda F, a, t: F.l1_loss(a, t, reduction="sum"),
    "smooth_l1_loss": lambda F, a, t: F.smooth_l1_loss(a, t, beta=0.5),
    "huber_loss": lambda F, a, t: F.huber_loss(a, t),
    "soft_margin_loss": lambda F, a, t: F.soft_margin_loss(a, t),
    "poisson_nll_loss": lambda F, a, t: F.poisson_nll_loss(a, t),
    "poisson_nll_loss_full": lambda F, a, t: F.poisson_nll_loss(a.abs() + 0.5, t, log_input=False, full=True),
    "gaussian_nll_loss": lambda F, a, t: F.gaussian_nll_loss(a, t, a.detach().abs() + 1),
    "kl_div": lambda F, a, t: F.kl_div(a, t, reduction="batchmean"),
    "kl_div_log_target": lambda F, a, t: F.kl_div(a, t, reduction="sum", log_target=True),
    "binary_cross_entropy": lambda F, a, t: F.binary_cross_entropy(a.sigmoid(), t),
    "bce_with_logits": lambda F, a, t: F.binary_cross_entropy_with_logits(a, t),
    "bce_with_logits_pos_weight": lambda F, a, t: F.binary_cross_entropy_with_logits(a, t, pos_weight=a.detach()),
    "hinge_embedding_loss": lambda F, a, t: F.hinge_embedding_loss(a, t),
    "multilabel_soft_margin_loss": lambda F, a, t: F.multilabel_soft_margin_loss(a, t),
    "margin_ranking_loss": lambda F, a, t: F.margin_ranking_loss(a, a.detach() * 0.5, t),
    "cross_entropy_probabilities": lambda F, a, t: F.cross_entropy(a, t),
    "nn.MSELoss": lambda F, a, t: F.__nn__.MSELoss()(a, t),
    "nn.SmoothL1Loss": lambda F, a, t: F.__nn__.SmoothL1Loss()(a, t),
    "nn.HuberLoss": lambda F, a, t: F.__nn__.HuberLoss(reduction="sum")(a, t),
}
NONNEGATIVE = {"binary_cross_entropy", "kl_div", "multilabel_soft_margin_loss", "poisson_nll_loss_full",
               "bce_with_logits", "bce_with_logits_pos_weight"}


class _Functional:
    """m.nn.functional with m.nn reachable (so one lambda covers the modules too)."""

    def __init__(self, m):
        self.__nn__ = m.nn

    def __getattr__(self, name):
        return getattr(self.__nn__.functional, name)


def _loss_outcome(m, name, dtype, target_dtype):
    a = m.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=getattr(m, dtype), requires_grad=True)
    values = np.array([[1, -1, 1, 0], [0, 1, -1, 1], [1, 1, 0, -1]])
    if name in NONNEGATIVE:
        values = np.abs(values)
    t = m.tensor(values != 0 if target_dtype == "bool" else values, dtype=getattr(m, target_dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = LOSSES[name](_Functional(m), a, t)
            loss.sum().backward()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e).split("\n")[0].replace("framework", "torch")
    return (str(loss.dtype).split(".")[-1], np.round(loss.detach().cpu().double().numpy(), 4).tolist(),
            str(a.grad.dtype).split(".")[-1])


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("target_dtype", ["int64", "int32", "bool"])
def test_loss_with_integer_target_matches_torch(name, dtype, target_dtype):
    assert _loss_outcome(framework, name, dtype, target_dtype) == _loss_outcome(torch, name, dtype, target_dtype)


def test_mse_loss_module_keeps_float32():
    out = framework.nn.MSELoss()(framework.ones(3), framework.tensor([1, 2, 3]))
    assert out.dtype == framework.float32 and float(out) == pytest.approx(5 / 3)


# ---- a 0-d input: torch's autograd reads a stale no-grad view's history before the op's own checks -------------

ON_0D = {
    "cross_entropy": lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([0])),  # log_softmax(x, 1)
    "cross_entropy_0d_target": lambda m, x: m.nn.functional.cross_entropy(x, m.tensor(0)),
    "cross_entropy_probabilities": lambda m, x: m.nn.functional.cross_entropy(x, m.tensor(0.5, dtype=m.float64)),
    "nll_loss": lambda m, x: m.nn.functional.nll_loss(x, m.tensor([0])),
    "log_softmax": lambda m, x: m.nn.functional.log_softmax(x, 1),
    "softmax": lambda m, x: m.softmax(x, 1),
    "logsumexp": lambda m, x: m.logsumexp(x, 1),
    "multi_margin_loss": lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor([0]), reduction="none"),
    "multi_margin_loss_0d_target": lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor(0), margin=2.0),
    "multi_margin_loss_bad_target": lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor(1)),
    "multilabel_margin_loss": lambda m, x: m.nn.functional.multilabel_margin_loss(x, m.tensor([0])),
    "multilabel_margin_loss_0d_target": lambda m, x: m.nn.functional.multilabel_margin_loss(x, m.tensor(-1)),
    "multilabel_margin_loss_long_target": lambda m, x: m.nn.functional.multilabel_margin_loss(x, m.tensor([0, 0])),
    "cosine_embedding_loss": lambda m, x: m.nn.functional.cosine_embedding_loss(x, x, m.tensor([1.0])),
    "cosine_embedding_loss_0d_target": lambda m, x: m.nn.functional.cosine_embedding_loss(x, x, m.tensor(1.0)),
    "mse_loss": lambda m, x: m.nn.functional.mse_loss(x, m.tensor([0.0, 1.0], dtype=m.float64)),
    "bce_with_logits": lambda m, x: m.nn.functional.binary_cross_entropy_with_logits(x, m.zeros(2, dtype=m.float64)),
}


def _outcome(fn):
    try:
        out = fn()
        return "ok", tuple(out.shape), np.round(out.detach().cpu().numpy().astype(np.float64), 6).tolist()
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        return type(e).__name__, str(e).split("\n")[0].replace("torch.", "framework.")


@pytest.mark.parametrize("stale", [False, True])
@pytest.mark.parametrize("name", sorted(ON_0D))
def test_a_0d_input_is_checked_as_torchs_and_a_stale_views_error_comes_first(name, stale):
    """The fuzzer's shrunk program (seed 2008251): cross_entropy of a no-grad view whose base was then modified in
    place raises torch's view error, not the class dim's IndexError; a fresh 0-d input gets torch's result or error
    (multi/multilabel margin losses take it as one sample of one class, cosine_embedding_loss refuses it)."""
    def run(m):
        t1 = m.tensor(-1.4, dtype=m.float64, requires_grad=True)
        with m.no_grad():
            t3 = t1.reshape(())
        if stale:
            with m.no_grad():
                t1.unsqueeze(-1)[0:3:2].neg_()
            return _outcome(lambda: ON_0D[name](m, t3))
        x = t1 * 1.0
        out = _outcome(lambda: ON_0D[name](m, x))
        if out[0] == "ok":
            t1.grad = None
            ON_0D[name](m, x).sum().backward()
            out += (float(t1.grad),)
        return out

    ours, theirs = run(framework), run(torch)
    assert ours == theirs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_log_softmax_in_row_blocks_matches_torch(dtype, monkeypatch):
    """A log_softmax large enough that its exp-and-sum runs a block of rows at a time (on the host): torch's
    values and gradient, and bit for bit the whole-array computation's."""
    from framework.ops.activation import softmax_family
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 300, 500)) * 4).astype(dtype)
    x = framework.tensor(a, requires_grad=True)
    out = framework.log_softmax(x, -1)
    tx = torch.tensor(a, requires_grad=True)
    ref = torch.log_softmax(tx, -1)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), **tol)
    w = rng.standard_normal(a.shape).astype(dtype)
    (out * framework.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), **tol)
    if framework.backend._on_gpu(x._array):  # the blocks are a host path
        return
    assert softmax_family._row_blocks(a, (2,))
    monkeypatch.setattr(softmax_family, "_BLOCK", a.size)  # too small an array for blocks: the whole-array path
    assert not softmax_family._row_blocks(a, (2,))
    whole = framework.log_softmax(framework.tensor(a), -1).numpy()
    assert np.array_equal(out.detach().numpy(), whole)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("fn", ["sigmoid", "silu", "bce_of_sigmoid"])
def test_sigmoid_is_zero_where_exp_of_minus_its_input_overflows_as_torchs(dtype, fn):
    """torch's sigmoid kernel is 1 / (1 + exp(-x)) in x's dtype (float32 for bfloat16): exp(-x) overflows to inf
    from x <= -88.72... (float32) or -709.78... (float64), so sigmoid is 0 there, not the subnormal e**x, and
    binary_cross_entropy's log then clamps at -100 (fuzz seed 2805541: 56.9842 vs 56.484)."""
    torch = pytest.importorskip("torch")
    if dtype == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    edge = 709.7827128933841 if dtype == "float64" else 88.72283935546875
    x = np.concatenate([[-edge, -edge + 1e-5, -edge - 1e-5, -96.83, -102.56, -91.67, -745.0, -720.0, 0.5],
                        np.linspace(-110.0, -80.0, 61)])
    target = np.linspace(0.05, 0.95, x.size)

    def run(m):
        t = m.tensor(x, dtype=getattr(m, dtype), requires_grad=True)
        if fn == "sigmoid":
            y = m.sigmoid(t)
        elif fn == "silu":
            y = m.nn.functional.silu(t)
        else:
            y = m.nn.functional.binary_cross_entropy(m.sigmoid(t), m.tensor(target, dtype=getattr(m, dtype)))
        y.backward(m.ones_like(y))
        return y.detach().double().cpu().numpy(), t.grad.double().cpu().numpy()

    for ours, theirs in zip(run(framework), run(torch)):
        np.testing.assert_array_equal(ours == 0, theirs == 0)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
        np.testing.assert_allclose(ours, theirs, rtol=2e-6 if dtype != "bfloat16" else 1e-2, atol=0)
