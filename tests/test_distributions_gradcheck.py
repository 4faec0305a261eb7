"""float64 gradchecks of the distributions' differentiable pieces (no torch needed)."""
import numpy as np

import framework
from framework.distributions import Bernoulli, Categorical, Normal, kl_divergence
from framework.distributions.utils import log1p
from framework.testing import gradcheck

rng = np.random.default_rng(0)


def _leaf(a):
    return framework.tensor(a, dtype=framework.float64, requires_grad=True)


def test_log1p_gradcheck():
    assert gradcheck(log1p, (_leaf(rng.uniform(-0.5, 2.0, 6)),))


def test_normal_log_prob_entropy_rsample_gradcheck():
    loc, scale = _leaf(rng.standard_normal(3)), _leaf(rng.uniform(0.5, 2.0, 3))
    x = framework.tensor(rng.standard_normal((2, 3)), dtype=framework.float64)
    assert gradcheck(lambda m, s: Normal(m, s).log_prob(x), (loc, scale))
    assert gradcheck(lambda m, s: Normal(m, s).entropy() + Normal(m, s).cdf(x), (loc, scale))
    framework.manual_seed(0)
    eps_seed = framework.get_rng_state()

    def rsample(m, s):
        framework.set_rng_state(eps_seed)  # the same noise at every evaluation
        return Normal(m, s).rsample((4,))

    assert gradcheck(rsample, (loc, scale))


def test_categorical_gradcheck():
    logits = _leaf(rng.standard_normal((2, 4)))
    probs = _leaf(rng.uniform(0.1, 1.0, (2, 4)))
    value = framework.tensor([[3, 0], [1, 1]])
    assert gradcheck(lambda lg: Categorical(logits=lg).log_prob(value), (logits,))
    assert gradcheck(lambda lg: Categorical(logits=lg).entropy(), (logits,))
    assert gradcheck(lambda p: Categorical(probs=p).log_prob(value) + Categorical(probs=p).entropy().sum(), (probs,))


def test_bernoulli_and_kl_gradcheck():
    logits = _leaf(rng.standard_normal(4))
    probs = _leaf(rng.uniform(0.1, 0.9, 4))
    value = framework.tensor([1.0, 0.0, 0.0, 1.0], dtype=framework.float64)
    assert gradcheck(lambda lg: Bernoulli(logits=lg).log_prob(value) + Bernoulli(logits=lg).entropy(), (logits,))
    assert gradcheck(lambda p: Bernoulli(probs=p).log_prob(value) + Bernoulli(probs=p).entropy(), (probs,))
    assert gradcheck(lambda a, b: kl_divergence(Bernoulli(logits=a), Bernoulli(probs=b)), (logits, probs))
    assert gradcheck(lambda a: kl_divergence(Categorical(logits=a.reshape(2, 2)),
                                             Categorical(logits=framework.zeros(2, 2, dtype=framework.float64))),
                     (logits,))
