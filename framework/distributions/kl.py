"""kl_divergence(p, q) for pairs of the same family (Normal, Categorical, Bernoulli), torch's formulas."""
from __future__ import annotations

from .. import ops
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .categorical import Categorical
from .normal import Normal
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


_KL = {(Normal, Normal): _kl_normal, (Categorical, Categorical): _kl_categorical,
       (Bernoulli, Bernoulli): _kl_bernoulli}


def kl_divergence(p, q) -> Tensor:
    """KL(p || q), batched over the distributions' batch shape."""
    fn = _KL.get((type(p), type(q)))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)
