"""framework.distributions, as torch.distributions: the laws below, constraints, transforms,
TransformedDistribution, kl_divergence/register_kl and biject_to/transform_to."""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .continuous import Cauchy, Exponential, Gumbel, HalfNormal, Laplace, LogNormal, Uniform
from .counts import Multinomial, NegativeBinomial
from .discrete import Binomial, Geometric, OneHotCategorical, OneHotCategoricalStraightThrough, Poisson
from .distribution import Distribution
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .heavy_tailed import HalfCauchy, Pareto, Weibull
from .independent import Independent
from .kl import kl_divergence, register_kl
from .mixture import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         PowerTransform, SigmoidTransform, TanhTransform, Transform)

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric",
           "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform", "Laplace", "LogNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "PowerTransform",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform", "StudentT", "TanhTransform",
           "Transform", "TransformedDistribution", "Uniform", "Weibull", "biject_to", "constraints",
           "kl_divergence", "register_kl", "transform_to", "transforms"]
