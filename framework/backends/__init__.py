"""framework.backends: torch.backends' flags that scripts set (cuda, cudnn, mps), accepted and without effect."""
from . import cuda, cudnn, mps  # noqa: F401
