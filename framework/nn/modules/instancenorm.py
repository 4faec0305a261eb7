"""Instance normalisation (torch.nn.modules.instancenorm): the same objects as framework.nn."""
from ..instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: F401

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
