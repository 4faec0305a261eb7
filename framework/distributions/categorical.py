"""Categorical(probs | logits): sample, log_prob, entropy over the last dimension, as torch.distributions."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import backend, ops
from ..creation import arange, full, tensor
from ..dtypes import int64
from ..random import _gen
from ..tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import expand_probs_or_logits, logits_to_probs, probs_to_logits


def _cached_params(d) -> str:
    return ", ".join(f"{name}: {v.item() if v.numel() == 1 else v.size()}"
                     for name, v in (("probs", d._probs), ("logits", d._logits)) if v is not None)


class Categorical(Distribution):
    """A choice among ``K = probs.shape[-1]`` classes; leading dimensions are the batch."""

    _param_names = ("probs",)
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._probs = self._logits = None
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._probs = probs / probs.sum(-1, keepdim=True)
            param = self._probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # log-normalised, as torch's logits - logits.logsumexp(-1, keepdim=True)
            self._logits = ops.log_softmax(logits, -1)
            param = self._logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], validate_args=validate_args)

    def _check_args(self) -> None:
        # torch: the given parameter is validated; the other is derived lazily (a lazy_property) and is not
        if self._probs is not None:
            self._check_arg("probs", self._probs, constraints.simplex)
        else:
            self._check_arg("logits", self._logits, constraints.real_vector)

    def expand(self, batch_shape, _instance=None) -> "Categorical":
        """The same law broadcast to batch_shape (the given parameter expanded, no copy)."""
        return expand_probs_or_logits(self, batch_shape)

    @property
    def probs(self) -> Tensor:
        if self._probs is None:
            self._probs = logits_to_probs(self._logits)
        return self._probs

    @property
    def logits(self) -> Tensor:
        if self._logits is None:
            self._logits = probs_to_logits(self._probs)
        return self._logits

    @property
    def param_shape(self) -> Size:
        return Size((self._probs if self._probs is not None else self._logits).shape)

    @property
    def mean(self) -> Tensor:
        return full(tuple(self.batch_shape), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape=Size()) -> Tensor:
        """Class indices (int64), shape sample_shape + batch_shape, by inverse CDF from the default generator."""
        sample_shape = Size(sample_shape)
        p = backend.to_numpy(self.probs.detach()._array).astype(np.float64).reshape(-1, self._num_events)
        cdf = np.cumsum(p, -1)
        cdf /= cdf[:, -1:]  # ends at exactly 1 (x / x), so u in [0, 1) always lands on a class with p > 0
        u = _gen(None).random((sample_shape.numel(), p.shape[0]))
        idx = (u[..., None] >= cdf[None]).sum(-1)  # the first class whose cdf exceeds u
        out = idx.reshape(tuple(sample_shape) + tuple(self.batch_shape))
        return tensor(out, dtype=int64, device=self.probs.device)

    def log_prob(self, value: Tensor) -> Tensor:
        """logits[..., value] with value broadcast against the batch shape."""
        n = self._num_events
        self._check_support(value)
        logits = self.logits
        shape = np.broadcast_shapes(tuple(value.shape), tuple(logits.shape[:-1]))
        log_pmf = logits.expand(*shape, n).reshape(-1, n)
        idx = value.long().expand(*shape).reshape(-1)
        rows = arange(log_pmf.shape[0], device=log_pmf.device)
        return log_pmf[rows, idx].reshape(*shape)

    def entropy(self) -> Tensor:
        """-sum(p log p), with -inf logits clamped to the dtype's lowest value so 0 * log 0 counts as 0."""
        min_real = float(ml_dtypes.finfo(self.logits.dtype.np).min)
        logits = ops.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(self._num_events, device=self.probs.device)
        values = values.reshape(-1, *([1] * len(self.batch_shape)))
        return values.expand(-1, *self.batch_shape) if expand else values

    def __repr__(self) -> str:
        # torch: the parameters computed so far (a lazily derived one appears once read), probs first
        return f"{type(self).__name__}({_cached_params(self)})"
