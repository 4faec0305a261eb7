"""The default process group over MPI: init/destroy, rank, world size, and abort-on-error.

Rank and world size come from MPI (``mpiexec -n N`` or a scheduler's ``srun``/``mpirun``), so no
address, port or rendezvous is needed.  mpi4py is imported on first use only: it initialises MPI as a
side effect, and a plain ``import framework`` must stay cheap and work without it.
"""
from __future__ import annotations

import importlib.util
import sys
import traceback

_state = {"mpi": None, "comm": None, "backend": None}

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def is_available() -> bool:
    """True when mpi4py is installed (``pip install 'framework[distributed]'``)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_initialized() -> bool:
    return _state["comm"] is not None


def _mpi():
    """The mpi4py MPI module (importing it runs MPI_Init)."""
    if _state["mpi"] is None:
        try:
            from mpi4py import MPI  # optional dependency: the [distributed] extra
        except ImportError as e:
            raise RuntimeError(
                "framework.distributed needs mpi4py and an MPI library: pip install 'framework[distributed]' "
                "(installs mpi4py and mpich, which brings mpiexec)") from e
        _state["mpi"] = MPI
    return _state["mpi"]


def init_process_group(backend: str | None = "mpi", init_method: str | None = None, timeout=None,
                       world_size: int = -1, rank: int = -1, **kwargs) -> None:
    """Join the default process group: every process started by ``mpiexec -n N`` becomes one rank.

    Also installs an exception hook: an uncaught exception on any rank prints the rank and the error,
    then calls MPI_Abort, which ends every rank with a non-zero exit instead of leaving the others
    blocked in their next collective.
    """
    if backend not in (None, "mpi"):
        raise ValueError(f"Invalid backend: '{backend}'. framework.distributed supports backend='mpi' only "
                         "(CuPy tensors are staged through host memory).")
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    MPI = _mpi()
    comm = MPI.COMM_WORLD
    for name, given, actual in (("world_size", world_size, comm.Get_size()), ("rank", rank, comm.Get_rank())):
        if given not in (-1, None) and given != actual:
            raise ValueError(f"{name}={given} was passed but MPI says {actual}: with backend='mpi' rank and world "
                             "size come from the launcher (mpiexec -n N)")
    _state["comm"], _state["backend"] = comm, "mpi"
    if not getattr(sys.excepthook, "_framework_abort", False):
        _previous = sys.excepthook

        def abort_hook(exc_type, exc, tb):
            if not is_initialized() or comm.Get_size() == 1:
                return _previous(exc_type, exc, tb)
            abort("".join(traceback.format_exception(exc_type, exc, tb)).rstrip())

        abort_hook._framework_abort = True
        sys.excepthook = abort_hook


def destroy_process_group(group=None) -> None:
    """Leave the default group (MPI itself is finalised by mpi4py at interpreter exit)."""
    _state["comm"], _state["backend"] = None, None


def _comm():
    comm = _state["comm"]
    if comm is None:
        raise ValueError(_NOT_INITIALIZED + " What happened: a collective or rank query ran before "
                         "framework.distributed.init_process_group(); call it once at the start of every rank.")
    return comm


def get_rank(group=None) -> int:
    return _comm().Get_rank()


def get_world_size(group=None) -> int:
    return _comm().Get_size()


def get_backend(group=None) -> str:
    _comm()
    return _state["backend"]


def abort(reason: str, errorcode: int = 1) -> None:
    """Print ``rank R failed: reason`` and end every rank now (MPI_Abort); never returns.

    Use it where a rank gives up while the others may be waiting in a collective (a framework
    addition: torch leaves this to its watchdog timeout).
    """
    comm = _state["comm"]
    rank = comm.Get_rank() if comm is not None else 0
    size = comm.Get_size() if comm is not None else 1
    sys.stdout.flush()
    # one write, flushed before the abort: another rank's abort may end this process at any moment after it
    sys.stderr.write(f"[framework.distributed] rank {rank} of {size} failed, aborting all ranks:\n{reason}\n")
    sys.stderr.flush()
    _mpi().COMM_WORLD.Abort(errorcode)
