"""framework.distributed: torch.distributed's process group and collectives over MPI (mpi4py).

Start N processes with ``mpiexec -n N python script.py``; each calls ``init_process_group()`` and
gets its rank from MPI.  Install with ``pip install 'framework[distributed]'`` (mpi4py + mpich).
"""
from .collectives import (ReduceOp, Work, all_gather, all_gather_object, all_reduce, barrier, broadcast,
                          broadcast_object_list, gather, reduce, reduce_scatter, scatter)
from .group import (abort, destroy_process_group, get_backend, get_rank, get_world_size, init_process_group,
                    is_available, is_initialized, is_mpi_available)

__all__ = ["init_process_group", "destroy_process_group", "is_available", "is_mpi_available", "is_initialized",
           "get_rank", "get_world_size", "get_backend", "abort", "ReduceOp", "Work", "all_reduce", "broadcast",
           "all_gather", "gather", "scatter", "reduce", "reduce_scatter", "barrier", "broadcast_object_list",
           "all_gather_object"]
