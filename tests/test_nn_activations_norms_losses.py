"""More nn layers and losses (glu, shrinks, threshold, rrelu, rms_norm, bilinear, local_response_norm, gumbel_softmax,
embedding_bag, LazyLinear, alpha_dropout; Gaussian/Poisson NLL, hinge, margin and soft-margin losses): values,
gradients, grad_fn names, reprs and errors equal torch's; float64 gradchecks that need no torch."""
import warnings

import numpy as np
import pytest

import framework
from framework.testing import assert_close, gradcheck, gradgradcheck

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 6))
Y = rng.standard_normal((4, 6))
Z = rng.standard_normal((4, 6))
POS = rng.uniform(0.5, 2.0, (4, 6))
SIGN = np.where(rng.standard_normal((4, 6)) > 0, 1.0, -1.0)
BITS = (SIGN > 0).astype(np.float64)
COUNTS = rng.integers(0, 6, (4, 6)).astype(np.float64)
W3 = rng.standard_normal((3, 6, 6))
B3 = rng.standard_normal(3)
EMB = rng.standard_normal((10, 3))
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])
IDX2 = np.array([[1, 2, 4], [5, 4, 0]])
OFFS = np.array([0, 3, 3, 5])  # an empty bag included
PSW = rng.uniform(0.5, 1.5, 8)
MM_T = np.array([1, 0, 5, 2])
MM_W = rng.uniform(0.5, 1.5, 6)
ML_T = np.array([[1, 2, -1, 0, 0, 0], [0, -1, 0, 0, 0, 0], [5, 4, 3, -1, 0, 0], [-1, 0, 0, 0, 0, 0]])


def _t(m, a):
    return m.tensor(a)


# name -> (fn(m, F, *tensors), arrays that require grad)
CASES = {
    "glu": (lambda m, F, x: F.glu(x), [X]),
    "glu_dim0": (lambda m, F, x: F.glu(x, 0), [X]),
    "GLU": (lambda m, F, x: m.nn.GLU(1)(x), [X]),
    "hardshrink": (lambda m, F, x: F.hardshrink(x, 0.3), [X]),
    "hardshrink_top_level_and_method": (lambda m, F, x: m.hardshrink(x, 0.3) + x.hardshrink(), [X]),
    "rms_norm_top_level": (lambda m, F, x: m.rms_norm(x, [6], eps=1e-4), [X]),
    "bilinear_top_level": (lambda m, F, x, y, w, b: m.bilinear(x, y, w, b), [X, Y, W3, B3]),
    "threshold_top_level": (lambda m, F, x: m.threshold(x, 0.2, 0.5) + m.threshold_(x * 1, 0.2, 0.5), [X]),
    "softshrink": (lambda m, F, x: F.softshrink(x, 0.3), [X]),
    "Softshrink": (lambda m, F, x: m.nn.Softshrink()(x), [X]),
    "threshold": (lambda m, F, x: F.threshold(x, 0.1, 2.0), [X]),
    "threshold_inplace": (lambda m, F, x: F.threshold(x * 1, 0.1, -2.0, inplace=True), [X]),
    "rrelu_eval": (lambda m, F, x: F.rrelu(x, 0.1, 0.3), [X]),
    "rrelu_eval_inplace": (lambda m, F, x: F.rrelu_(x * 1, 0.1, 0.3), [X]),
    "RReLU_eval": (lambda m, F, x: m.nn.RReLU().eval()(x), [X]),
    "rms_norm": (lambda m, F, x: F.rms_norm(x, (6,)), [X]),
    "rms_norm_weight": (lambda m, F, x, w: F.rms_norm(x.view(2, 2, 6), (2, 6), w, eps=1e-3), [X, Y[:2]]),
    "RMSNorm": (lambda m, F, x: m.nn.RMSNorm(6, elementwise_affine=False)(x), [X]),
    "bilinear": (lambda m, F, x, y, w, b: F.bilinear(x, y, w, b), [X, Y, W3, B3]),
    "bilinear_nobias": (lambda m, F, x, y, w: F.bilinear(x.view(2, 2, 6), y.view(2, 2, 6), w), [X, Y, W3]),
    "softmax2d": (lambda m, F, x: m.nn.Softmax2d()(x.view(1, 4, 2, 3)), [X]),
    "local_response_norm": (lambda m, F, x: F.local_response_norm(x.view(1, 4, 6), 3, alpha=0.1), [X]),
    "local_response_norm_4d": (lambda m, F, x: m.nn.LocalResponseNorm(2, k=2.0)(x.view(1, 4, 2, 3)), [X]),
    "embedding_bag_sum": (lambda m, F, w: F.embedding_bag(_t(m, IDX), w, _t(m, OFFS), mode="sum"), [EMB]),
    "embedding_bag_mean": (lambda m, F, w: F.embedding_bag(_t(m, IDX), w, _t(m, OFFS)), [EMB]),
    "embedding_bag_max": (lambda m, F, w: F.embedding_bag(_t(m, IDX), w, _t(m, OFFS), mode="max"), [EMB]),
    "embedding_bag_2d": (lambda m, F, w: F.embedding_bag(_t(m, IDX2), w, mode="sum"), [EMB]),
    "embedding_bag_psw": (lambda m, F, w, p: F.embedding_bag(_t(m, IDX), w, _t(m, OFFS), mode="sum",
                                                             per_sample_weights=p), [EMB, PSW]),
    "embedding_bag_last_offset": (lambda m, F, w: F.embedding_bag(_t(m, IDX), w, _t(m, np.array([0, 2, 8])),
                                                                  include_last_offset=True), [EMB]),
    "embedding_bag_padding": (lambda m, F, w: F.embedding_bag(_t(m, IDX), w, _t(m, OFFS), padding_idx=4), [EMB]),
    "embedding_bag_max_padding": (lambda m, F, w: F.embedding_bag(_t(m, IDX2), w, mode="max", padding_idx=0),
                                  [EMB]),
    # losses
    "gaussian_nll_loss": (lambda m, F, x, y, v: F.gaussian_nll_loss(x, y, v), [X, Y, POS]),
    "gaussian_nll_loss_full_sum": (lambda m, F, x, y, v: F.gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
                                   [X, Y, POS]),
    "gaussian_nll_loss_homo_none": (lambda m, F, x, y, v: F.gaussian_nll_loss(x, y, v[:, 0], reduction="none"),
                                    [X, Y, POS]),
    "gaussian_nll_loss_float_var": (lambda m, F, x, y: F.gaussian_nll_loss(x, y, 0.5, reduction="sum"), [X, Y]),
    "GaussianNLLLoss_var1": (lambda m, F, x, y, v: m.nn.GaussianNLLLoss()(x, y, v[:, :1]), [X, Y, POS]),
    "poisson_nll_loss": (lambda m, F, x: F.poisson_nll_loss(x, _t(m, COUNTS)), [X]),
    "poisson_nll_loss_nolog": (lambda m, F, x: F.poisson_nll_loss(x, _t(m, COUNTS), log_input=False,
                                                                  reduction="sum"), [POS]),
    "poisson_nll_loss_full_none": (lambda m, F, x: F.poisson_nll_loss(x, _t(m, COUNTS), full=True,
                                                                      reduction="none"), [X]),
    "PoissonNLLLoss": (lambda m, F, x, t: m.nn.PoissonNLLLoss()(x, t), [X, POS]),
    "hinge_embedding_loss": (lambda m, F, x: F.hinge_embedding_loss(x, _t(m, SIGN)), [X]),
    "hinge_embedding_loss_none": (lambda m, F, x: F.hinge_embedding_loss(x, _t(m, SIGN), 0.5, reduction="none"),
                                  [X]),
    "HingeEmbeddingLoss_sum": (lambda m, F, x: m.nn.HingeEmbeddingLoss(reduction="sum")(x, _t(m, SIGN)), [X]),
    "soft_margin_loss": (lambda m, F, x: F.soft_margin_loss(x, _t(m, SIGN)), [X]),
    "soft_margin_loss_none": (lambda m, F, x: F.soft_margin_loss(x, _t(m, Y), reduction="none"), [X]),
    "SoftMarginLoss_sum": (lambda m, F, x: m.nn.SoftMarginLoss(reduction="sum")(x, _t(m, Y[0])), [X]),
    "multi_margin_loss": (lambda m, F, x: F.multi_margin_loss(x, _t(m, MM_T)), [X]),
    "multi_margin_loss_p2_w": (lambda m, F, x: F.multi_margin_loss(
        x, _t(m, MM_T), p=2, margin=0.7, weight=_t(m, MM_W).to(x.dtype), reduction="none"), [X]),
    "multi_margin_loss_1d": (lambda m, F, x: F.multi_margin_loss(x[0], _t(m, np.array(3)), reduction="sum"), [X]),
    "MultiMarginLoss": (lambda m, F, x: m.nn.MultiMarginLoss(reduction="sum")(x, _t(m, MM_T)), [X]),
    "multilabel_margin_loss": (lambda m, F, x: F.multilabel_margin_loss(x, _t(m, ML_T)), [X]),
    "multilabel_margin_loss_none": (lambda m, F, x: F.multilabel_margin_loss(x, _t(m, ML_T), reduction="none"),
                                    [X]),
    "multilabel_margin_loss_1d": (lambda m, F, x: F.multilabel_margin_loss(x[2], _t(m, ML_T[2])), [X]),
    "MultiLabelMarginLoss_sum": (lambda m, F, x: m.nn.MultiLabelMarginLoss(reduction="sum")(x, _t(m, ML_T)), [X]),
    "multilabel_soft_margin_loss": (lambda m, F, x: F.multilabel_soft_margin_loss(x, _t(m, BITS)), [X]),
    "multilabel_soft_margin_loss_w_none": (lambda m, F, x, w: F.multilabel_soft_margin_loss(
        x, _t(m, BITS), weight=w, reduction="none"), [X, MM_W]),
    "MultiLabelSoftMarginLoss_sum": (lambda m, F, x: m.nn.MultiLabelSoftMarginLoss(reduction="sum")(x, _t(m, BITS)),
                                     [X]),
    "triplet_margin_with_distance_loss": (lambda m, F, a, p, n: F.triplet_margin_with_distance_loss(a, p, n),
                                          [X, Y, Z]),
    "triplet_margin_with_distance_loss_cos": (lambda m, F, a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5, swap=True,
        reduction="none"), [X, Y, Z]),
    "TripletMarginWithDistanceLoss": (lambda m, F, a, p, n: m.nn.TripletMarginWithDistanceLoss(
        reduction="sum", margin=2.0)(a, p, n), [X, Y, Z]),
}


def _run(m, name, dtype):
    fn, arrays = CASES[name]
    xs = [m.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(m, m.nn.functional, *xs)
    up = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(m.tensor(up, dtype=out.dtype))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    torch = pytest.importorskip("torch")
    out, grads = _run(framework, name, getattr(framework, dtype))
    t_out, t_grads = _run(torch, name, getattr(torch, dtype))
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    assert tuple(out.shape) == tuple(t_out.shape)
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **tol)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if tg is not None:
            assert_close(g, tg.numpy(), **tol)
    assert out.grad_fn.name() == t_out.grad_fn.name()


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    fn, arrays = CASES[name]
    if name.startswith(("hardshrink", "softshrink", "Softshrink", "threshold", "rrelu", "RReLU",
                        "multi_margin", "MultiMargin", "multilabel_margin", "MultiLabelMargin",
                        "hinge", "Hinge", "triplet", "Triplet", "embedding_bag_max")):
        # piecewise ops: keep the draws away from the kinks, where central differences straddle them
        arrays = [np.where(np.abs(a) < 0.35, np.sign(a) * 0.35 + a, a) if a.dtype.kind == "f" else a for a in arrays]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *t: fn(framework, framework.nn.functional, *t), xs, eps=1e-6, atol=1e-5)


# torch's kernels whose gradient it does not differentiate again: a second backward raises its error
NO_DOUBLE_BACKWARD = ("embedding_bag", "multi_margin", "MultiMargin", "multilabel_margin", "MultiLabelMargin")


@pytest.mark.parametrize("name", [n for n in CASES if not n.startswith(NO_DOUBLE_BACKWARD)])
def test_gradgradcheck(name):
    fn, arrays = CASES[name]
    arrays = [np.where(np.abs(a) < 0.35, np.sign(a) * 0.35 + a, a) for a in arrays]  # away from the kinks
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert gradgradcheck(lambda *t: fn(framework, framework.nn.functional, *t), xs, atol=1e-4)


@pytest.mark.parametrize("name", ["embedding_bag_sum", "embedding_bag_psw", "multi_margin_loss",
                                  "multilabel_margin_loss"])
def test_double_backward_refused_as_torch(name):
    torch = pytest.importorskip("torch")
    errors, names = [], []
    for m in (framework, torch):
        fn, arrays = CASES[name]
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        out = fn(m, m.nn.functional, *xs)
        grads = m.autograd.grad((out * out).sum(), xs, create_graph=True)
        names.append([g.grad_fn.name() for g in grads])
        for g in grads:
            with pytest.raises(Exception) as info:
                g.sum().backward(retain_graph=True)
            errors.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    half = len(errors) // 2
    assert errors[:half] == errors[half:] and names[0] == names[1]


def test_rrelu_training_draws_slopes_in_range_and_backward_uses_them():
    framework.manual_seed(0)
    x = framework.tensor(X, requires_grad=True)
    out = framework.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    assert out.grad_fn.name() == "RreluWithNoiseBackward0"
    slope = out.detach().cpu().numpy() / X
    assert np.all(slope[X > 0] == 1) and np.all((slope[X <= 0] >= 0.1) & (slope[X <= 0] <= 0.3))
    assert len(np.unique(slope[X <= 0])) > 1  # one slope per element
    out.sum().backward()
    assert_close(x.grad, slope)
    framework.manual_seed(0)
    again = framework.nn.RReLU(0.1, 0.3)(framework.tensor(X))  # modules train by default: the same draws
    assert_close(again, out.detach())
    y = framework.tensor(X, requires_grad=True) * 1
    assert framework.nn.functional.rrelu(y, training=True, inplace=True).grad_fn.name() == "RreluWithNoiseBackward1"


def test_gumbel_softmax_soft_and_hard():
    torch = pytest.importorskip("torch")
    framework.manual_seed(0)
    x = framework.tensor(X, requires_grad=True)
    F = framework.nn.functional
    soft = F.gumbel_softmax(x, tau=0.5)
    assert soft.grad_fn.name() == torch.nn.functional.gumbel_softmax(torch.tensor(X, requires_grad=True)).grad_fn.name()
    assert_close(soft.sum(-1), np.ones(4))
    hard = F.gumbel_softmax(x, hard=True)
    assert hard.grad_fn.name() == "AddBackward0"
    h = hard.detach().cpu().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and np.all(h.sum(-1) == 1)
    hard.sum().backward()  # straight through: the soft sample's gradient, which sums to 0 per row here
    assert_close(x.grad, np.zeros_like(X), atol=1e-6)


def test_alpha_dropout_keeps_selu_statistics():
    framework.manual_seed(0)
    F = framework.nn.functional
    x = framework.randn(200000, dtype=framework.float64, requires_grad=True)
    out = F.alpha_dropout(x, 0.3, training=True)
    assert out.grad_fn.name() == "AddBackward0"
    assert abs(float(out.mean())) < 0.02 and abs(float(out.std()) - 1) < 0.02
    assert F.alpha_dropout(x, 0.3) is x  # eval: the input itself, as torch
    assert repr(framework.nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2, inplace=False)"


def test_lazy_linear_materialises_on_first_call():
    torch = pytest.importorskip("torch")
    lazy = framework.nn.LazyLinear(3)
    assert repr(lazy) == repr(torch.nn.LazyLinear(3))
    assert repr(lazy.weight) == repr(torch.nn.LazyLinear(3).weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.LazyLinear(3).weight.shape
    with pytest.raises(RuntimeError) as ours:
        lazy.weight.shape
    assert str(ours.value) == str(theirs.value)
    out = lazy(framework.tensor(X, dtype=framework.float32))
    assert type(lazy) is framework.nn.Linear and tuple(lazy.weight.shape) == (3, 6) and tuple(out.shape) == (4, 3)
    assert repr(lazy) == "Linear(in_features=6, out_features=3, bias=True)"
    assert isinstance(lazy.weight, framework.nn.Parameter) and lazy.weight.requires_grad
    assert float(lazy.weight.abs().max()) <= 1 / np.sqrt(6)
    out.sum().backward()
    assert tuple(lazy.weight.grad.shape) == (3, 6)
    nobias = framework.nn.LazyLinear(2, bias=False)
    nobias(framework.tensor(X, dtype=framework.float32))
    assert nobias.bias is None and repr(nobias) == "Linear(in_features=6, out_features=2, bias=False)"


MODULES = [
    "GLU()", "GLU(0)", "Hardshrink()", "Softshrink(0.3)", "Threshold(0.1, 20)", "Threshold(0.1, 2, True)",
    "RReLU()", "RReLU(0.1, 0.3, True)", "RMSNorm(4)", "RMSNorm((4, 5), eps=1e-3, elementwise_affine=False)",
    "Bilinear(2, 3, 4)", "Bilinear(2, 3, 4, bias=False)", "Softmax2d()", "LocalResponseNorm(2)",
    "EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='max', max_norm=1.0)", "EmbeddingBag(10, 3, padding_idx=0)",
    "EmbeddingBag(10, 3, mode='sum', norm_type=1.0, scale_grad_by_freq=True)", "AlphaDropout(0.2)",
    "GaussianNLLLoss()", "GaussianNLLLoss(full=True, eps=1e-3, reduction='sum')", "PoissonNLLLoss()",
    "HingeEmbeddingLoss()", "MultiMarginLoss()", "MultiLabelMarginLoss()", "MultiLabelSoftMarginLoss()",
    "SoftMarginLoss()", "TripletMarginWithDistanceLoss()",
    "TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance())",
    "Sequential(nn.GLU(), nn.RMSNorm(3), nn.Bilinear(3, 3, 2))",
]


@pytest.mark.parametrize("src", MODULES)
def test_module_repr_matches_torch(src):
    torch = pytest.importorskip("torch")
    ours = eval("nn." + src, {"nn": framework.nn})
    theirs = eval("nn." + src, {"nn": torch.nn})
    assert repr(ours) == repr(theirs)
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())
    for (n, p), (_, tp) in zip(sorted(ours.named_parameters()), sorted(theirs.named_parameters())):
        assert tuple(p.shape) == tuple(tp.shape), n


def test_embedding_bag_from_pretrained():
    torch = pytest.importorskip("torch")
    ours = framework.nn.EmbeddingBag.from_pretrained(framework.tensor(EMB), mode="sum")
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(EMB), mode="sum")
    assert repr(ours) == repr(theirs) and ours.weight.requires_grad is False
    out = ours(framework.tensor(IDX2))
    assert_close(out, theirs(torch.tensor(IDX2)).numpy())
    assert framework.nn.EmbeddingBag.from_pretrained(framework.tensor(EMB), freeze=False).weight.requires_grad


def test_rms_norm_default_eps_and_embedding_bag_padding_row():
    torch = pytest.importorskip("torch")
    x = np.full((2, 3), 1e-5)
    for dtype in ("float32", "float64"):
        ours = framework.nn.functional.rms_norm(framework.tensor(x, dtype=getattr(framework, dtype)), [3])
        theirs = torch.nn.functional.rms_norm(torch.tensor(x, dtype=getattr(torch, dtype)), [3])
        assert_close(ours, theirs.numpy(), rtol=1e-6, atol=0)
    bag = framework.nn.EmbeddingBag(5, 2, padding_idx=1)
    assert np.all(bag.weight.detach().cpu().numpy()[1] == 0)


ERRORS = {
    "glu_odd": lambda m, F: F.glu(m.zeros(4, 5)),
    "glu_scalar": lambda m, F: F.glu(m.tensor(1.0)),
    "softshrink_neg": lambda m, F: F.softshrink(m.zeros(3), -0.5),
    "softshrink_neg_double": lambda m, F: F.softshrink(m.zeros(3, dtype=m.float64), -0.5),
    "rrelu_bounds": lambda m, F: F.rrelu(m.zeros(3), 0.5, 0.2, training=True),
    "rms_norm_shape": lambda m, F: F.rms_norm(m.zeros(4, 5), (4,)),
    "bilinear_in2": lambda m, F: F.bilinear(m.zeros(4, 5), m.zeros(4, 3), m.zeros(2, 5, 4)),
    "bilinear_in1": lambda m, F: F.bilinear(m.zeros(4, 5), m.zeros(4, 3), m.zeros(2, 4, 3)),
    "bilinear_batch": lambda m, F: F.bilinear(m.zeros(4, 5), m.zeros(3, 3), m.zeros(2, 5, 3)),
    "bilinear_dims": lambda m, F: F.bilinear(m.zeros(4, 5), m.zeros(3), m.zeros(2, 5, 3)),
    "bilinear_bias": lambda m, F: F.bilinear(m.zeros(4, 5), m.zeros(4, 3), m.zeros(2, 5, 3), m.zeros(3)),
    "softmax2d": lambda m, F: m.nn.Softmax2d()(m.zeros(4, 5)),
    "lrn_dim": lambda m, F: F.local_response_norm(m.zeros(20), 2),
    "eb_1d_no_offsets": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3)),
    "eb_psw_mean": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3), m.tensor([0]), mode="mean",
                                                per_sample_weights=m.ones(2)),
    "eb_mode": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3), m.tensor([0]), mode="prod"),
    "eb_offsets0": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3), m.tensor([1])),
    "eb_3d": lambda m, F: F.embedding_bag(m.tensor([[[1, 2]]]), m.zeros(5, 3)),
    "eb_float_indices": lambda m, F: F.embedding_bag(m.tensor([1.0, 2.0]), m.zeros(5, 3), m.tensor([0])),
    "eb_psw_shape": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3), m.tensor([0]), mode="sum",
                                                 per_sample_weights=m.ones(3)),
    "eb_index_range": lambda m, F: F.embedding_bag(m.tensor([1, 7]), m.zeros(5, 3), m.tensor([0])),
    "eb_2d_input_with_offsets": lambda m, F: F.embedding_bag(m.tensor([[1, 2]]), m.zeros(5, 3), m.tensor([0])),
    "eb_offsets_2d": lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.zeros(5, 3), m.tensor([[0]])),
    "gnll_var_neg": lambda m, F: F.gaussian_nll_loss(m.zeros(4, 5), m.zeros(4, 5), -m.ones(4, 5)),
    "gnll_var_shape": lambda m, F: F.gaussian_nll_loss(m.zeros(4, 5), m.zeros(4, 5), m.ones(3, 5)),
    "gnll_reduction": lambda m, F: F.gaussian_nll_loss(m.zeros(4, 5), m.zeros(4, 5), m.ones(4, 5), reduction="x"),
    "pnll_reduction": lambda m, F: F.poisson_nll_loss(m.zeros(3), m.zeros(3), reduction="x"),
    "pnll_shape": lambda m, F: F.poisson_nll_loss(m.zeros(3), m.zeros(2)),
    "hinge_reduction": lambda m, F: F.hinge_embedding_loss(m.zeros(3), m.zeros(3), reduction="x"),
    "hinge_shape": lambda m, F: F.hinge_embedding_loss(m.zeros(3), m.zeros(2)),
    "mm_reduction": lambda m, F: F.multi_margin_loss(m.zeros(4, 5), m.tensor([1, 2, 3, 4]), reduction="x"),
    "mm_p": lambda m, F: F.multi_margin_loss(m.zeros(4, 5), m.tensor([1, 2, 3, 4]), p=3),
    "mm_target_range": lambda m, F: F.multi_margin_loss(m.zeros(4, 5), m.tensor([1, 2, 3, 7])),
    "mm_target_shape": lambda m, F: F.multi_margin_loss(m.zeros(4, 5), m.tensor([1, 2, 3])),
    "mm_weight": lambda m, F: F.multi_margin_loss(m.zeros(4, 5), m.tensor([1, 2, 3, 4]), weight=m.ones(3)),
    "mm_3d": lambda m, F: F.multi_margin_loss(m.zeros(2, 3, 4), m.tensor([1, 2])),
    "mlm_reduction": lambda m, F: F.multilabel_margin_loss(m.zeros(4, 5), m.zeros(4, 5, dtype=m.long),
                                                           reduction="x"),
    "mlm_shape": lambda m, F: F.multilabel_margin_loss(m.zeros(4, 5), m.zeros(4, 3, dtype=m.long)),
    "mlm_target": lambda m, F: F.multilabel_margin_loss(m.zeros(4, 5), m.full((4, 5), 7)),
    "mlsm_reduction": lambda m, F: F.multilabel_soft_margin_loss(m.zeros(3, 2), m.zeros(3, 2), reduction="x"),
    "sm_reduction": lambda m, F: F.soft_margin_loss(m.zeros(3), m.zeros(3), reduction="x"),
    "sm_shape": lambda m, F: F.soft_margin_loss(m.zeros(4, 5), m.zeros(2, 5)),
    "tmd_reduction": lambda m, F: F.triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3),
                                                                      reduction="x"),
    "tmd_margin": lambda m, F: F.triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3),
                                                                   margin=-1.0),
    "tmd_dims": lambda m, F: F.triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(3), m.zeros(2, 3)),
    "alpha_dropout_p": lambda m, F: F.alpha_dropout(m.zeros(3), 1.5),
    "mm_weight_dtype": lambda m, F: F.multi_margin_loss(m.zeros(2, 3), m.tensor([0, 1]),
                                                        weight=m.ones(3, dtype=m.float64)),
    "sm_target_grad": lambda m, F: F.soft_margin_loss(m.zeros(3), m.ones(3, requires_grad=True)),
    "mm_weight_grad": lambda m, F: F.multi_margin_loss(m.zeros(2, 3), m.tensor([0, 1]),
                                                       weight=m.ones(3, requires_grad=True)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch, torch.nn.functional)
    with pytest.raises(Exception) as ours:
        ERRORS[name](framework, framework.nn.functional)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    # torch's type names (torch.FloatTensor, torch.Size) are framework's here, as everywhere in the project
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0].replace("torch.", "framework.")


@pytest.mark.explicit_device
@pytest.mark.parametrize("body", [
    lambda F, m, x, w: F.glu(x @ w.t()).sum()
    + (F.softshrink(x[:, :3]) + F.hardshrink(x[:, 3:]) + F.threshold(x[:, :3], 0.1, 2.0)).sum(),
    lambda F, m, x, w: (F.rms_norm(x, (6,)) * F.rrelu(x, training=True)).sum() + F.soft_margin_loss(x, x.detach()),
    lambda F, m, x, w: F.gumbel_softmax(x, hard=True).mul(x).sum() + F.local_response_norm(x.view(1, 4, 6), 2).sum(),
    lambda F, m, x, w: F.multi_margin_loss(x, m.tensor([1, 0, 5, 2])) + F.multilabel_margin_loss(x, m.tensor(ML_T)),
    lambda F, m, x, w: m.quantile(x, 0.3, dim=1).sum() + m.logcumsumexp(x, 1).sum() + m.std_mean(x, 0)[0].sum()
    + m.renorm(x, 2, 0, 1.0).sum() + m.trapezoid(x).sum() + m.nansum(x) + m.logaddexp(x, w[:4]).sum(),
    lambda F, m, x, w: F.embedding_bag(m.tensor(IDX), m.cat([x, w, x]), m.tensor(OFFS), mode="max").sum()
    + F.alpha_dropout(x, 0.2, training=True).sum(),
], ids=["shrinks", "rms_rrelu_softmargin", "gumbel_lrn", "margins", "maths", "embedding_bag_alpha_dropout"])
def test_new_ops_replay_under_compile_as_eager(body):
    """A step using the new ops, compiled: each replay equals the eager step (random draws included)."""
    F = framework.nn.functional

    def make():
        framework.manual_seed(3)
        x = framework.tensor(X, requires_grad=True)
        w = framework.tensor(Y, requires_grad=True)

        def step():
            x.grad = w.grad = None
            loss = body(F, framework, x, w)
            loss.backward()
            return loss
        return x, w, step

    x_e, w_e, step_e = make()
    eager = [(float(step_e()), x_e.grad.cpu().numpy().copy()) for _ in range(4)]
    x_c, w_c, step_c = make()
    compiled = framework.compile(step_c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a graph break (host reads of offsets/targets) runs eagerly: also right
        replayed = [(float(compiled()), x_c.grad.cpu().numpy().copy()) for _ in range(4)]
    for (le, ge), (lc, gc) in zip(eager, replayed):
        assert le == lc and np.array_equal(ge, gc)
    assert compiled.replays >= 2  # captured once, then replayed: no graph break


def test_bilinear_refuses_mixed_dtypes_first_as_torch():
    """Found by the fuzzer: torch checks the four dtypes before any shape and names them as C++ does."""
    t = pytest.importorskip("torch")
    for make in (lambda m: (m.zeros(3, 2), m.zeros(3, 4, dtype=m.float64), m.zeros(5, 2, 4), m.zeros(5)),
                 lambda m: (m.zeros(3, 2), m.zeros(3, 4), m.zeros(5, 2, 4), m.zeros(5, dtype=m.float64)),
                 lambda m: (m.zeros(3, 2), m.zeros(3, 2, dtype=m.float64), m.zeros(5, 2, 4), None)):
        errors = []
        for m in (framework, t):
            with pytest.raises(RuntimeError) as e:
                m.nn.functional.bilinear(*make(m))
            errors.append(str(e.value))
        assert errors[0] == errors[1]


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_rms_norm_half_upcasts_like_torch(dt):
    """torch's rms_norm widens a half input to float32, applies the weight there and casts back (ToCopyBackward0):
    the same nodes, bit-equal values and input gradient (fuzz seed 2708756)."""
    torch = pytest.importorskip("torch")
    if dt == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    g = np.random.default_rng(7)
    x, w, gr = g.standard_normal((5, 8)), g.standard_normal(8), g.standard_normal((5, 8))

    def names(f, out):
        if f is not None:
            out.append(f.name())
            for h, _ in f.next_functions:
                names(h, out)
        return out
    res = []
    for m in (torch, framework):
        tx = m.tensor(x, dtype=getattr(m, dt), requires_grad=True)
        tw = m.tensor(w, dtype=getattr(m, dt), requires_grad=True)
        o = m.nn.functional.rms_norm(tx, (8,), tw)
        o.backward(m.tensor(gr, dtype=o.dtype))
        res.append((names(o.grad_fn, []), o.detach().float().cpu().numpy(), tx.grad.float().cpu().numpy(),
                    tw.grad.float().cpu().numpy()))
    (tn, to, tgx, tgw), (fn, fo, fgx, fgw) = res
    assert fn == tn and tn[0] == "ToCopyBackward0"
    np.testing.assert_array_equal(fo, to)
    np.testing.assert_array_equal(fgx, tgx)
    np.testing.assert_allclose(fgw, tgw, rtol=1e-2, atol=1e-2)
