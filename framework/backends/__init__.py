"""framework.backends: torch.backends' flags that scripts set (cudnn, mps), accepted and without effect."""
from . import cudnn, mps  # noqa: F401
