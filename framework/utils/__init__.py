"""framework.utils: data loading (framework.utils.data) and activation checkpointing (framework.utils.checkpoint),
as torch.utils."""
from . import checkpoint, data  # noqa: F401
