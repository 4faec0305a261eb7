"""ChannelShuffle (torch.nn.modules.channelshuffle): the same object as framework.nn."""
from ..layers_misc import ChannelShuffle  # noqa: F401

__all__ = ["ChannelShuffle"]
