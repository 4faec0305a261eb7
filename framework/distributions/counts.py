"""Count laws built on others: Multinomial (on Categorical) and NegativeBinomial (a Gamma-Poisson mixture), as
torch.distributions' (formulas op for op)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..autograd.grad_mode import no_grad
from ..backend import to_numpy
from ..ops.activation import logsigmoid
from ..ops.sparse import one_hot
from ..tensor import Size, Tensor
from . import constraints
from .categorical import Categorical
from .discrete import Binomial, _host_draw, _OverCategorical, _ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all


class Multinomial(_OverCategorical):
    """Counts of ``total_count`` draws among ``probs.shape[-1]`` categories."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)


    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        """total_count categorical draws per sample, counted per category."""
        with no_grad():
            idx = self._categorical.sample(Size((self.total_count,) + tuple(sample_shape)))
            return one_hot(idx, self._categorical._num_events).sum(0).to(self.probs.dtype)

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        logits = ops.where((value == 0) & (logits == -math.inf), 0.0, logits)  # 0 * log 0 counts as 0
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """torch's: n H(categorical) - log n! + sum_k E[log x_k!] over each category's Binomial marginal."""
        n = self.total_count
        # torch: lgamma of torch.tensor(n), an int64 tensor, so computed in float32 (the default dtype)
        term1 = n * self._categorical.entropy() - float(np.float32(math.lgamma(n + 1)))
        binomial = Binomial(total_count=n, probs=self.probs)
        support = binomial.enumerate_support(expand=False)[1:]
        term2 = (binomial.log_prob(support).exp() * (support + 1).lgamma()).sum((0, -1))
        return term1 + term2

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class NegativeBinomial(_ProbsOrLogits):
    """The number of successes before ``total_count`` failures, success probability ``probs``."""

    _param_names = ("total_count", "probs", "logits")
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        name, (total_count, param) = self._set_param(probs, logits, total_count)
        self.total_count = total_count.type_as(param)
        self._param = param
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "NegativeBinomial":
        new = Distribution.expand(self, batch_shape)
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / ops.sigmoid(-self.logits)

    def sample(self, sample_shape=Size()) -> Tensor:
        """Poisson counts at Gamma(total_count, exp(-logits)) rates, from the framework generator."""
        with no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(sample_shape)
            host = to_numpy(rate._array).astype(np.float64)
            return _host_draw(rate, lambda g: g.poisson(host))

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (-(self.total_count + value).lgamma() + (1.0 + value).lgamma()
                             + self.total_count.lgamma())
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
