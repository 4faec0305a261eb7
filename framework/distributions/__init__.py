"""framework.distributions, as torch.distributions: the laws below, kl_divergence and register_kl."""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .continuous import Cauchy, Exponential, Gumbel, HalfNormal, Laplace, LogNormal, Uniform
from .counts import Multinomial, NegativeBinomial
from .discrete import Binomial, Geometric, OneHotCategorical, OneHotCategoricalStraightThrough, Poisson
from .distribution import Distribution
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .independent import Independent
from .kl import kl_divergence, register_kl
from .mixture import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, IndependentTransform, SigmoidTransform,
                         TanhTransform, Transform)

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
           "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
           "StudentT", "TransformedDistribution", "Multinomial", "NegativeBinomial", "MixtureSameFamily", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "Uniform", "kl_divergence", "register_kl", "transforms",
           "constraints", "AffineTransform", "ComposeTransform", "ExpTransform", "SigmoidTransform", "TanhTransform", "Transform",
           "IndependentTransform", "biject_to", "transform_to"]
