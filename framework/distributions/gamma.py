"""The gamma family: Gamma, Chi2, Dirichlet, Beta and StudentT, as torch.distributions' (formulas op for op).
Their rsample draws standard gammas with the implicit reparameterisation gradient (_gamma.standard_gamma)."""
from __future__ import annotations

import math

from .. import ops
from ..creation import randn
from ..ops.shape import stack
from ..ops.sparse import one_hot
from ..special import gammainc
from ..tensor import Size, Tensor
from ._gamma import dirichlet, standard_gamma
from . import constraints
from .continuous import _batch
from .distribution import Distribution
from .utils import broadcast_all


class Gamma(Distribution):
    """Gamma with shape ``concentration`` and ``rate`` (= 1 / scale)."""

    _param_names = ("concentration", "rate")
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch((self.rate,), concentration, rate), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        return (ops.xlogy(self.concentration, self.rate) + ops.xlogy(self.concentration - 1, value)
                - self.rate * value - self.concentration.lgamma())

    def entropy(self) -> Tensor:
        return (self.concentration - self.rate.log() + self.concentration.lgamma()
                + (1.0 - self.concentration) * self.concentration.digamma())

    def cdf(self, value) -> Tensor:
        self._check_support(value)
        return gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2

    def __repr__(self) -> str:
        return "Chi2()"  # torch: df is a property, which the base repr leaves out


class Dirichlet(Distribution):
    """Dirichlet over the simplex of ``concentration.shape[-1]`` categories."""

    _param_names = ("concentration",)
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=Size()) -> Tensor:
        return dirichlet(self.concentration.expand(*self._extended_shape(sample_shape)))

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        c = self.concentration
        return ops.xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1, keepdim=True)
        # torch: where every concentration is below 1 the mode is a vertex, the largest-mode category's one-hot
        vertex = one_hot(mode.argmax(dim=-1), cm1.shape[-1]).to(mode.dtype)
        return ops.where(mask, vertex, mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k, a0 = c.size(-1), c.sum(-1)
        return c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma() - ((c - 1.0) * c.digamma()).sum(-1)


class Beta(Distribution):
    """Beta(concentration1, concentration0) on [0, 1], through a two-category Dirichlet as torch's."""

    _param_names = ("concentration1", "concentration0")
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args: bool | None = None) -> None:
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Beta":
        new = Beta.__new__(Beta)
        new.__dict__.update(self.__dict__)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        new._batch_shape = Size(batch_shape)
        return new

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    def __repr__(self) -> str:
        return "Beta()"  # torch: its parameters are properties, which the base repr leaves out


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    _param_names = ("df", "loc", "scale")
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)  # torch: built first, with the default validation, so it reports a bad df
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "StudentT":
        new = Distribution.expand(self, batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        return ops.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        finite = self.scale.pow(2) * df / ops.where(df > 2, df - 2, 1.0)
        out = ops.where(df > 2, finite, math.inf)
        return ops.where(df <= 1, math.nan, out)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = randn(*shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * (z / self.df).rsqrt())

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
             - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y ** 2.0 / self.df).log1p() - z

    def entropy(self) -> Tensor:
        lbeta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
                + 0.5 * self.df.log() + lbeta)
