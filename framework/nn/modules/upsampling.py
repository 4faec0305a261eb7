"""Upsampling (torch.nn.modules.upsampling): the same objects as framework.nn."""
from ..layers_more import Upsample  # noqa: F401
from ..layers_misc import UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: F401

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
