"""framework.nn.parallel: DistributedDataParallel (data parallelism over framework.distributed)."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
