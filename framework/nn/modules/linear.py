"""Linear layers (torch.nn.modules.linear): the same objects as framework.nn."""
from ..attention import NonDynamicallyQuantizableLinear  # noqa: F401  (MultiheadAttention.out_proj's class)
from ..layers import Identity, Linear  # noqa: F401

from ..layers_extra import Bilinear, LazyLinear  # noqa: F401

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear", "LazyLinear"]
