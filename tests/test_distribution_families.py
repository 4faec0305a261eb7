"""The distributions beyond Normal/Bernoulli/Categorical against torch.distributions (float64): log_prob, entropy,
moments, cdf/icdf and their parameter gradients, shapes, validation messages, KL pairs; sample laws."""
import math

import numpy as np
import pytest

import framework
from framework import distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
rng = np.random.default_rng(0)


def _pos(*shape, low=0.5, high=2.0):
    return rng.uniform(low, high, shape)


def _mat_pd(n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


# name, constructor kwargs (numpy float64 arrays; "total_count" kept out of the gradient), values for
# log_prob/cdf, which of cdf/icdf torch has, extra kwargs (numbers / non-differentiable tensors)
CASES = [
    ("Uniform", dict(low=rng.uniform(-2, 0, 3), high=rng.uniform(1, 3, 3)), rng.uniform(0, 0.9, (2, 3)), "ci"),
    ("Exponential", dict(rate=_pos(3)), _pos(2, 3), "ci"),
    ("Laplace", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci"),
    ("Cauchy", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci"),
    ("Gumbel", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci"),
    ("HalfNormal", dict(scale=_pos(3)), _pos(2, 3), "ci"),
    ("LogNormal", dict(loc=rng.standard_normal(3), scale=_pos(3)), _pos(2, 3), "ci"),
    ("Gamma", dict(concentration=_pos(3, low=0.5, high=3), rate=_pos(3)), _pos(2, 3), ""),
    ("Chi2", dict(df=_pos(3, low=1, high=5)), _pos(2, 3), ""),
    ("Beta", dict(concentration1=_pos(3), concentration0=_pos(3)), rng.uniform(0.1, 0.9, (2, 3)), ""),
    ("Dirichlet", dict(concentration=_pos(2, 4)), rng.dirichlet(np.ones(4), 2), ""),
    ("StudentT", dict(df=_pos(3, low=2.5, high=6), loc=rng.standard_normal(3), scale=_pos(3)),
     rng.standard_normal((2, 3)), ""),
    ("Poisson", dict(rate=_pos(3)), np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 5.0]]), ""),
    ("Binomial", dict(probs=rng.uniform(0.1, 0.9, 3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), ""),
    ("Binomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), ""),
    ("Geometric", dict(probs=rng.uniform(0.1, 0.9, 3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), ""),
    ("Geometric", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), ""),
    ("OneHotCategorical", dict(logits=rng.standard_normal((2, 3))), np.eye(3)[[[0, 2], [1, 1]]], ""),
    ("OneHotCategorical", dict(probs=_pos(2, 3)), np.eye(3)[[[0, 2], [1, 1]]], ""),
    ("HalfCauchy", dict(scale=_pos(3)), _pos(2, 3), "ci"),
    ("Weibull", dict(scale=_pos(3), concentration=_pos(3, low=0.8, high=3)), _pos(2, 3), "ci"),
    ("Pareto", dict(scale=_pos(3, low=0.2, high=0.5), alpha=_pos(3, low=2.5, high=4)), _pos(2, 3, low=0.6, high=3),
     "ci"),
    ("NegativeBinomial", dict(probs=rng.uniform(0.1, 0.9, 3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 7.0]]), ""),
    ("NegativeBinomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 7.0]]), ""),
    ("Multinomial", dict(probs=_pos(2, 3)), np.array([[[5.0, 0.0, 0.0], [1.0, 2.0, 2.0]]]), ""),
    ("Multinomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 4.0], [2.0, 2.0, 1.0]]), ""),
    ("MultivariateNormal", dict(loc=rng.standard_normal((2, 3)), scale_tril=np.tril(rng.standard_normal((3, 3)))
                                + 3 * np.eye(3)), rng.standard_normal((4, 2, 3)), ""),
    ("MultivariateNormal", dict(loc=rng.standard_normal(3), covariance_matrix=_mat_pd(3, (2,))),
     rng.standard_normal((4, 2, 3)), ""),
    ("MultivariateNormal", dict(loc=rng.standard_normal(3), precision_matrix=_mat_pd(3)),
     rng.standard_normal((4, 3)), ""),
]
EXTRA = {"Binomial": dict(total_count=6.0), "NegativeBinomial": dict(total_count=3.0),
         "Multinomial": dict(total_count=5)}


def _build(lib, name, params, requires_grad=True):
    tensors = {k: lib.tensor(v, dtype=lib.float64, requires_grad=requires_grad) for k, v in params.items()}
    dist = getattr(lib.distributions, name)(**tensors, **EXTRA.get(name, {}))
    return dist, tensors


def _np(t):
    return t.detach().cpu().numpy()


def _outputs(lib, dist, name, value, kinds):
    v = lib.tensor(value, dtype=lib.float64)
    out = {"log_prob": dist.log_prob(v)}
    for key in ("mean", "variance", "stddev", "mode", "entropy"):
        try:
            out[key] = dist.entropy() if key == "entropy" else getattr(dist, key)
        except NotImplementedError:  # Poisson's entropy, Multinomial's mode: torch has none either (same keys)
            pass
    if "c" in kinds:
        out["cdf"] = dist.cdf(v)
    if "i" in kinds:
        out["icdf"] = dist.icdf(lib.tensor(rng_fixed_probs(value.shape), dtype=lib.float64))
    if name == "Gamma":
        out["cdf"] = dist.cdf(v)  # torch.special.gammainc: no gradient in the concentration
    if name == "MultivariateNormal":
        out.update(scale_tril=dist.scale_tril, covariance_matrix=dist.covariance_matrix,
                   precision_matrix=dist.precision_matrix)
    return out


def rng_fixed_probs(shape):
    return np.linspace(0.05, 0.95, int(np.prod(shape))).reshape(shape)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{'-'.join(c[1])}" for c in CASES])
def test_values_and_gradients_match_torch(case):
    name, params, value, kinds = case
    ours, ours_p = _build(framework, name, params)
    theirs, theirs_p = _build(torch, name, params)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    o, t = _outputs(framework, ours, name, value, kinds), _outputs(torch, theirs, name, value, kinds)
    assert set(o) == set(t)
    loss_o, loss_t = 0, 0
    for key in t:
        np.testing.assert_allclose(_np(o[key]), _np(t[key]), rtol=1e-9, atol=1e-12, err_msg=key)
        if t[key].requires_grad and not (key == "cdf" and name == "Gamma"):  # gammainc: no concentration grad
            finite = np.isfinite(_np(t[key]))
            w = rng_fixed_probs(t[key].shape) * finite
            loss_o = loss_o + (framework.where(framework.tensor(finite), o[key], 0.0) * framework.tensor(w)).sum()
            loss_t = loss_t + (torch.where(torch.tensor(finite), t[key], 0.0) * torch.tensor(w)).sum()
    loss_o.backward()
    loss_t.backward()
    for k in params:
        assert (ours_p[k].grad is None) == (theirs_p[k].grad is None), k
        if theirs_p[k].grad is not None:
            np.testing.assert_allclose(_np(ours_p[k].grad), _np(theirs_p[k].grad), rtol=1e-8, atol=1e-10, err_msg=k)


def test_binomial_entropy_and_support_match_torch():
    p = rng.uniform(0.1, 0.9, 3)
    ours = D.Binomial(4, framework.tensor(p, requires_grad=True))
    theirs = TD.Binomial(4, torch.tensor(p, requires_grad=True))
    np.testing.assert_allclose(_np(ours.entropy()), _np(theirs.entropy()), rtol=1e-10)
    assert ours.enumerate_support().tolist() == theirs.enumerate_support().tolist()
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `entropy`."):
        D.Binomial(framework.tensor([2.0, 3.0]), framework.tensor([0.5, 0.5])).entropy()


def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the class is compared by the caller)
        text = str(e).split("but found invalid values")[0].replace(", device='cuda:0'", "")  # the strict runs
        return type(e), text.replace("torch.", "framework.")
    raise AssertionError("no error")


@pytest.mark.parametrize("make", [
    lambda L: L.distributions.Exponential(L.tensor([1.0, -1.0])),
    lambda L: L.distributions.Uniform(L.tensor([0.0, 2.0]), L.tensor([1.0, 1.0])),
    lambda L: L.distributions.Laplace(L.tensor([0.0, 0.0]), L.tensor([1.0, 0.0])),
    lambda L: L.distributions.Gamma(L.tensor([1.0, -2.0]), L.tensor([1.0, 1.0])),
    lambda L: L.distributions.Beta(L.tensor([1.0, 2.0]), L.tensor([0.0, 1.0])),
    lambda L: L.distributions.Dirichlet(L.tensor([[1.0, -2.0]])),
    lambda L: L.distributions.Dirichlet(L.tensor(1.0)),
    lambda L: L.distributions.StudentT(L.tensor([-1.0, 2.0])),
    lambda L: L.distributions.Poisson(L.tensor([-1.0, 2.0])),
    lambda L: L.distributions.Binomial(L.tensor([2.0, 1.5]), L.tensor([0.5, 0.5])),
    lambda L: L.distributions.Binomial(3, L.tensor([0.5, 1.5])),
    lambda L: L.distributions.Binomial(3),
    lambda L: L.distributions.Geometric(L.tensor([0.0, 0.5])),
    lambda L: L.distributions.Geometric(L.tensor([1.5, 0.5])),
    lambda L: L.distributions.HalfNormal(L.tensor([1.0, -1.0])),
    lambda L: L.distributions.Cauchy(L.tensor([0.0, 0.0]), L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Gumbel(L.tensor([0.0, 0.0]), L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.LogNormal(L.tensor([0.0, 0.0]), L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), scale_tril=L.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), precision_matrix=L.tensor([[1.0, 0.5], [0.4, 1.0]])),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.eye(2), scale_tril=L.eye(2)),
    lambda L: L.distributions.MultivariateNormal(L.tensor(0.0), L.eye(2)),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.ones(2)),
    lambda L: L.distributions.Independent(L.distributions.Normal(L.zeros(2), L.ones(2)), 2),
    lambda L: L.distributions.NegativeBinomial(L.tensor([-1.0, 2.0]), L.tensor([0.5, 0.5])),
    lambda L: L.distributions.HalfCauchy(L.tensor([1.0, -1.0])),
    lambda L: L.distributions.HalfCauchy(L.tensor([1.0, 1.0])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Weibull(L.tensor([1.0, -1.0]), L.tensor([1.0, 1.0])),
    lambda L: L.distributions.Weibull(L.tensor([1.0, 1.0]), L.tensor([1.0, 0.0])),
    lambda L: L.distributions.Weibull(L.tensor([1.0, 1.0]), L.tensor([1.0, 2.0])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Pareto(L.tensor([1.0, -1.0]), L.tensor([1.0, 1.0])),
    lambda L: L.distributions.Pareto(L.tensor([1.0, 1.0]), L.tensor([1.0, -1.0])),
    lambda L: L.distributions.Pareto(L.tensor([1.0, 1.0]), L.tensor([1.0, 2.0])).log_prob(L.tensor([0.5, 1.0])),
    lambda L: L.distributions.TransformedDistribution(L.distributions.Normal(0.0, 1.0),
                                                      L.distributions.TanhTransform()).log_prob(L.tensor([2.0])),
    lambda L: L.distributions.NegativeBinomial(2.0, L.tensor([0.5, 1.0])),
    lambda L: L.distributions.Multinomial(L.tensor(3), L.tensor([0.5, 0.5])),
    lambda L: L.distributions.Multinomial(3, L.tensor([0.5, -0.5])),
    lambda L: L.distributions.Multinomial(3, L.tensor([0.5, 0.5])).log_prob(L.tensor([4.0, 1.0])),
    lambda L: L.distributions.MixtureSameFamily(L.distributions.Normal(0.0, 1.0), L.distributions.Normal(0.0, 1.0)),
    lambda L: L.distributions.MixtureSameFamily(L.distributions.Categorical(L.ones(3)),
                                                L.distributions.Normal(L.zeros(2), 1.0)),
    lambda L: L.distributions.MixtureSameFamily(L.distributions.Categorical(L.ones(3, 2)),
                                                L.distributions.Normal(L.zeros(4, 2), 1.0)),
    lambda L: L.distributions.MixtureSameFamily(L.distributions.Categorical(L.ones(2)),
                                                L.distributions.Gamma(L.ones(2), 1.0)).log_prob(L.tensor([-1.0])),
    # samples outside the support, or of the wrong shape
    lambda L: L.distributions.Exponential(L.tensor([1.0, 2.0])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Uniform(L.tensor([0.0, 0.0]), L.tensor([1.0, 2.0])).log_prob(L.tensor([0.5, 3.0])),
    lambda L: L.distributions.Gamma(L.tensor([1.0, 2.0]), L.tensor([1.0, 1.0])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Beta(L.tensor([1.0, 2.0]), L.tensor([1.0, 1.0])).log_prob(L.tensor([0.5, 1.5])),
    lambda L: L.distributions.Dirichlet(L.tensor([1.0, 2.0])).log_prob(L.tensor([0.5, 0.6])),
    lambda L: L.distributions.Poisson(L.tensor([1.0, 2.0])).log_prob(L.tensor([0.5, 1.0])),
    lambda L: L.distributions.Binomial(3, L.tensor([0.5, 0.5])).log_prob(L.tensor([4.0, 1.0])),
    lambda L: L.distributions.Geometric(L.tensor([0.5, 0.5])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.OneHotCategorical(L.tensor([0.5, 0.5])).log_prob(L.tensor([1.0, 1.0])),
    lambda L: L.distributions.LogNormal(L.tensor([0.0, 0.0]), 1.0).log_prob(L.tensor([0.0, 1.0])),
    lambda L: L.distributions.HalfNormal(L.tensor([1.0, 1.0])).log_prob(L.tensor([-1.0, 1.0])),
    lambda L: L.distributions.Laplace(L.zeros(2), 1.0).log_prob(L.zeros(3)),
    lambda L: L.distributions.Dirichlet(L.ones(3)).log_prob(L.ones(2) / 2),
    lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.eye(2)).log_prob(L.tensor([float("nan"), 0.0])),
])
def test_validation_errors_match_torch(make):
    ours, theirs = _message(lambda: make(framework)), _message(lambda: make(torch))
    assert ours == theirs


def test_cholesky_failure_message_matches_torch():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])
    make = lambda L: L.distributions.MultivariateNormal(L.zeros(2), L.tensor(a), validate_args=False)  # noqa: E731
    (ours_cls, ours), (theirs_cls, theirs) = _message(lambda: make(framework)), _message(lambda: make(torch))
    assert ours == theirs and issubclass(theirs_cls, RuntimeError) and ours_cls is RuntimeError


def test_independent_matches_torch():
    loc, scale = rng.standard_normal((4, 3)), _pos(4, 3)
    ours_loc = framework.tensor(loc, requires_grad=True)
    theirs_loc = torch.tensor(loc, requires_grad=True)
    ours = D.Independent(D.Normal(ours_loc, framework.tensor(scale)), 1)
    theirs = TD.Independent(TD.Normal(theirs_loc, torch.tensor(scale)), 1)
    assert tuple(ours.batch_shape) == (4,) and tuple(ours.event_shape) == (3,)
    x = rng.standard_normal((2, 4, 3))
    lp, tlp = ours.log_prob(framework.tensor(x)), theirs.log_prob(torch.tensor(x))
    np.testing.assert_allclose(_np(lp), _np(tlp), rtol=1e-10)
    np.testing.assert_allclose(_np(ours.entropy()), _np(theirs.entropy()), rtol=1e-10)
    (lp.sum() + ours.entropy().sum()).backward()
    (tlp.sum() + theirs.entropy().sum()).backward()
    np.testing.assert_allclose(_np(ours_loc.grad), _np(theirs_loc.grad), rtol=1e-10)
    assert ours.rsample((5,)).shape == (5, 4, 3) and ours.has_rsample
    assert tuple(ours.expand((2, 4)).batch_shape) == tuple(theirs.expand((2, 4)).batch_shape)


def test_expand_matches_torch():
    for name, params, value, _ in CASES[:12]:
        ours, _ = _build(framework, name, params, requires_grad=False)
        theirs, _ = _build(torch, name, params, requires_grad=False)
        batch = (2,) + tuple(theirs.batch_shape)
        oe, te = ours.expand(batch), theirs.expand(batch)
        assert tuple(oe.batch_shape) == tuple(te.batch_shape), name
        v = value[..., :] if name != "Dirichlet" else value
        np.testing.assert_allclose(_np(oe.log_prob(framework.tensor(v))), _np(te.log_prob(torch.tensor(v))),
                                   rtol=1e-10, err_msg=name)
        assert oe.sample((3,)).shape == te.sample((3,)).shape, name
    ours = D.Binomial(5, logits=framework.zeros(3)).expand((2, 3))
    assert ours.param_shape == (2, 3) and ours.sample().shape == (2, 3)


# ---- KL ------------------------------------------------------------------------------------------------
def _kl_pairs(L):
    t = lambda a: L.tensor(a, dtype=L.float64, requires_grad=True)  # noqa: E731
    a, b, c, d = (rng_k.uniform(0.5, 2.0, 3) for _ in range(4))
    m1, m2 = rng_k.standard_normal(3), rng_k.standard_normal(3)
    Dn = L.distributions
    return [
        (Dn.Uniform(t(-a), t(b)), Dn.Uniform(t(-a - c), t(b + d))),
        (Dn.Uniform(t(-a), t(b)), Dn.Uniform(t(-a + 0.1), t(b))),  # q misses part of p: inf
        (Dn.Exponential(t(a)), Dn.Exponential(t(b))),
        (Dn.Beta(t(a), t(b)), Dn.Beta(t(c), t(d))),
        (Dn.Gamma(t(a), t(b)), Dn.Gamma(t(c), t(d))),
        (Dn.Dirichlet(t(np.stack([a, b]))), Dn.Dirichlet(t(np.stack([c, d])))),
        (Dn.Laplace(t(m1), t(a)), Dn.Laplace(t(m2), t(b))),
        (Dn.Poisson(t(a)), Dn.Poisson(t(b))),
        (Dn.MultivariateNormal(t(np.stack([m1, m2])), scale_tril=t(np.tril(np.outer(a, b)) + 2 * np.eye(3))),
         Dn.MultivariateNormal(t(m2), covariance_matrix=t(np.outer(c, c) + np.diag(d)))),
        (Dn.Independent(Dn.Normal(t(m1), t(a)), 1), Dn.Independent(Dn.Normal(t(m2), t(b)), 1)),
        (Dn.Binomial(5, t(a / 3)), Dn.Binomial(5, t(b / 3))),
        (Dn.Binomial(L.tensor([5.0, 6.0, 5.0]), t(a / 3)), Dn.Binomial(5, t(b / 3))),  # inf where p has more trials
        (Dn.Geometric(t(a / 3)), Dn.Geometric(logits=t(m1))),
        (Dn.Gumbel(t(m1), t(a)), Dn.Gumbel(t(m2), t(b))),
        (Dn.HalfNormal(t(a)), Dn.HalfNormal(t(b))),
        (Dn.LogNormal(t(m1), t(a)), Dn.LogNormal(t(m2), t(b))),
        (Dn.OneHotCategorical(logits=t(np.stack([m1, m2]))), Dn.OneHotCategorical(probs=t(np.stack([a, b])))),
        (Dn.Cauchy(t(m1), t(a)), Dn.Cauchy(t(m2), t(b))),
        (Dn.TransformedDistribution(Dn.Normal(t(m1), t(a)), [Dn.TanhTransform(), Dn.AffineTransform(1.0, 2.0)]),
         Dn.TransformedDistribution(Dn.Normal(t(m2), t(b)), [Dn.TanhTransform(), Dn.AffineTransform(1.0, 2.0)])),
        (Dn.Independent(Dn.Gamma(t(np.stack([a, b])), t(c)), 2),
         Dn.Independent(Dn.Gamma(t(np.stack([d, a])), t(b)), 2)),
    ]


def test_kl_pairs_match_torch():
    global rng_k
    rng_k = np.random.default_rng(5)
    ours = _kl_pairs(framework)
    rng_k = np.random.default_rng(5)
    theirs = _kl_pairs(torch)
    for (p, q), (tp, tq) in zip(ours, theirs):
        kl, tkl = D.kl_divergence(p, q), TD.kl_divergence(tp, tq)
        np.testing.assert_allclose(_np(kl), _np(tkl), rtol=1e-9, err_msg=type(p).__name__)
        finite = np.isfinite(_np(tkl))
        if finite.all():
            kl.sum().backward()
            tkl.sum().backward()
    compared = 0
    for (p, q), (tp, tq) in zip(ours, theirs):  # the parameters' gradients (p's side), from the finite pairs
        for name in ("loc", "scale", "rate", "concentration", "low", "high"):
            ours_t, theirs_t = getattr(p, name, None), getattr(tp, name, None)
            if isinstance(theirs_t, torch.Tensor) and theirs_t.is_leaf and theirs_t.grad is not None:
                np.testing.assert_allclose(_np(ours_t.grad), _np(theirs_t.grad), rtol=1e-8, err_msg=name)
                compared += 1
    assert compared >= 10
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Gamma and q "
                                                  "type Beta"):
        D.kl_divergence(D.Gamma(1.0, 1.0), D.Beta(1.0, 1.0))


def test_register_kl_dispatches_to_subclasses():
    class MyExp(D.Exponential):
        pass

    p, q = MyExp(framework.tensor([2.0])), D.Exponential(framework.tensor([1.0]))
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), [math.log(2) - 0.5])

    @D.register_kl(MyExp, D.Exponential)
    def _kl(p, q):
        return framework.zeros(1)

    assert D.kl_divergence(p, q).tolist() == [0.0]
    assert D.kl_divergence(q, q).tolist() == [0.0]  # the base pair still applies
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        D.register_kl(int, D.Exponential)


# ---- sample laws and rsample gradients ------------------------------------------------------------------
def _law(dist, mean, var, n=40000, tol=0.03):
    framework.manual_seed(0)
    s = dist.sample((n,))
    assert s.shape == (n,) + tuple(dist.batch_shape) + tuple(dist.event_shape)
    x = _np(s)
    np.testing.assert_allclose(x.mean(0), mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(x.var(0), var, rtol=3 * tol, atol=tol)
    return x


def test_sample_laws():
    f64 = lambda a: framework.tensor(a, dtype=framework.float64)  # noqa: E731
    a, b = np.array([0.5, 2.0, 6.0]), np.array([1.5, 0.5, 2.0])
    x = _law(D.Uniform(f64(-a), f64(b)), (b - a) / 2, (a + b) ** 2 / 12)
    assert (x >= -a).all() and (x < b).all()
    assert (_law(D.Exponential(f64(b)), 1 / b, 1 / b ** 2) >= 0).all()
    _law(D.Laplace(f64(a), f64(b)), a, 2 * b ** 2)
    _law(D.Gumbel(f64(a), f64(b)), a + 0.5772156649 * b, math.pi ** 2 / 6 * b ** 2)
    assert (_law(D.HalfNormal(f64(b)), b * math.sqrt(2 / math.pi), b ** 2 * (1 - 2 / math.pi)) >= 0).all()
    _law(D.LogNormal(f64(a / 4), f64(b / 4)), np.exp(a / 4 + b ** 2 / 32), np.expm1(b ** 2 / 16) *
         np.exp(a / 2 + b ** 2 / 16), n=100000, tol=0.05)
    assert (_law(D.Gamma(f64(a), f64(b)), a / b, a / b ** 2) > 0).all()
    x = _law(D.Beta(f64(a), f64(b)), a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    assert ((x > 0) & (x < 1)).all()
    x = _law(D.Dirichlet(f64(a)), a / a.sum(), a * (a.sum() - a) / (a.sum() ** 2 * (a.sum() + 1)))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    _law(D.StudentT(f64([5.0, 8.0]), f64([1.0, -1.0]), f64([1.0, 2.0])), [1.0, -1.0], [5 / 3, 4 * 8 / 6],
         n=100000, tol=0.05)
    x = _law(D.Poisson(f64(b)), b, b)
    assert (x == np.round(x)).all()
    x = _law(D.Binomial(framework.tensor([3.0, 10.0, 5.0], dtype=framework.float64), f64([0.2, 0.5, 0.9])),
             [0.6, 5.0, 4.5], [0.48, 2.5, 0.45])
    assert (x == np.round(x)).all() and (x <= [3, 10, 5]).all()
    p = np.array([0.2, 0.5, 0.9])
    _law(D.Geometric(f64(p)), 1 / p - 1, (1 / p - 1) / p)
    x = _law(D.OneHotCategorical(f64(p / p.sum())), p / p.sum(), p / p.sum() * (1 - p / p.sum()))
    assert (x.sum(-1) == 1).all()
    framework.manual_seed(4)
    hc = _np(D.HalfCauchy(f64([1.0, 2.0])).sample((40000,)))
    assert (hc >= 0).all()
    np.testing.assert_allclose(np.median(hc, 0), [1.0, 2.0], rtol=0.05)  # the median of |Cauchy(0, s)| is s
    _law(D.Weibull(f64([1.0, 2.0]), f64([2.0, 3.0])), [0.886227, 2 * 0.892980], [0.214602, 4 * 0.105332])
    _law(D.Pareto(f64([1.0, 2.0]), f64([5.0, 6.0])), [1.25, 2.4], [5 / 48, 4 * 6 / 100])
    x = _law(D.NegativeBinomial(f64([3.0, 1.5]), f64([0.3, 0.6])), [3 * 0.3 / 0.7, 1.5 * 1.5],
             [3 * 0.3 / 0.49, 1.5 * 0.6 / 0.16])
    assert (x == np.round(x)).all()
    x = _law(D.Multinomial(6, f64([0.2, 0.3, 0.5])), [1.2, 1.8, 3.0], [0.96, 1.26, 1.5])
    assert (x.sum(-1) == 6).all()
    mix = D.MixtureSameFamily(D.Categorical(f64([0.3, 0.7])), D.Normal(f64([-2.0, 3.0]), f64([1.0, 0.5])))
    _law(mix, 0.3 * -2 + 0.7 * 3, 0.3 * 1 + 0.7 * 0.25 + 0.3 * 0.7 * 25)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    x = _law(D.MultivariateNormal(f64([1.0, -1.0]), f64(cov)), [1.0, -1.0], np.diag(cov))
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05)
    framework.manual_seed(3)
    cauchy = _np(D.Cauchy(f64([1.0]), f64([2.0])).sample((40000,)))
    np.testing.assert_allclose(np.median(cauchy), 1.0, atol=0.05)
    np.testing.assert_allclose(np.percentile(cauchy, 75) - np.median(cauchy), 2.0, rtol=0.05)


def test_samples_repeat_under_manual_seed_and_keep_dtype():
    d = D.Gamma(framework.tensor([0.5, 3.0]), framework.tensor([1.0, 2.0]))
    framework.manual_seed(7)
    a = d.sample((5,))
    framework.manual_seed(7)
    b = d.sample((5,))
    assert a.tolist() == b.tolist() and a.dtype == framework.float32 and not a.requires_grad
    assert D.Poisson(framework.tensor([1.0])).sample((2,)).dtype == framework.float32


def test_gamma_family_rsample_gradients():
    """Implicit reparameterisation: the per-sample gradients match torch's _standard_gamma_grad and
    _Dirichlet_backward to their approximation error, and E[d x / d alpha] = d E[x] / d alpha."""
    framework.manual_seed(0)
    alpha = framework.tensor([0.3, 1.0, 4.0, 20.0], dtype=framework.float64, requires_grad=True)
    x = D.Gamma(alpha, 1.0).rsample((20000,))
    x.sum().backward()
    np.testing.assert_allclose(_np(alpha.grad) / 20000, 1.0, rtol=0.03)
    from framework.distributions._gamma import standard_gamma_grad_array
    xs = _np(x)[:200]
    al = np.broadcast_to(_np(alpha), xs.shape)
    ours = standard_gamma_grad_array(np.ascontiguousarray(al), xs)
    theirs = torch._standard_gamma_grad(torch.tensor(al), torch.tensor(xs)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)
    # Beta through Dirichlet: d E[x] / d a = b / (a + b)^2
    a = framework.tensor([2.0], dtype=framework.float64, requires_grad=True)
    b = framework.tensor([3.0], dtype=framework.float64, requires_grad=True)
    framework.manual_seed(1)
    D.Beta(a, b).rsample((40000,)).mean().backward()
    np.testing.assert_allclose(_np(a.grad), [3 / 25], rtol=0.05)
    np.testing.assert_allclose(_np(b.grad), [-2 / 25], rtol=0.05)
    # Dirichlet: the per-sample gradient is torch's _Dirichlet_backward at the same draw
    conc = framework.tensor([[0.5, 2.0, 4.0], [1.0, 1.5, 8.0]], dtype=framework.float64, requires_grad=True)
    framework.manual_seed(2)
    x = D.Dirichlet(conc).rsample((50,))
    g = rng.standard_normal(x.shape)
    (x * framework.tensor(g)).sum().backward()
    from torch.distributions.dirichlet import _Dirichlet_backward
    tconc = torch.tensor(_np(conc)).expand(50, 2, 3)
    expected = _Dirichlet_backward(torch.tensor(_np(x)), tconc, torch.tensor(g)).sum(0)
    np.testing.assert_allclose(_np(conc.grad), expected.numpy(), rtol=3e-3, atol=1e-6)
    df = framework.tensor([4.0], dtype=framework.float64, requires_grad=True)
    assert D.StudentT(df).rsample((3,)).requires_grad
    with pytest.raises(NotImplementedError):
        D.Poisson(framework.tensor([1.0])).rsample()


def test_one_hot_straight_through_passes_probs_gradient():
    logits = framework.tensor([[0.1, 0.5, -0.3]], requires_grad=True)
    framework.manual_seed(0)
    s = D.OneHotCategoricalStraightThrough(logits=logits).rsample((4,))
    assert s.shape == (4, 1, 3) and (_np(s).sum(-1) == 1).all()
    (s * framework.tensor([1.0, 2.0, 3.0])).sum().backward()
    tl = torch.tensor([[0.1, 0.5, -0.3]], requires_grad=True)
    (4 * (torch.softmax(tl, -1) * torch.tensor([1.0, 2.0, 3.0]))).sum().backward()
    np.testing.assert_allclose(_np(logits.grad), _np(tl.grad), rtol=1e-5)


def test_expand_of_the_existing_laws_matches_torch():
    p = rng.uniform(0.1, 0.9, (1, 3))
    for name, kw in [("Categorical", "probs"), ("Categorical", "logits"), ("Bernoulli", "probs"),
                     ("Bernoulli", "logits"), ("Normal", None)]:
        args = {kw: p} if kw else {"loc": p, "scale": p}
        ours, _ = _build(framework, name, args, requires_grad=False)
        theirs, _ = _build(torch, name, args, requires_grad=False)
        shape = (4, 1) if name == "Categorical" else (4, 3)
        oe, te = ours.expand(shape), theirs.expand(shape)
        assert tuple(oe.batch_shape) == tuple(te.batch_shape) and oe.sample().shape == te.sample().shape
        np.testing.assert_allclose(_np(oe.entropy()), _np(te.entropy()), rtol=1e-10)


# ---- TransformedDistribution and transforms -------------------------------------------------------------
def _transformed(L, loc, scale, shift, mult, kind):
    Dn, T = L.distributions, L.distributions.transforms
    base = Dn.Normal(loc, scale)
    chains = {"tanh_affine": [T.TanhTransform(), T.AffineTransform(shift, mult)],
              "exp": [T.ExpTransform()], "sigmoid": [T.SigmoidTransform()],
              "affine_neg": [T.AffineTransform(shift, -mult)],
              "inverse_exp": [T.ExpTransform(), T.ExpTransform().inv],
              "compose": [T.ComposeTransform([T.AffineTransform(shift, mult), T.TanhTransform()])]}
    return Dn.TransformedDistribution(base, chains[kind])


@pytest.mark.parametrize("kind", ["tanh_affine", "exp", "sigmoid", "affine_neg", "inverse_exp", "compose"])
def test_transformed_distribution_matches_torch(kind):
    arrays = [rng.standard_normal(3) * 0.5, _pos(3), rng.standard_normal(3), _pos(3)]
    ours_l = [framework.tensor(a, requires_grad=True) for a in arrays]
    theirs_l = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = _transformed(framework, *ours_l, kind), _transformed(torch, *theirs_l, kind)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) and ours.has_rsample
    with torch.no_grad():
        y = theirs.sample((2,))
    lp, tlp = ours.log_prob(framework.tensor(y.numpy())), theirs.log_prob(y)
    np.testing.assert_allclose(_np(lp), _np(tlp), rtol=1e-9)
    loss, tloss = lp.sum(), tlp.sum()
    if kind in ("exp", "affine_neg", "tanh_affine"):
        c, tc = ours.cdf(framework.tensor(y.numpy())), theirs.cdf(y)
        q = np.linspace(0.1, 0.9, 3)
        i, ti = ours.icdf(framework.tensor(q)), theirs.icdf(torch.tensor(q))
        np.testing.assert_allclose(_np(c), _np(tc), rtol=1e-9)
        np.testing.assert_allclose(_np(i), _np(ti), rtol=1e-9)
        loss, tloss = loss + c.sum() + i.sum(), tloss + tc.sum() + ti.sum()
    loss.backward()
    tloss.backward()
    for o, t in zip(ours_l, theirs_l):
        assert (o.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=1e-8, atol=1e-12)


def test_tanh_policy_with_cache_as_in_sac():
    """SAC's squashed Gaussian: log_prob of its own rsample uses the cached pre-image, finite even where tanh
    rounds to 1."""
    loc = framework.tensor([0.0, 40.0], dtype=framework.float64, requires_grad=True)
    d = D.TransformedDistribution(D.Normal(loc, 1.0), [D.TanhTransform(cache_size=1)])
    framework.manual_seed(0)
    y = d.rsample()
    assert y[1].item() == 1.0
    lp = d.log_prob(y)
    assert np.isfinite(_np(lp)).all()
    x = y.detach().atanh()[0]
    expected = D.Normal(0.0, 1.0).log_prob(x) - 2.0 * (math.log(2.0) - x - framework.nn.functional.softplus(-2.0 * x))
    np.testing.assert_allclose(lp[0].item(), expected.item(), rtol=1e-10)
    lp.sum().backward()
    assert np.isfinite(_np(loc.grad)).all()
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was 3"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), 3)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        D.ExpTransform(cache_size=2)


def test_affine_event_dim_and_lognormal_equivalence():
    loc, scale = rng.standard_normal((2, 3)), _pos(2, 3)
    for L in (framework, torch):
        base = L.distributions.Normal(L.tensor(loc), L.tensor(scale))
        d = L.distributions.TransformedDistribution(
            base, [L.distributions.AffineTransform(L.tensor(loc[0]), L.tensor(scale[0]), event_dim=1)])
        assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (3,)
    ours = D.TransformedDistribution(D.Normal(framework.tensor(loc), framework.tensor(scale)),
                                     [D.AffineTransform(framework.tensor(loc[0]), framework.tensor(scale[0]), 1)])
    theirs = TD.TransformedDistribution(TD.Normal(torch.tensor(loc), torch.tensor(scale)),
                                        [TD.AffineTransform(torch.tensor(loc[0]), torch.tensor(scale[0]), 1)])
    x = rng.standard_normal((4, 2, 3))
    np.testing.assert_allclose(_np(ours.log_prob(framework.tensor(x))), _np(theirs.log_prob(torch.tensor(x))),
                               rtol=1e-10)
    assert ours.sample((4,)).shape == (4, 2, 3) and ours.expand((5, 2)).batch_shape == (5, 2)
    y = _pos(2, 3)
    via_exp = D.TransformedDistribution(D.Normal(framework.tensor(loc), framework.tensor(scale)), D.ExpTransform())
    np.testing.assert_allclose(_np(via_exp.log_prob(framework.tensor(y))),
                               _np(D.LogNormal(framework.tensor(loc), framework.tensor(scale))
                                   .log_prob(framework.tensor(y))), rtol=1e-12)


# ---- constraints, support, arg_constraints --------------------------------------------------------------
def _strip(text):
    return text.replace(", device='cuda:0'", "").replace("framework.", "torch.")


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{'-'.join(c[1])}" for c in CASES])
def test_support_and_arg_constraints_match_torch(case):
    name, params, value, _ = case
    ours, _ = _build(framework, name, params, requires_grad=False)
    theirs, _ = _build(torch, name, params, requires_grad=False)
    assert _strip(repr(ours.support)) == repr(theirs.support)
    assert {k: _strip(repr(v)) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    assert ours.support.event_dim == theirs.support.event_dim
    assert ours.support.is_discrete == theirs.support.is_discrete
    inside = ours.support.check(framework.tensor(value)).tolist()
    assert inside == theirs.support.check(torch.tensor(value)).tolist()


def test_constraint_checks_match_torch():
    C, TC = D.constraints, TD.constraints
    values = [np.array([-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")]), np.array([[0.3, 0.7], [0.5, 0.6]]),
              np.array([[[1.0, 0.0], [0.3, 2.0]], [[1.0, 0.2], [0.2, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])]
    names = ["real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
             "positive_integer", "simplex", "one_hot", "real_vector", "lower_cholesky", "lower_triangular",
             "positive_definite", "symmetric", "square"]
    for n in names:
        assert repr(getattr(C, n)) == repr(getattr(TC, n)), n
        for v in values:
            if v.ndim < getattr(TC, n).event_dim:
                continue
            assert getattr(C, n).check(framework.tensor(v)).tolist() == getattr(TC, n).check(torch.tensor(v)).tolist()
    for ours, theirs in [(C.interval(-1.0, 1.0), TC.interval(-1.0, 1.0)), (C.greater_than(0.5), TC.greater_than(0.5)),
                         (C.less_than(0.5), TC.less_than(0.5)), (C.half_open_interval(0.0, 1.0),
                                                                 TC.half_open_interval(0.0, 1.0)),
                         (C.integer_interval(0, 2), TC.integer_interval(0, 2)),
                         (C.greater_than_eq(0.0), TC.greater_than_eq(0.0)),
                         (C.independent(C.positive, 1), TC.independent(TC.positive, 1))]:
        assert repr(ours) == repr(theirs)
        assert ours.check(framework.tensor(values[1])).tolist() == theirs.check(torch.tensor(values[1])).tolist()
    assert C.is_dependent(C.dependent) and C.is_dependent(D.Uniform.support)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(framework.zeros(1))


def test_transformed_and_independent_support_match_torch():
    for L in (framework, torch):
        Dn = L.distributions
        d = Dn.TransformedDistribution(Dn.Normal(L.zeros(3), L.ones(3)), [Dn.TanhTransform()])
        i = Dn.Independent(Dn.Normal(L.zeros(2, 3), L.ones(2, 3)), 2)
        c = Dn.Categorical(logits=L.zeros(4))
        reprs = [repr(d.support), repr(i.support), repr(c.support), repr(Dn.Bernoulli(0.5).support),
                 repr(Dn.AffineTransform(0.0, 1.0, event_dim=1).domain)]
        if L is framework:
            ours = reprs
    assert ours == reprs


def _registry_constraints(C):
    return [C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.less_than(1.0), C.unit_interval,
            C.interval(-1.0, 3.0), C.half_open_interval(0.0, 1.0), C.independent(C.positive, 1),
            C.independent(C.interval(-2.0, 2.0), 1)]


@pytest.mark.parametrize("registry", ["transform_to", "biject_to"])
def test_transform_to_and_biject_to_match_torch(registry):
    x = rng.standard_normal((2, 3))
    for ours_c, theirs_c in zip(_registry_constraints(D.constraints), _registry_constraints(TD.constraints)):
        ours, theirs = getattr(D, registry)(ours_c), getattr(TD, registry)(theirs_c)
        assert repr(ours) == repr(theirs)
        xo, xt = framework.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        yo, yt = ours(xo), theirs(xt)
        np.testing.assert_allclose(_np(yo), _np(yt), rtol=1e-12)
        assert ours_c.check(yo).all() and repr(ours.codomain) == repr(theirs.codomain)
        np.testing.assert_allclose(_np(ours.inv(yo)), x, rtol=1e-9, atol=1e-12)
        jo, jt = ours.log_abs_det_jacobian(xo, yo), theirs.log_abs_det_jacobian(xt, yt)
        np.testing.assert_allclose(_np(jo), _np(jt), rtol=1e-12, atol=1e-14)
        (yo.sum() + jo.sum()).backward()
        (yt.sum() + jt.sum()).backward()
        np.testing.assert_allclose(_np(xo.grad), _np(xt.grad), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="Cannot transform _Simplex constraints"):
        getattr(D, registry)(D.constraints.simplex)


def test_constrained_parameter_fit_as_in_bayesian_examples():
    """A positive scale kept as an unconstrained parameter through transform_to, fitted by maximum likelihood:
    the same loss and gradients as torch's at every step."""
    data = rng.standard_normal(50) * 2.0 + 1.0
    results = []
    for L in (framework, torch):
        u = L.zeros(2, dtype=L.float64, requires_grad=True)
        opt = L.optim.SGD([u], lr=0.01)
        to_pos = L.distributions.transform_to(L.distributions.constraints.positive)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            scale = to_pos(u[1])
            loss = -L.distributions.Normal(u[0], scale).log_prob(L.tensor(data)).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append((losses, u.detach().cpu().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


# ---- ordinary PyTorch code run with `framework` in torch's place ----------------------------------------
def _vae_and_sac_step(L, weights, x, seed_eps):
    """One VAE loss (Normal posterior with rsample, Bernoulli likelihood, analytic KL through Independent) and
    one SAC-style squashed-Gaussian policy loss, written against torch's API."""
    Dn = L.distributions
    W_mu, W_ls, W_dec, W_pol = (L.tensor(w, requires_grad=True) for w in weights)
    mu, log_std = x @ W_mu, x @ W_ls
    q = Dn.Independent(Dn.Normal(mu, log_std.exp()), 1)
    prior = Dn.Independent(Dn.Normal(L.zeros_like(mu), L.ones_like(mu)), 1)
    z = q.mean + L.tensor(seed_eps) * q.stddev  # the same noise in both libraries
    recon = Dn.Independent(Dn.Bernoulli(logits=z @ W_dec), 1).log_prob((x > 0).to(x.dtype))
    vae = (Dn.kl_divergence(q, prior) - recon).mean()
    act_mu = x @ W_pol
    pi = Dn.TransformedDistribution(Dn.Normal(act_mu, 0.5), [Dn.TanhTransform(cache_size=1)])
    a = pi.base_dist.mean.tanh()
    sac = (pi.log_prob(a).sum(-1) - (a ** 2).sum(-1)).mean()
    loss = vae + sac
    loss.backward()
    return [loss] + [w.grad for w in (W_mu, W_ls, W_dec, W_pol)]


def test_vae_and_sac_losses_and_gradients_match_torch():
    weights = [rng.standard_normal((4, 2)) * 0.3 for _ in range(2)] + [rng.standard_normal((2, 4)) * 0.3,
                                                                       rng.standard_normal((4, 2)) * 0.3]
    x = rng.standard_normal((5, 4))
    eps = rng.standard_normal((5, 2))
    ours = _vae_and_sac_step(framework, weights, framework.tensor(x), eps)
    theirs = _vae_and_sac_step(torch, weights, torch.tensor(x), eps)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(_np(o), _np(t), rtol=1e-10, atol=1e-12)


def test_mixture_same_family_matches_torch():
    """A batch of 2-D Gaussian mixtures (Independent components) and a 1-D mixture: log_prob, moments, cdf,
    gradients, shapes, sampling."""
    logits, loc, scale = rng.standard_normal((4, 3)), rng.standard_normal((4, 3, 2)), _pos(4, 3, 2)
    x = rng.standard_normal((5, 4, 2))
    results = []
    for L in (framework, torch):
        Dn = L.distributions
        leaves = [L.tensor(a, requires_grad=True) for a in (logits, loc, scale)]
        mix = Dn.MixtureSameFamily(Dn.Categorical(logits=leaves[0]),
                                   Dn.Independent(Dn.Normal(leaves[1], leaves[2]), 1))
        flat = Dn.MixtureSameFamily(Dn.Categorical(logits=leaves[0]), Dn.Normal(leaves[1][..., 0], leaves[2][..., 0]))
        lp = mix.log_prob(L.tensor(x))
        outs = [lp, mix.mean, mix.variance, flat.cdf(L.tensor(x[..., 0])), flat.log_prob(L.tensor(x[..., 0]))]
        sum(o.sum() for o in outs).backward()
        assert tuple(mix.batch_shape) == (4,) and tuple(mix.event_shape) == (2,)
        assert tuple(mix.sample((6,)).shape) == (6, 4, 2) and tuple(mix.expand((3, 4)).batch_shape) == (3, 4)
        results.append([_np(o) for o in outs] + [_np(t.grad) for t in leaves])
    for o, t in zip(*results):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


# ---- relaxed (Gumbel-softmax / Concrete) laws ------------------------------------------------------------
@pytest.mark.parametrize("name,kw", [("RelaxedBernoulli", "probs"), ("RelaxedBernoulli", "logits"),
                                     ("LogitRelaxedBernoulli", "logits"), ("RelaxedOneHotCategorical", "probs"),
                                     ("RelaxedOneHotCategorical", "logits"), ("ExpRelaxedCategorical", "logits")])
def test_relaxed_laws_match_torch(name, kw):
    onehot = "Categorical" in name
    param = _pos(2, 3) if kw == "probs" else rng.standard_normal((2, 3) if onehot else 3)
    if kw == "probs" and not onehot:
        param = rng.uniform(0.1, 0.9, 3)
    temp = np.array(0.7)
    if name == "RelaxedBernoulli":
        value = rng.uniform(0.05, 0.95, (4, 3))
    elif name == "LogitRelaxedBernoulli":
        value = rng.standard_normal((4, 3))
    else:
        value = rng.dirichlet(np.ones(3), (4, 2))
        value = np.log(value) if name.startswith("Exp") else value
    results = []
    for L in (framework, torch):
        t, p = L.tensor(temp, requires_grad=True), L.tensor(param, requires_grad=True)
        module = getattr(L.distributions, "relaxed_categorical" if "Categorical" in name else "relaxed_bernoulli")
        d = getattr(module, name)(t, **{kw: p})
        lp = d.log_prob(L.tensor(value))
        lp.sum().backward()
        results.append((_np(lp), _np(t.grad), _np(p.grad), tuple(d.batch_shape), tuple(d.event_shape),
                        tuple(d.rsample((5,)).shape), _strip(repr(d.support))))
    for o, th in zip(*results):
        if isinstance(o, np.ndarray):
            np.testing.assert_allclose(o, th, rtol=1e-9, atol=1e-12)
        else:
            assert o == th


def test_relaxed_samples_and_reparameterisation():
    framework.manual_seed(0)
    probs = framework.tensor([0.1, 0.3, 0.6], dtype=framework.float64)
    s = _np(D.RelaxedOneHotCategorical(framework.tensor(0.05, dtype=framework.float64), probs=probs)
            .sample((20000,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-10)
    np.testing.assert_allclose(np.bincount(s.argmax(-1), minlength=3) / 20000, [0.1, 0.3, 0.6], atol=0.015)
    b = _np(D.RelaxedBernoulli(framework.tensor(0.05, dtype=framework.float64),
                               probs=framework.tensor([0.2, 0.7], dtype=framework.float64)).sample((20000,)))
    assert ((b > 0) & (b < 1)).all()
    np.testing.assert_allclose((b > 0.5).mean(0), [0.2, 0.7], atol=0.015)
    logits = framework.tensor([[0.2, -0.4, 1.0]], dtype=framework.float64, requires_grad=True)
    state = framework.get_rng_state()

    def draw(lg):
        framework.set_rng_state(state)
        return D.RelaxedOneHotCategorical(framework.tensor(0.5, dtype=framework.float64), logits=lg).rsample((3,))

    assert framework.autograd.gradcheck(draw, (logits,))


def _user_distribution(L):
    """A user-defined law written against torch's API: arg_constraints, support, a lazy_property."""
    Dn = L.distributions

    class Scaled(Dn.Distribution):
        arg_constraints = {"rate": Dn.constraints.positive, "inv_rate": Dn.constraints.positive}
        support = Dn.constraints.nonnegative

        def __init__(self, rate, validate_args=None):
            (self.rate,) = Dn.utils.broadcast_all(rate)
            super().__init__(self.rate.shape, validate_args=validate_args)

        @Dn.utils.lazy_property
        def inv_rate(self):
            return 1 / self.rate

        def log_prob(self, value):
            if self._validate_args:
                self._validate_sample(value)
            return self.rate.log() - self.rate * value

    return Scaled


def test_user_defined_distribution_validates_as_torch():
    ours, theirs = _user_distribution(framework), _user_distribution(torch)
    bad = lambda L, cls: cls(L.tensor([1.0, -2.0]))  # noqa: E731
    assert _message(lambda: bad(framework, ours)) == _message(lambda: bad(torch, theirs))
    d, td = ours(framework.tensor([1.0, 2.0])), theirs(torch.tensor([1.0, 2.0]))
    assert "inv_rate" not in d.__dict__ and d.inv_rate.tolist() == td.inv_rate.tolist() and "inv_rate" in d.__dict__
    assert repr(d).replace("framework.", "torch.").replace("Scaled", "") == repr(td).replace("Scaled", "")
    assert _message(lambda: d.log_prob(framework.tensor([-1.0, 0.0]))) == \
        _message(lambda: td.log_prob(torch.tensor([-1.0, 0.0])))
    nan_logits = lambda L: L.distributions.Categorical(logits=L.tensor([0.0, float("nan")]))  # noqa: E731
    assert _message(lambda: nan_logits(framework)) == _message(lambda: nan_logits(torch))
