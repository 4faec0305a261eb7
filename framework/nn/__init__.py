"""framework.nn: modules, parameters, layers, losses, init (as torch.nn)."""
from . import functional  # noqa: F401
