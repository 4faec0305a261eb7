"""Concrete relaxation of the Bernoulli: LogitRelaxedBernoulli and RelaxedBernoulli, as
torch.distributions.relaxed_bernoulli (formulas op for op). Their rsample is reparameterised."""
from __future__ import annotations

from numbers import Number

from ..creation import rand
from ..tensor import Size, Tensor
from . import constraints
from .discrete import _ProbsOrLogits
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs


class LogitRelaxedBernoulli(_ProbsOrLogits):
    """The logit of a RelaxedBernoulli sample (real-valued)."""

    _param_names = ("probs", "logits")
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self.temperature = temperature
        given = probs if probs is not None else logits
        name, (param,) = self._set_param(probs, logits)
        self._param = param
        super().__init__(Size() if isinstance(given, Number) else param.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(*shape))
        uniforms = clamp_probs(rand(*shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed (continuous, in (0, 1)) Bernoulli at ``temperature``: sigmoid of a LogitRelaxedBernoulli."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args: bool | None = None) -> None:
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
