"""Flatten (torch.nn.modules.flatten): the same objects as framework.nn."""
from ..activation import Flatten  # noqa: F401

from ..activation_more import Unflatten  # noqa: F401

__all__ = ["Flatten", "Unflatten"]
