"""torch.nn.attention: the attention-kernel switches (SDPBackend, sdpa_kernel), kept in framework.backends.cuda."""
from ..backends.cuda import SDPBackend, sdpa_kernel

__all__ = ["SDPBackend", "sdpa_kernel"]
