"""Fold and Unfold (torch.nn.modules.fold): the same objects as framework.nn."""
from ..layers_misc import Fold, Unfold  # noqa: F401

__all__ = ["Fold", "Unfold"]
