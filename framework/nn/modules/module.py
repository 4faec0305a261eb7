"""Module (torch.nn.modules.module): the same objects as framework.nn."""
from ..module import Module  # noqa: F401

__all__ = ["Module"]
