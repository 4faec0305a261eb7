"""Collectives on Tensors, in place, as torch.distributed: all_reduce, broadcast, all_gather, gather,
scatter, reduce, reduce_scatter, barrier, and the picklable-object versions.

Every op is MPI's non-blocking form (Iallreduce, Ibcast, ...) wrapped in a ``Work``; a blocking call is
the same op followed by ``wait()``.  MPI reads and writes host memory: a NumPy tensor that is
C-contiguous is used directly, anything else (CuPy, strided views) is staged through a contiguous host
copy that is written back when the op completes.
"""
from __future__ import annotations

import enum
from typing import Callable

import numpy as np

from .. import backend
from ..tensor import Tensor
from .group import _comm, _mpi


class ReduceOp(enum.Enum):
    """How all_reduce/reduce/reduce_scatter combine the ranks' values (AVG = SUM / world size)."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


def _mpi_op(op: ReduceOp):
    MPI = _mpi()
    if not isinstance(op, ReduceOp):
        raise ValueError(f"op must be a framework.distributed.ReduceOp, got {op!r}")
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX}[op]


class Work:
    """The handle an ``async_op=True`` collective returns: ``wait()`` blocks until it has completed."""

    def __init__(self, requests: list, finish: Callable[[], None] | None = None) -> None:
        self._requests, self._finish, self._done = requests, finish, False

    def is_completed(self) -> bool:
        if not self._done and _mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def wait(self, timeout=None) -> bool:
        if not self._done:
            _mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._finish()


def _check(t, name: str = "tensor") -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type framework.Tensor, "
                        f"but got {type(t).__name__} instead.")


def _host(t: Tensor) -> np.ndarray:
    """The tensor's own memory when MPI can use it directly, else a contiguous host copy."""
    arr = t._array
    if isinstance(arr, np.ndarray) and arr.flags.c_contiguous:
        return arr
    return np.ascontiguousarray(backend.to_numpy(arr))


def _write(t: Tensor, host: np.ndarray) -> None:
    """Put ``host``'s values into the tensor in place (a no-op when host is its own memory)."""
    if host is t._array:
        return
    xp = backend.get_array_module(t._array)
    t._array[...] = xp.asarray(host.reshape(t._array.shape))


def _average(buf: np.ndarray, op: ReduceOp, n: int) -> None:
    if op is ReduceOp.AVG:
        if not np.issubdtype(buf.dtype, np.inexact):
            raise ValueError(f"ReduceOp.AVG needs a floating point tensor, got {buf.dtype}")
        buf /= n


def _run(requests: list, finish, async_op: bool):
    work = Work(requests, finish)
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """Every rank's ``tensor`` becomes the reduction (sum, avg, product, min, max) over all ranks."""
    _check(tensor)
    comm = _comm()
    if op is ReduceOp.AVG and not tensor.is_floating_point():
        raise ValueError(f"ReduceOp.AVG needs a floating point tensor, got {tensor.dtype}")
    buf = _host(tensor)
    req = comm.Iallreduce(_mpi().IN_PLACE, buf, op=_mpi_op(op))

    def finish():
        _average(buf, op, comm.Get_size())
        _write(tensor, buf)

    return _run([req], finish, async_op)


def broadcast(tensor: Tensor, src: int, group=None, async_op: bool = False):
    """Every rank's ``tensor`` becomes rank ``src``'s."""
    _check(tensor)
    comm = _comm()
    _check_rank(src, comm, "src")
    buf = _host(tensor)
    return _run([comm.Ibcast(buf, root=src)], lambda: _write(tensor, buf), async_op)


def _check_rank(r: int, comm, what: str) -> None:
    if not 0 <= r < comm.Get_size():
        raise ValueError(f"Invalid {what} rank {r}: the world has ranks 0..{comm.Get_size() - 1}")


def _check_list(tensors, like: Tensor, n: int, name: str) -> None:
    if not isinstance(tensors, (list, tuple)) or len(tensors) != n:
        raise ValueError(f"{name} must be a list of world_size={n} tensors, got "
                         f"{len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__}")
    for i, t in enumerate(tensors):
        _check(t, f"{name}[{i}]")
        if tuple(t.shape) != tuple(like.shape) or t.dtype is not like.dtype:
            raise ValueError(f"{name}[{i}] has shape {tuple(t.shape)} and dtype {t.dtype}; every tensor must match "
                             f"the input's shape {tuple(like.shape)} and dtype {like.dtype}")


def all_gather(tensor_list: list, tensor: Tensor, group=None, async_op: bool = False):
    """``tensor_list[r]`` becomes rank r's ``tensor``, on every rank."""
    _check(tensor)
    comm = _comm()
    n = comm.Get_size()
    _check_list(tensor_list, tensor, n, "tensor_list")
    send = _host(tensor)
    recv = np.empty((n,) + send.shape, send.dtype)

    def finish():
        for t, part in zip(tensor_list, recv):
            _write(t, np.ascontiguousarray(part))

    return _run([comm.Iallgather(send, recv)], finish, async_op)


def gather(tensor: Tensor, gather_list: list | None = None, dst: int = 0, group=None, async_op: bool = False):
    """On rank ``dst``, ``gather_list[r]`` becomes rank r's ``tensor``; other ranks pass no list."""
    _check(tensor)
    comm = _comm()
    _check_rank(dst, comm, "dst")
    n, me = comm.Get_size(), comm.Get_rank()
    send = _host(tensor)
    recv = None
    if me == dst:
        _check_list(gather_list, tensor, n, "gather_list")
        recv = np.empty((n,) + send.shape, send.dtype)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")

    def finish():
        if recv is not None:
            for t, part in zip(gather_list, recv):
                _write(t, np.ascontiguousarray(part))

    return _run([comm.Igather(send, recv, root=dst)], finish, async_op)


def scatter(tensor: Tensor, scatter_list: list | None = None, src: int = 0, group=None, async_op: bool = False):
    """Rank r's ``tensor`` becomes ``scatter_list[r]`` of rank ``src``; other ranks pass no list."""
    _check(tensor)
    comm = _comm()
    _check_rank(src, comm, "src")
    n, me = comm.Get_size(), comm.Get_rank()
    send = None
    if me == src:
        _check_list(scatter_list, tensor, n, "scatter_list")
        send = np.ascontiguousarray(np.stack([backend.to_numpy(t._array) for t in scatter_list]))
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    recv = _host(tensor)
    return _run([comm.Iscatter(send, recv, root=src)], lambda: _write(tensor, recv), async_op)


def reduce(tensor: Tensor, dst: int, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """Rank ``dst``'s ``tensor`` becomes the reduction over all ranks; the others' are unchanged."""
    _check(tensor)
    comm = _comm()
    _check_rank(dst, comm, "dst")
    me = comm.Get_rank()
    buf = _host(tensor)
    if me == dst:
        req = comm.Ireduce(_mpi().IN_PLACE, buf, op=_mpi_op(op), root=dst)
    else:
        req = comm.Ireduce(buf, None, op=_mpi_op(op), root=dst)

    def finish():
        if me == dst:
            _average(buf, op, comm.Get_size())
            _write(tensor, buf)

    return _run([req], finish, async_op)


def reduce_scatter(output: Tensor, input_list: list, op: ReduceOp = ReduceOp.SUM, group=None,
                   async_op: bool = False):
    """Rank r's ``output`` becomes the reduction over all ranks of their ``input_list[r]``."""
    _check(output, "output")
    comm = _comm()
    n = comm.Get_size()
    _check_list(input_list, output, n, "input_list")
    send = np.ascontiguousarray(np.stack([backend.to_numpy(t._array) for t in input_list]))
    recv = _host(output)
    req = comm.Ireduce_scatter_block(send, recv, op=_mpi_op(op))

    def finish():
        _average(recv, op, n)
        _write(output, recv)

    return _run([req], finish, async_op)


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Return only when every rank has entered the barrier."""
    return _run([_comm().Ibarrier()], None, async_op)


def broadcast_object_list(object_list: list, src: int = 0, group=None, device=None) -> None:
    """``object_list``'s items (any picklable objects) become rank ``src``'s, in place."""
    comm = _comm()
    _check_rank(src, comm, "src")
    object_list[:] = comm.bcast(list(object_list) if comm.Get_rank() == src else None, root=src)


def all_gather_object(object_list: list, obj, group=None) -> None:
    """``object_list[r]`` becomes rank r's ``obj`` (any picklable object), on every rank."""
    comm = _comm()
    if len(object_list) != comm.Get_size():
        raise ValueError(f"object_list must have world_size={comm.Get_size()} entries, got {len(object_list)}")
    object_list[:] = comm.allgather(obj)
