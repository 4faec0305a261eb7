"""kl_divergence(p, q) and register_kl, with the same-family pairs torch registers for the laws here (torch's
formulas op for op)."""
from __future__ import annotations

import numpy as np

from .. import ops
from ..tensor import Tensor
from ._linalg import solve_triangular
from .bernoulli import Bernoulli
from .categorical import Categorical
from .continuous import _EULER, Cauchy, Exponential, Gumbel, HalfNormal, Laplace, LogNormal, Uniform
from .discrete import Binomial, Geometric, OneHotCategorical, Poisson
from .distribution import Distribution
from .gamma import Beta, Dirichlet, Gamma
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .utils import log1p


def _kl_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


def _kl_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = ops.masked_fill(t, (q.probs == 0).expand_as(t), float("inf"))
    t = ops.masked_fill(t, (p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)) without overflow."""
    return log1p((-x.abs()).exp()) + ops.clamp(x, min=0)


def _kl_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t1 = ops.masked_fill(t1, q.probs == 0, float("inf"))
    t1 = ops.masked_fill(t1, p.probs == 0, 0.0)
    t2 = ops.masked_fill(t2, q.probs == 1, float("inf"))
    t2 = ops.masked_fill(t2, p.probs == 1, 0.0)
    return t1 + t2


def _kl_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return ops.masked_fill(result, (q.low > p.low) | (q.high < p.high), float("inf"))


def _kl_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


def _kl_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    return t1 - t2 + t3 + t4 + t5


def _kl_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


def _kl_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


def _kl_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * (-loc_abs_diff / p.scale).exp() - 1


def _kl_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


def _kl_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with                          different "
                         "event shapes cannot be computed")
    half_term1 = q._half_log_det() - p._half_log_det()
    qL, pL = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    n = p.event_shape[0]
    batch = np.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2]))
    term2 = solve_triangular(qL.expand(*batch, n, n), pL.expand(*batch, n, n), upper=False).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


def _kl_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


def _kl_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return ops.masked_fill(kl, p.total_count > q.total_count, float("inf"))


def _kl_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


def _kl_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _EULER
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + t2 + t3 - (1 + _EULER)


def _kl_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal(p.base_dist, q.base_dist)


def _kl_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return _kl_normal(p.base_dist, q.base_dist)  # torch: the TransformedDistribution pair, same transforms


def _kl_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical(p._categorical, q._categorical)


def _kl_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


def _kl_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


_KL_REGISTRY: dict = {}


def register_kl(type_p: type, type_q: type):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for instances of type_p and type_q (subclasses too)."""
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected type_{'p' if t is type_p else 'q'} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


for _pair, _fn in {(Normal, Normal): _kl_normal, (Categorical, Categorical): _kl_categorical,
                   (Bernoulli, Bernoulli): _kl_bernoulli, (Uniform, Uniform): _kl_uniform,
                   (Exponential, Exponential): _kl_exponential, (Beta, Beta): _kl_beta, (Gamma, Gamma): _kl_gamma,
                   (Dirichlet, Dirichlet): _kl_dirichlet, (Laplace, Laplace): _kl_laplace,
                   (Poisson, Poisson): _kl_poisson, (MultivariateNormal, MultivariateNormal): _kl_mvn,
                   (Independent, Independent): _kl_independent, (Binomial, Binomial): _kl_binomial,
                   (Geometric, Geometric): _kl_geometric, (Gumbel, Gumbel): _kl_gumbel,
                   (HalfNormal, HalfNormal): _kl_halfnormal, (LogNormal, LogNormal): _kl_lognormal,
                   (OneHotCategorical, OneHotCategorical): _kl_onehot, (Cauchy, Cauchy): _kl_cauchy,
                   (TransformedDistribution, TransformedDistribution): _kl_transformed}.items():
    register_kl(*_pair)(_fn)


def _dispatch(type_p: type, type_q: type):
    """The most specific registered pair both types derive from (torch: ordered by subclass distance)."""
    matches = [(tp, tq) for tp, tq in _KL_REGISTRY if issubclass(type_p, tp) and issubclass(type_q, tq)]
    if not matches:
        return None
    best = min(matches, key=lambda m: (type_p.__mro__.index(m[0]), type_q.__mro__.index(m[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), batched over the distributions' batch shape."""
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)
