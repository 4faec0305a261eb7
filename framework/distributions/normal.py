"""Normal(loc, scale): sample, rsample (reparameterised), log_prob, entropy, cdf, as torch.distributions.Normal."""
from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..creation import randn
from ..ops.activation.gated import _Erf
from ..ops.pointwise import erfinv
from ..tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


def _normal_icdf(loc: Tensor, scale: Tensor, value) -> Tensor:
    """torch's Normal.icdf: loc + scale * erfinv(2 value - 1) * sqrt(2)."""
    return loc + scale * erfinv(2 * value - 1) * math.sqrt(2)


class Normal(Distribution):
    """Gaussian with mean ``loc`` and standard deviation ``scale`` (broadcast together)."""

    _param_names = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def _eps(self, sample_shape) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return randn(*shape, dtype=self.loc.dtype, device=self.loc.device)

    def sample(self, sample_shape=Size()) -> Tensor:
        with no_grad():
            return self.loc.expand(*self._extended_shape(sample_shape)) + self._eps(sample_shape) * self.scale

    def rsample(self, sample_shape=Size()) -> Tensor:
        """loc + eps * scale with eps ~ N(0, 1): differentiable in loc and scale."""
        return self.loc + self._eps(sample_shape) * self.scale

    def log_prob(self, value) -> Tensor:
        self._check_support(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    def icdf(self, value) -> Tensor:
        return _normal_icdf(self.loc, self.scale, value)

    def cdf(self, value) -> Tensor:
        return 0.5 * (1 + _Erf.apply((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))
