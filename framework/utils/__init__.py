"""framework.utils: data loading (framework.utils.data), as torch.utils."""
from . import data  # noqa: F401
