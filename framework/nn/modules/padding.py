"""Padding layers (torch.nn.modules.padding): the same objects as framework.nn."""
from ..activation_more import ConstantPad2d, ZeroPad2d  # noqa: F401
from ..padding import ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d  # noqa: F401

__all__ = ["ConstantPad2d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d",
           "ReplicationPad2d"]
