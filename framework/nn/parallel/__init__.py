"""framework.nn.parallel: DistributedDataParallel (data parallelism over framework.distributed), and
DataParallel / data_parallel for one process on at most one GPU."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
