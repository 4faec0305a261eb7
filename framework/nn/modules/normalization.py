"""Layer normalisation (torch.nn.modules.normalization): the same objects as framework.nn."""
from ..layers import LayerNorm  # noqa: F401

from ..layers_more import GroupNorm  # noqa: F401

from ..layers_extra import LocalResponseNorm, RMSNorm  # noqa: F401

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]
