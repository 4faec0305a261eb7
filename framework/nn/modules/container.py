"""Containers (torch.nn.modules.container): the same objects as framework.nn."""
from ..container import ModuleDict, ModuleList, Sequential  # noqa: F401

from ..container_more import ParameterDict, ParameterList  # noqa: F401

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
