"""Bernoulli(probs | logits): sample, log_prob, entropy, as torch.distributions.Bernoulli."""
from __future__ import annotations

import numpy as np

from .. import backend, ops
from ..autograd.grad_mode import no_grad
from ..creation import tensor
from ..nn.functional.loss import binary_cross_entropy_with_logits
from ..random import _gen
from ..tensor import Size, Tensor
from . import constraints
from .categorical import _cached_params
from .distribution import Distribution
from .utils import broadcast_all, expand_probs_or_logits, logits_to_probs, probs_to_logits


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0; samples have the parameter's float dtype."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._probs = self._logits = None
        if probs is not None:
            (self._probs,) = broadcast_all(probs)
            param, self._param_names = self._probs, ("probs",)
        else:
            (self._logits,) = broadcast_all(logits)
            param, self._param_names = self._logits, ("logits",)
        super().__init__(param.shape, validate_args=validate_args)

    def _check_args(self) -> None:
        # torch: the given parameter is validated; the other is derived lazily (a lazy_property) and is not
        if self._probs is not None:
            self._check_arg("probs", self._probs, constraints.unit_interval)
        else:
            self._check_arg("logits", self._logits, constraints.real)

    def expand(self, batch_shape, _instance=None) -> "Bernoulli":
        """The same law broadcast to batch_shape (the given parameter expanded, no copy)."""
        return expand_probs_or_logits(self, batch_shape)

    @property
    def probs(self) -> Tensor:
        if self._probs is None:
            self._probs = logits_to_probs(self._logits, is_binary=True)
        return self._probs

    @property
    def logits(self) -> Tensor:
        if self._logits is None:
            self._logits = probs_to_logits(self._probs, is_binary=True)
        return self._logits

    @property
    def param_shape(self) -> Size:
        return Size((self._probs if self._probs is not None else self._logits).shape)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ops.masked_fill(mode, self.probs == 0.5, float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        """uniform < probs, drawn from the default generator (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = backend.to_numpy(self.probs.detach()._array)
            u = _gen(None).random(tuple(shape))
            return tensor((u < p).astype(p.dtype), device=self.probs.device)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_support(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = tensor(np.arange(2), dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(-1, *([1] * len(self.batch_shape)))
        return values.expand(-1, *self.batch_shape) if expand else values

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_cached_params(self)})"
