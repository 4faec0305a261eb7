"""float64 gradchecks (no torch needed) of the added distributions: log_prob, entropy, moments, cdf/icdf and
KL in their parameters; rsample where the noise is a fixed transform; the linear-algebra helpers."""
import numpy as np
import pytest

import framework
from framework import distributions as D
from framework.distributions._linalg import cholesky, cholesky_inverse, solve_triangular
from framework.testing import gradcheck

rng = np.random.default_rng(1)


def _leaf(a):
    return framework.tensor(a, dtype=framework.float64, requires_grad=True)


def _pos(*shape, low=0.5, high=2.0):
    return rng.uniform(low, high, shape)


def _tril(n):
    return np.tril(rng.standard_normal((n, n))) + 3 * np.eye(n)


# name, parameters, log_prob values, extra outputs (c: cdf, i: icdf), fixed keyword arguments
CASES = [
    ("Uniform", dict(low=rng.uniform(-2, 0, 3), high=rng.uniform(1, 3, 3)), rng.uniform(0, 0.9, (2, 3)), "ci", {}),
    ("Exponential", dict(rate=_pos(3)), _pos(2, 3), "ci", {}),
    ("Laplace", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci", {}),
    ("Cauchy", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci", {}),
    ("Gumbel", dict(loc=rng.standard_normal(3), scale=_pos(3)), rng.standard_normal((2, 3)), "ci", {}),
    ("HalfNormal", dict(scale=_pos(3)), _pos(2, 3), "ci", {}),
    ("LogNormal", dict(loc=rng.standard_normal(3), scale=_pos(3)), _pos(2, 3), "ci", {}),
    ("Gamma", dict(concentration=_pos(3, high=3), rate=_pos(3)), _pos(2, 3), "", {}),
    ("HalfCauchy", dict(scale=_pos(3)), _pos(2, 3), "ci", {}),
    ("Weibull", dict(scale=_pos(3), concentration=_pos(3, low=0.8, high=3)), _pos(2, 3), "ci", {}),
    ("Pareto", dict(scale=_pos(3, low=0.2, high=0.5), alpha=_pos(3, low=2.5, high=4)), _pos(2, 3, low=0.6, high=3),
     "ci", {}),
    ("Chi2", dict(df=_pos(3, low=1, high=5)), _pos(2, 3), "", {}),
    ("Beta", dict(concentration1=_pos(3), concentration0=_pos(3)), rng.uniform(0.1, 0.9, (2, 3)), "", {}),
    ("Dirichlet", dict(concentration=_pos(2, 4)), rng.dirichlet(np.ones(4), 2), "", {}),
    ("StudentT", dict(df=_pos(3, low=2.5, high=6), loc=rng.standard_normal(3), scale=_pos(3)),
     rng.standard_normal((2, 3)), "", {}),
    ("Poisson", dict(rate=_pos(3)), np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 5.0]]), "", {}),
    ("Binomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), "",
     dict(total_count=6.0)),
    ("Geometric", dict(probs=rng.uniform(0.1, 0.9, 3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 5.0]]), "", {}),
    ("OneHotCategorical", dict(logits=rng.standard_normal((2, 3))), np.eye(3)[[[0, 2], [1, 1]]], "", {}),
    ("NegativeBinomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 7.0]]), "",
     dict(total_count=3.0)),
    ("Multinomial", dict(logits=rng.standard_normal(3)), np.array([[0.0, 1.0, 4.0], [2.0, 2.0, 1.0]]), "",
     dict(total_count=5)),
    ("MultivariateNormal", dict(loc=rng.standard_normal((2, 3)), scale_tril=_tril(3)),
     rng.standard_normal((4, 2, 3)), "", {}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_log_prob_and_moments_gradcheck(case):
    name, params, value, kinds, fixed = case
    v = framework.tensor(value, dtype=framework.float64)
    probs = framework.tensor(np.linspace(0.1, 0.9, value.size).reshape(value.shape), dtype=framework.float64)

    def outputs(*leaves):
        d = getattr(D, name)(**dict(zip(params, leaves)), **fixed, validate_args=False)
        outs = [d.log_prob(v), d.mean, d.variance]
        if name not in ("Poisson", "Geometric", "NegativeBinomial"):  # no entropy in torch either
            outs.append(d.entropy())
        if "c" in kinds:
            outs += [d.cdf(v), d.icdf(probs)]
        return tuple(o for o in outs if o.requires_grad)

    assert gradcheck(outputs, tuple(_leaf(p) for p in params.values()))


def test_covariance_and_precision_paths_gradcheck():
    m = rng.standard_normal((3, 3))
    cov = _leaf(m @ m.T + 3 * np.eye(3))
    loc = _leaf(rng.standard_normal(3))
    x = framework.tensor(rng.standard_normal((2, 3)), dtype=framework.float64)

    def sym(a):
        return (a + a.mT) / 2  # gradcheck perturbs one entry at a time; the law only sees the symmetric part

    assert gradcheck(lambda m, c: D.MultivariateNormal(m, sym(c), validate_args=False).log_prob(x), (loc, cov))
    assert gradcheck(lambda m, p: D.MultivariateNormal(m, precision_matrix=sym(p), validate_args=False)
                     .log_prob(x), (loc, cov))
    assert gradcheck(lambda c: D.MultivariateNormal(loc.detach(), sym(c), validate_args=False).entropy(), (cov,))


def test_linalg_helpers_gradcheck():
    L, B = _leaf(np.stack([_tril(3), _tril(3)])), _leaf(rng.standard_normal((3, 2)))
    assert gradcheck(lambda a, b: solve_triangular(a, b, upper=False), (L, B))
    assert gradcheck(lambda a, b: solve_triangular(a.mT, b, upper=True), (L, B))
    assert gradcheck(lambda a, b: solve_triangular(a, b.mT, upper=False, left=False), (L, B))
    assert gradcheck(lambda a: cholesky_inverse(a.tril()), (L,))  # torch: only the lower triangle is read
    a = (L.detach() @ L.detach().mT).requires_grad_()
    assert gradcheck(lambda a: cholesky((a + a.mT) / 2), (a,))


def test_kl_gradcheck():
    a, b, c, d = (_leaf(_pos(3)) for _ in range(4))
    pairs = [lambda a, b, c, d: D.kl_divergence(D.Exponential(a), D.Exponential(b)),
             lambda a, b, c, d: D.kl_divergence(D.Beta(a, b), D.Beta(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Gamma(a, b), D.Gamma(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Laplace(a, b), D.Laplace(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Poisson(a), D.Poisson(b)),
             lambda a, b, c, d: D.kl_divergence(D.Uniform(-a, b), D.Uniform(-a - c, b + d)),
             lambda a, b, c, d: D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)),
             lambda a, b, c, d: D.kl_divergence(D.Gumbel(a, b), D.Gumbel(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Cauchy(a, b), D.Cauchy(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Binomial(4, a / 3), D.Binomial(4, b / 3)),
             lambda a, b, c, d: D.kl_divergence(D.Geometric(a / 3), D.Geometric(b / 3)),
             lambda a, b, c, d: D.kl_divergence(D.LogNormal(a, b), D.LogNormal(c, d)),
             lambda a, b, c, d: D.kl_divergence(D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(c, d), 1)),
             lambda a, b, c, d: D.kl_divergence(
                 D.MultivariateNormal(a, scale_tril=(b.diag() + c.outer(d).tril(-1)), validate_args=False),
                 D.MultivariateNormal(d, scale_tril=(c + 1).diag(), validate_args=False))]
    for fn in pairs:
        assert gradcheck(fn, (a, b, c, d))


@pytest.mark.parametrize("name", ["Uniform", "Exponential", "Laplace", "Cauchy", "Gumbel", "HalfNormal",
                                  "LogNormal", "MultivariateNormal"])
def test_rsample_gradcheck(name):
    """d rsample / d params is the derivative of the transform of the same noise (noise fixed by the seed)."""
    params = {"Uniform": dict(low=-_pos(3), high=_pos(3)), "Exponential": dict(rate=_pos(3)),
              "Laplace": dict(loc=rng.standard_normal(3), scale=_pos(3)),
              "Cauchy": dict(loc=rng.standard_normal(3), scale=_pos(3)),
              "Gumbel": dict(loc=rng.standard_normal(3), scale=_pos(3)), "HalfNormal": dict(scale=_pos(3)),
              "LogNormal": dict(loc=rng.standard_normal(3), scale=_pos(3)),
              "MultivariateNormal": dict(loc=rng.standard_normal(3), scale_tril=_tril(3))}[name]
    framework.manual_seed(0)
    state = framework.get_rng_state()

    def draw(*leaves):
        framework.set_rng_state(state)
        # validate_args=False: gradcheck's perturbation of scale_tril's upper zeros leaves it non-triangular
        return getattr(D, name)(**dict(zip(params, leaves)), validate_args=False).rsample((4,))

    assert gradcheck(draw, tuple(_leaf(p) for p in params.values()))


def test_transformed_distribution_gradcheck():
    loc, scale, shift, mult = _leaf(rng.standard_normal(3) * 0.5), _leaf(_pos(3)), _leaf(rng.standard_normal(3)), \
        _leaf(_pos(3))
    y = framework.tensor(rng.uniform(-0.8, 0.8, (2, 3)), dtype=framework.float64)
    u = framework.tensor(rng.uniform(0.1, 0.9, (2, 3)), dtype=framework.float64)

    def squashed(m, s, a, b):
        d = D.TransformedDistribution(D.Normal(m, s), [D.TanhTransform(), D.AffineTransform(a, b)])
        return d.log_prob(a + b * y), d.cdf(a + b * y), d.icdf(u)

    def logit_normal(m, s):
        return D.TransformedDistribution(D.Normal(m, s), D.SigmoidTransform()).log_prob(u)

    assert gradcheck(squashed, (loc, scale, shift, mult))
    assert gradcheck(logit_normal, (loc, scale))


def test_transform_to_gradcheck():
    C = D.constraints
    x = _leaf(rng.standard_normal((2, 3)))
    for c in (C.positive, C.less_than(1.0), C.interval(-1.0, 3.0), C.independent(C.interval(-2.0, 2.0), 1)):
        t = D.transform_to(c)
        assert gradcheck(lambda a: (t(a), t.log_abs_det_jacobian(a, t(a)), t.inv(t(a))), (x,))


def test_mixture_gradcheck():
    logits, loc, scale = _leaf(rng.standard_normal(3)), _leaf(rng.standard_normal(3)), _leaf(_pos(3))
    x = framework.tensor(rng.standard_normal(4), dtype=framework.float64)

    def outputs(lg, m, s):
        mix = D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(m, s))
        return mix.log_prob(x), mix.mean, mix.variance, mix.cdf(x)

    assert gradcheck(outputs, (logits, loc, scale))
