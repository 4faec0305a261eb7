"""Univariate continuous laws with closed forms: Uniform, Exponential, Laplace, Cauchy, Gumbel, HalfNormal,
LogNormal, as torch.distributions' (same formulas op for op; the TransformedDistribution ones written out)."""
from __future__ import annotations

import math
from numbers import Number

import ml_dtypes
import numpy as np

from .. import ops
from ..creation import full, rand
from ..tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .normal import Normal, _normal_icdf
from .utils import broadcast_all

_EULER = 0.57721566490153286060


def _batch(params, *args) -> Size:
    """torch: () when every argument is a number, else the broadcast parameters' shape."""
    return Size() if all(isinstance(a, Number) for a in args) else Size(params[0].shape)


def _uniform(d: Distribution, like: Tensor, sample_shape) -> Tensor:
    """u ~ U[0, 1) of the extended shape, in like's dtype and device, from the framework generator."""
    return rand(*d._extended_shape(sample_shape), dtype=like.dtype, device=like.device)


class Uniform(Distribution):
    """Uniform on [low, high)."""

    _param_names = ("low", "high")
    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def __init__(self, low, high, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch((self.low,), low, high), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.low + _uniform(self, self.low, sample_shape) * (self.high - self.low)

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(Distribution):
    """Exponential with ``rate`` (= 1 / scale)."""

    _param_names = ("rate",)
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch((self.rate,), rate), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return self.rate.new_zeros(tuple(self.rate.shape))

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()) -> Tensor:
        eps = self.rate.new_empty(tuple(self._extended_shape(sample_shape))).exponential_()
        return eps / self.rate

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()


class _LocScale(Distribution):
    """A real-valued law with ``loc`` (real) and ``scale`` (positive)."""

    _param_names = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch((self.loc,), loc, scale), validate_args=validate_args)

    @property
    def mode(self) -> Tensor:
        return self.loc


class Laplace(_LocScale):
    """Laplace (double exponential) with mean ``loc`` and scale ``scale``."""

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()) -> Tensor:
        eps = float(ml_dtypes.finfo(self.loc.dtype.np).eps)
        u = _uniform(self, self.loc, sample_shape) * (2 - eps) + (eps - 1)  # torch: uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()


class Cauchy(_LocScale):
    """Cauchy (Lorentz) with median ``loc`` and half width ``scale``; no mean, infinite variance."""

    @property
    def mean(self) -> Tensor:
        return full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self) -> Tensor:
        return full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=Size()) -> Tensor:
        eps = self.loc.new_empty(tuple(self._extended_shape(sample_shape))).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    """Gumbel (type-I extreme value) with location ``loc`` and scale ``scale``."""

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape=Size()) -> Tensor:
        # torch: Uniform(tiny, 1 - eps) pushed through -log(-log(u)) * scale + loc
        info = ml_dtypes.finfo(self.loc.dtype.np)
        u = _uniform(self, self.loc, sample_shape) * (1 - float(info.eps) - float(info.tiny)) + float(info.tiny)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value) -> Tensor:
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER)


class HalfNormal(Distribution):
    """|X| for X ~ Normal(0, scale)."""

    _param_names = ("scale",)
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        (self.scale,) = broadcast_all(scale)
        super().__init__(_batch((self.scale,), scale), validate_args=validate_args)
        self.base_dist = Normal(0, self.scale, validate_args=False)

    def expand(self, batch_shape, _instance=None) -> "HalfNormal":
        return HalfNormal(self.scale.expand(*batch_shape), validate_args=False)

    def __repr__(self) -> str:
        return "HalfNormal()"  # torch: a TransformedDistribution, whose parameters are properties

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        return self.scale.new_zeros(tuple(self.scale.shape))

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ops.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob) -> Tensor:
        return _normal_icdf(self.base_dist.loc, self.scale, (prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)


class LogNormal(Distribution):
    """exp(X) for X ~ Normal(loc, scale)."""

    _param_names = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        self.loc, self.scale = self.base_dist.loc, self.base_dist.scale
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "LogNormal":
        return LogNormal(self.loc.expand(*batch_shape), self.scale.expand(*batch_shape), validate_args=False)

    def __repr__(self) -> str:
        return "LogNormal()"  # torch: a TransformedDistribution, whose parameters are properties

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value) -> Tensor:
        self._check_support(value)  # torch: base log_prob at log(value) minus log|d exp(x)/dx| = log(value)
        x = value.log()
        return self.base_dist.log_prob(x) - x

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return self.base_dist.cdf(value.log())

    def icdf(self, value) -> Tensor:
        return _normal_icdf(self.loc, self.scale, value).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc

