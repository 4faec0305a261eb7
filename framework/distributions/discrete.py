"""Discrete laws: Poisson, Binomial, Geometric, OneHotCategorical (and its straight-through variant), as
torch.distributions'. Samples are drawn on the host from the framework generator, without gradient."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import ops
from ..autograd.grad_mode import no_grad
from ..backend import to_numpy
from ..creation import arange, eye, rand, tensor
from ..nn.functional.loss import binary_cross_entropy_with_logits
from ..ops.sparse import one_hot
from ..random import _gen
from ..tensor import Size, Tensor
from .categorical import Categorical
from .continuous import _batch
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits



def _host_draw(like: Tensor, draw) -> Tensor:
    """draw(numpy Generator) on the host, as a tensor of like's dtype and device."""
    return tensor(np.asarray(draw(_gen(None))), dtype=like.dtype, device=like.device)


class Poisson(Distribution):
    """Poisson with mean ``rate``."""

    _param_names = ("rate",)
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch((self.rate,), rate), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape=Size()) -> Tensor:
        rate = to_numpy(self.rate.detach()._array).astype(np.float64)
        shape = tuple(self._extended_shape(sample_shape))
        return _host_draw(self.rate, lambda g: g.poisson(np.broadcast_to(rate, shape)))

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()


class _ProbsOrLogits(Distribution):
    """probs and logits, either given, the other derived lazily (binary)."""

    def _set_param(self, probs, logits, *others):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name = "probs" if probs is not None else "logits"
        values = broadcast_all(*others, probs if probs is not None else logits)
        self.__dict__[name] = values[-1]
        return name, values

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)


def _clamp_by_zero(x: Tensor) -> Tensor:
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_ProbsOrLogits):
    """The number of successes in ``total_count`` trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    _param_names = ("total_count", "probs", "logits")
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        name, (total_count, param) = self._set_param(probs, logits, total_count)
        self.total_count = total_count.type_as(param)
        self._param = param
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Binomial":
        new = Distribution.expand(self, batch_shape)
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(to_numpy(self.total_count.detach()._array).astype(np.int64), shape)
        p = np.broadcast_to(to_numpy(self.probs.detach()._array).astype(np.float64), shape)
        return _host_draw(self._param, lambda g: g.binomial(n, p))

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        log_factorial_n = (self.total_count + 1).lgamma()
        log_factorial_k = (value + 1).lgamma()
        log_factorial_nmk = (self.total_count - value + 1).lgamma()
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * (-self.logits.abs()).exp().log1p() - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _total(self, what: str) -> int:
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self) -> Tensor:
        self._total("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total = self._total("enumerate_support")
        values = arange(1 + total, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand(-1, *self._batch_shape) if expand else values


class Geometric(_ProbsOrLogits):
    """The number of failures before the first success, success probability ``probs``."""

    _param_names = ("probs", "logits")
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._set_param(probs, logits)
        given = probs if probs is not None else logits
        super().__init__(_batch((self.__dict__.get("probs", self.__dict__.get("logits")),), given),
                         validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) of "
                                 f"distribution {self!r} to be positive but found invalid values:\n{value[~valid]}")

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return self.probs.new_zeros(tuple(self.probs.shape))

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()) -> Tensor:
        tiny = float(ml_dtypes.finfo(self.probs.dtype.np).tiny)
        with no_grad():
            u = rand(*self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
            u = u * (1 - tiny) + tiny  # torch: uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        value, probs = broadcast_all(value, self.probs)
        probs = ops.where((probs == 1) & (value == 0), 0.0, probs)  # torch: 0 * log(0) counts as 0 there
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class _OverCategorical(Distribution):
    """A law built on a Categorical (``self._categorical``): its probs, logits, param_shape and expand are the
    Categorical's (OneHotCategorical, Multinomial)."""

    def expand(self, batch_shape, _instance=None) -> "_OverCategorical":
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = Size(batch_shape)
        return new

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape


class OneHotCategorical(_OverCategorical):
    """A Categorical whose samples are one-hot vectors of length ``probs.shape[-1]``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)


    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = eye(n, dtype=self._categorical.probs.dtype, device=self._categorical.probs.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand(n, *self.batch_shape, n) if expand else values

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample passes the gradient of ``probs`` straight through the one-hot sample."""

    has_rsample = True

    def rsample(self, sample_shape=Size()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached via the probs property
        return samples + (probs - probs.detach())

