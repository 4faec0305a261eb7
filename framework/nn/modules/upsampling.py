"""Upsampling (torch.nn.modules.upsampling): the same objects as framework.nn."""
from ..layers_more import Upsample  # noqa: F401

__all__ = ["Upsample"]
