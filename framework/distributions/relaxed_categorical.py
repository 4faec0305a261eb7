"""Gumbel-softmax (Concrete) relaxation of the one-hot categorical: ExpRelaxedCategorical and
RelaxedOneHotCategorical, as torch.distributions.relaxed_categorical (formulas op for op)."""
from __future__ import annotations

from ..creation import rand
from ..tensor import Size, Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample (log-probabilities over the last dim)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "ExpRelaxedCategorical":
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = Size(batch_shape)
        return new

    param_shape = property(lambda self: self._categorical.param_shape)
    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape=Size()) -> Tensor:
        """Gumbel-softmax in log space: log_softmax((logits + Gumbel noise) / temperature)."""
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(*shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -(-uniforms.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value) -> Tensor:
        K = self._categorical._num_events
        self._check_support(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = self.temperature.new_full(tuple(self.temperature.shape), float(K)).lgamma() \
            - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot sample on the simplex at ``temperature`` (the Gumbel-softmax / Concrete law)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args: bool | None = None) -> None:
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
