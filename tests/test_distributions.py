"""framework.distributions against torch.distributions: log_prob, entropy, parameters, gradients, sample laws."""
import numpy as np
import pytest

import framework
from framework.distributions import Bernoulli, Categorical, Normal, kl_divergence

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def _pair(a, requires_grad=True):
    return (framework.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _close(ours, theirs, tol=1e-6):
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().cpu().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("use_logits", [False, True])
def test_categorical_matches_torch(use_logits):
    a = rng.standard_normal((3, 5))
    if not use_logits:
        a = np.abs(a) + 0.1
    ours_p, torch_p = _pair(a)
    kw = "logits" if use_logits else "probs"
    d, td = Categorical(**{kw: ours_p}), torch.distributions.Categorical(**{kw: torch_p})
    value = np.array([[0, 4, 2], [1, 1, 3]])
    lp, tlp = d.log_prob(framework.tensor(value)), td.log_prob(torch.tensor(value))
    ent, tent = d.entropy(), td.entropy()
    for ours, theirs in [(lp, tlp), (ent, tent), (d.probs, td.probs), (d.logits, td.logits)]:
        _close(ours, theirs)
    assert d.batch_shape == tuple(td.batch_shape) and d.param_shape == tuple(td.param_shape)
    assert d.mode.tolist() == td.mode.tolist()
    (lp.sum() + 0.3 * ent.sum()).backward()
    (tlp.sum() + 0.3 * tent.sum()).backward()
    _close(ours_p.grad, torch_p.grad)


def test_categorical_masked_logits_entropy_and_support():
    logits = [[0.0, float("-inf"), 1.0]]
    d, td = Categorical(logits=framework.tensor(logits)), torch.distributions.Categorical(logits=torch.tensor(logits))
    _close(d.entropy(), td.entropy())
    assert d.enumerate_support().tolist() == td.enumerate_support().tolist()
    with pytest.raises(ValueError, match="Expected value argument"):
        d.log_prob(framework.tensor([3]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        Categorical()


def test_categorical_samples_follow_probs():
    framework.manual_seed(0)
    p = np.array([0.1, 0.2, 0.7])
    s = Categorical(probs=framework.tensor(p)).sample((20000,))
    assert s.dtype == framework.int64 and s.shape == (20000,)
    freq = np.bincount(s.cpu().numpy(), minlength=3) / 20000
    assert np.abs(freq - p).max() < 0.015
    zero = Categorical(probs=framework.tensor([0.0, 1.0, 0.0])).sample((1000,))
    assert set(zero.tolist()) == {1}
    batched = Categorical(logits=framework.zeros(4, 2)).sample((3,))
    assert batched.shape == (3, 4) and set(batched.cpu().numpy().ravel()) <= {0, 1}


def test_normal_matches_torch():
    loc, tloc = _pair(rng.standard_normal(4))
    scale, tscale = _pair(np.abs(rng.standard_normal(4)) + 0.5)
    d, td = Normal(loc, scale), torch.distributions.Normal(tloc, tscale)
    x = rng.standard_normal((2, 4))
    lp, tlp = d.log_prob(framework.tensor(x)), td.log_prob(torch.tensor(x))
    for ours, theirs in [(lp, tlp), (d.entropy(), td.entropy()), (d.mean, td.mean), (d.stddev, td.stddev),
                         (d.variance, td.variance), (d.cdf(framework.tensor(x)), td.cdf(torch.tensor(x)))]:
        _close(ours, theirs)
    (lp.sum() + d.entropy().sum()).backward()
    (tlp.sum() + td.entropy().sum()).backward()
    _close(loc.grad, tloc.grad)
    _close(scale.grad, tscale.grad)
    with pytest.raises(ValueError, match=r"Expected parameter scale .* GreaterThan\(lower_bound=0.0\)"):
        Normal(framework.zeros(2), framework.tensor([1.0, -1.0]))
    assert Normal(0.0, 1.0).batch_shape == () and Normal(0.0, 1.0).loc.dtype == framework.float32


def test_normal_rsample_is_reparameterised():
    framework.manual_seed(1)
    loc = framework.tensor([1.0, -2.0], requires_grad=True)
    scale = framework.tensor([0.5, 2.0], requires_grad=True)
    d = Normal(loc, scale)
    x = d.rsample((50000,))
    assert x.shape == (50000, 2) and x.requires_grad and not d.sample((3,)).requires_grad
    np.testing.assert_allclose(x.detach().cpu().numpy().mean(0), [1.0, -2.0], atol=0.03)
    np.testing.assert_allclose(x.detach().cpu().numpy().std(0), [0.5, 2.0], rtol=0.02)
    x.sum().backward()
    assert loc.grad.tolist() == [50000.0, 50000.0]
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.cpu().numpy(), eps.sum(0).cpu().numpy(), rtol=1e-4)


@pytest.mark.parametrize("use_logits", [False, True])
def test_bernoulli_matches_torch(use_logits):
    a = rng.standard_normal(5) if use_logits else rng.uniform(0.05, 0.95, 5)
    ours_p, torch_p = _pair(a)
    kw = "logits" if use_logits else "probs"
    d, td = Bernoulli(**{kw: ours_p}), torch.distributions.Bernoulli(**{kw: torch_p})
    v = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    lp, tlp = d.log_prob(framework.tensor(v)), td.log_prob(torch.tensor(v))
    for ours, theirs in [(lp, tlp), (d.entropy(), td.entropy()), (d.probs, td.probs), (d.logits, td.logits),
                         (d.mean, td.mean), (d.variance, td.variance)]:
        _close(ours, theirs)
    (lp.sum() + d.entropy().sum()).backward()
    (tlp.sum() + td.entropy().sum()).backward()
    _close(ours_p.grad, torch_p.grad)


def test_bernoulli_samples_and_validation():
    framework.manual_seed(2)
    s = Bernoulli(framework.tensor([0.2, 0.9], dtype=framework.float64)).sample((20000,))
    assert s.dtype == framework.float64 and set(np.unique(s.cpu().numpy())) == {0.0, 1.0}
    np.testing.assert_allclose(s.cpu().numpy().mean(0), [0.2, 0.9], atol=0.015)
    with pytest.raises(ValueError, match="Expected parameter probs"):
        Bernoulli(framework.tensor([1.5]))
    with pytest.raises(ValueError, match="Expected value argument"):
        Bernoulli(framework.tensor([0.5])).log_prob(framework.tensor([0.5]))


def test_kl_divergence_matches_torch():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    pairs = [(Categorical(logits=framework.tensor(a)), Categorical(logits=framework.tensor(b)),
              torch.distributions.Categorical(logits=torch.tensor(a)),
              torch.distributions.Categorical(logits=torch.tensor(b))),
             (Normal(framework.tensor(a[0]), framework.tensor(np.exp(b[0]))), Normal(0.5, 2.0),
              torch.distributions.Normal(torch.tensor(a[0]), torch.tensor(np.exp(b[0]))),
              torch.distributions.Normal(0.5, 2.0)),
             (Bernoulli(logits=framework.tensor(a)), Bernoulli(logits=framework.tensor(b)),
              torch.distributions.Bernoulli(logits=torch.tensor(a)),
              torch.distributions.Bernoulli(logits=torch.tensor(b)))]
    for p, q, tp, tq in pairs:
        _close(kl_divergence(p, q), torch.distributions.kl_divergence(tp, tq))
