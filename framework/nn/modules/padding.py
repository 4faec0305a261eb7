"""Padding layers (torch.nn.modules.padding): the same objects as framework.nn."""
from ..activation_more import ConstantPad2d, ZeroPad2d  # noqa: F401
from ..padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad3d,  # noqa: F401
                       ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                       ReplicationPad3d, ZeroPad1d, ZeroPad3d)

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
