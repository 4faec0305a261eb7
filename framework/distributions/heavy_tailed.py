"""HalfCauchy, Weibull and Pareto: TransformedDistributions as torch.distributions' (formulas op for op)."""
from __future__ import annotations

import math

from ..creation import full
from ..ops.pointwise import where
from ..tensor import Tensor
from . import constraints
from .continuous import _EULER, Cauchy, Exponential
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform, PowerTransform
from .utils import broadcast_all


class HalfCauchy(TransformedDistribution):
    """|X| for X ~ Cauchy(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self) -> Tensor:
        return self.scale.new_zeros(tuple(self.scale.shape))

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)


class Weibull(TransformedDistribution):
    """scale * E ** (1 / concentration) for E ~ Exponential(1)."""

    _param_names = ("scale", "concentration")
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    __repr__ = Distribution.__repr__

    def __init__(self, scale, concentration, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(self.scale.new_ones(tuple(self.scale.shape)), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(0, self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * ((1 + 2 * self.concentration_reciprocal).lgamma().exp()
                                    - (2 * (1 + self.concentration_reciprocal).lgamma()).exp())

    def entropy(self) -> Tensor:
        return (_EULER * (1 - self.concentration_reciprocal) + (self.scale * self.concentration_reciprocal).log()
                + 1)


class Pareto(TransformedDistribution):
    """scale * exp(E) for E ~ Exponential(alpha)."""

    _param_names = ("alpha", "scale")
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    __repr__ = Distribution.__repr__

    def __init__(self, scale, alpha, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(0, self.scale)], validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
