"""framework.nn.modules: the Module classes, one file per family as torch.nn.modules lays them out
(``framework.nn.modules.linear.Linear`` is ``torch.nn.modules.linear.Linear``); framework.nn re-exports them.
"""
from . import (activation, batchnorm, channelshuffle, container, conv, dropout, flatten, fold, instancenorm, linear,
               loss, module, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
from .activation import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
