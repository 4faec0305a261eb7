"""The losses added for real PyTorch scripts: values and gradients equal torch's for every reduction."""
import warnings

import numpy as np
import pytest

import framework
from framework.testing import assert_close, gradcheck

torch = pytest.importorskip("torch")

REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(0)
A, B, C = (rng.standard_normal((4, 5)) for _ in range(3))
SIGN = np.array([1, -1, 1, -1])
PROBS = rng.dirichlet(np.ones(5), size=4)
PROBS[0, 1] = 0.0  # a zero target: xlogy's 0 * log 0 = 0

CASES = {
    "smooth_l1_loss": lambda m, F, a, b, r: F.smooth_l1_loss(a, b, reduction=r),
    "smooth_l1_loss_beta0": lambda m, F, a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.0),
    "SmoothL1Loss": lambda m, F, a, b, r: m.nn.SmoothL1Loss(reduction=r, beta=2.0)(a, b),
    "huber_loss": lambda m, F, a, b, r: F.huber_loss(a, b, reduction=r, delta=0.5),
    "HuberLoss": lambda m, F, a, b, r: m.nn.HuberLoss(reduction=r)(a, b),
    "kl_div": lambda m, F, a, b, r: F.kl_div(F.log_softmax(a, 1), m.tensor(PROBS), reduction=r),
    "kl_div_log_target": lambda m, F, a, b, r: F.kl_div(a, F.log_softmax(b, 1), reduction=r, log_target=True),
    "KLDivLoss_batchmean": lambda m, F, a, b, r: m.nn.KLDivLoss(reduction="batchmean")(F.log_softmax(a, 1),
                                                                                       F.softmax(b, 1)),
    "cosine_embedding_loss": lambda m, F, a, b, r: F.cosine_embedding_loss(a, b, m.tensor(SIGN), margin=0.1,
                                                                           reduction=r),
    "CosineEmbeddingLoss": lambda m, F, a, b, r: m.nn.CosineEmbeddingLoss(reduction=r)(a, b, m.tensor(SIGN)),
    "margin_ranking_loss": lambda m, F, a, b, r: F.margin_ranking_loss(a[:, 0], b[:, 0],
                                                                       m.tensor(SIGN, dtype=a.dtype), 0.2,
                                                                       reduction=r),
    "MarginRankingLoss": lambda m, F, a, b, r: m.nn.MarginRankingLoss(0.5, reduction=r)(
        a, b, m.tensor(np.ones((4, 5)), dtype=a.dtype)),
    "triplet_margin_loss": lambda m, F, a, b, r: F.triplet_margin_loss(a, b, a * 0.5 - b, reduction=r),
    "triplet_margin_loss_p1_swap": lambda m, F, a, b, r: F.triplet_margin_loss(a, b, b * 2, p=1, swap=True,
                                                                               margin=3.0, reduction=r),
    "TripletMarginLoss": lambda m, F, a, b, r: m.nn.TripletMarginLoss(margin=2.0, reduction=r)(a, b, a - b),
    "cosine_similarity": lambda m, F, a, b, r: F.cosine_similarity(a, b),
    "cosine_similarity_dim0": lambda m, F, a, b, r: m.nn.CosineSimilarity(dim=0)(a, b[:1]),
    "pairwise_distance": lambda m, F, a, b, r: m.nn.PairwiseDistance()(a, b),
    "normalize": lambda m, F, a, b, r: F.normalize(a) * b,
    "normalize_p1_dim0": lambda m, F, a, b, r: F.normalize(a, p=1, dim=0) + b,
}


def _run(m, fn, reduction):
    a = m.tensor(A, requires_grad=True)
    b = m.tensor(B, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning
        out = fn(m, m.nn.functional, a, b, reduction)
    out.backward(m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape))))
    return out, a.grad, b.grad


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_loss_matches_torch(name, reduction):
    out, ga, gb = _run(framework, CASES[name], reduction)
    t_out, t_ga, t_gb = _run(torch, CASES[name], reduction)
    assert tuple(out.shape) == tuple(t_out.shape)
    assert_close(out.detach(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    for g, tg in ((ga, t_ga), (gb, t_gb)):
        assert (g is None) == (tg is None)
        if g is not None:
            assert_close(g, tg.numpy(), rtol=1e-9, atol=1e-12)


def test_fused_losses_have_torch_grad_fn_names():
    a, b = framework.randn(3, requires_grad=True), framework.randn(3)
    F = framework.nn.functional
    assert F.smooth_l1_loss(a, b).grad_fn.name() == "SmoothL1LossBackward0"
    assert F.huber_loss(a, b, reduction="none").grad_fn.name() == "HuberLossBackward0"


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss", "kl_div_log_target", "cosine_embedding_loss",
                                  "triplet_margin_loss", "cosine_similarity"])
def test_loss_gradcheck(name):
    a = framework.tensor(A, requires_grad=True)
    b = framework.tensor(B, requires_grad=True)
    for reduction in REDUCTIONS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kl_div's 'mean' warning
            assert gradcheck(lambda x, y: CASES[name](framework, framework.nn.functional, x, y, reduction), [a, b])


def test_loss_errors_match_torch():
    F = framework.nn.functional
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.smooth_l1_loss(framework.ones(2), framework.ones(2), reduction="bogus")
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta."):
        F.smooth_l1_loss(framework.ones(2), framework.ones(2), beta=-1.0)
    with pytest.warns(UserWarning, match="Using a target size"):
        F.smooth_l1_loss(framework.ones(2, 1), framework.ones(2))


def _mixed_dtype_grads(m, name, reduction, dtypes):
    """The create_graph gradients of a regression loss of a float32/float64 pair: (grad_fn name, dtype, values)
    each, or the error torch raises (huber_loss's backward wants one dtype)."""
    F = m.nn.functional
    fn = {"smooth_l1": F.smooth_l1_loss, "huber": F.huber_loss, "mse": F.mse_loss, "l1": F.l1_loss}[name]
    a = m.tensor(A, dtype=getattr(m, dtypes[0]), requires_grad=True)
    b = m.tensor(B, dtype=getattr(m, dtypes[1]), requires_grad=True)
    out = fn(a, b, reduction=reduction)
    try:
        grads = m.autograd.grad((out * out).sum(), [a, b], create_graph=True)
    except RuntimeError as e:
        return str(e)
    return [(g.grad_fn.name(), str(g.dtype).split(".")[-1], g.detach().double().cpu().numpy()) for g in grads]


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float32", "float32")])
@pytest.mark.parametrize("name", ["smooth_l1", "huber", "mse", "l1"])
def test_mixed_dtype_create_graph_gradients_match_torch(name, dtypes):
    """A float32 target of a float64 input (or the reverse) gets its gradient from the loss's backward node itself
    in its own dtype (SmoothL1LossBackwardBackward0, not a ToCopyBackward0 after it), as torch's kernel writes it."""
    for reduction in REDUCTIONS:
        ours, theirs = (_mixed_dtype_grads(m, name, reduction, dtypes) for m in (framework, torch))
        if isinstance(theirs, str):
            assert ours == theirs
            continue
        assert [g[:2] for g in ours] == [g[:2] for g in theirs], reduction
        for (_, dt, g), (_, _, tg) in zip(ours, theirs):
            np.testing.assert_allclose(g, tg, rtol=1e-6 if dt == "float32" else 1e-12, atol=1e-7)
