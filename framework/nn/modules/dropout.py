"""Dropout (torch.nn.modules.dropout): the same objects as framework.nn."""
from ..activation import Dropout  # noqa: F401
from ..dropout import Dropout1d, Dropout2d  # noqa: F401
from ..layers_misc import AlphaDropout, Dropout3d, FeatureAlphaDropout  # noqa: F401

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
