"""framework.distributions: Categorical, Normal, Bernoulli and kl_divergence, as torch.distributions."""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence
from .normal import Normal

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "kl_divergence"]
