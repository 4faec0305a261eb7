"""Dropout (torch.nn.modules.dropout): the same objects as framework.nn."""
from ..activation import Dropout  # noqa: F401
from ..dropout import Dropout1d, Dropout2d  # noqa: F401

from ..layers_misc import AlphaDropout  # noqa: F401

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "AlphaDropout"]
