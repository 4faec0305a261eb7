"""The gradient reducer behind DistributedDataParallel: buckets, and one non-blocking all-reduce per bucket.

As torch's Reducer (torch/csrc/distributed/c10d/reducer.cpp): parameters go into buckets in reverse
registration order (roughly the order backward produces their gradients); a hook that fires after a
parameter's gradient has been accumulated marks it ready; when every parameter of a bucket is ready
the bucket's gradients are copied into one flat host buffer and an ``Iallreduce`` starts, so
communication overlaps the rest of backward.  Buckets start strictly in index order, the same on every
rank, because MPI matches collectives by the order in which they are called.  A callback queued on the
backward engine waits for all of them, divides by the world size and writes the averages back into
``.grad`` before ``backward()`` returns.
"""
from __future__ import annotations

import atexit
import threading
import time

import numpy as np

from ... import backend
from ...autograd.engine import queue_callback
from ...distributed.group import _comm, _mpi
from ...tensor import Tensor

FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES: start communicating early


def make_buckets(params: list[Tensor], cap_bytes: int, first_cap_bytes: int = FIRST_BUCKET_BYTES) -> list[list[int]]:
    """Indices into ``params``, reverse order, grouped by dtype/device up to the byte caps."""
    buckets: list[list[int]] = []
    open_: dict = {}  # (dtype, device) -> (indices, bytes) of the bucket being filled
    for i in reversed(range(len(params))):
        p = params[i]
        key = (p.dtype, p.device)
        idx, size = open_.get(key, ([], 0))
        idx.append(i)
        size += p.numel() * p.element_size()
        cap = first_cap_bytes if not buckets else cap_bytes
        if size >= min(cap, cap_bytes):
            buckets.append(idx)
            open_.pop(key, None)
        else:
            open_[key] = (idx, size)
    buckets.extend(idx for idx, _ in open_.values())
    return buckets


class Bucket:
    """Some parameters whose gradients travel together in one flat buffer."""

    def __init__(self, params: list[Tensor]) -> None:
        self.params = params
        sizes = [p.numel() for p in params]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.buffer = np.empty(int(self.offsets[-1]), dtype=np.dtype(params[0]._array.dtype))
        self.pending = len(params)
        self.request = None

    def reset(self) -> None:
        self.pending, self.request = len(self.params), None

    def pack(self) -> None:
        """Copy the gradients into the flat host buffer (zeros where a parameter has none)."""
        for p, a, b in zip(self.params, self.offsets[:-1], self.offsets[1:]):
            if p._grad is None:
                self.buffer[a:b] = 0
            else:
                self.buffer[a:b] = backend.to_numpy(p._grad._array).reshape(-1)

    def unpack(self, scale: float, used: np.ndarray | None) -> None:
        """Write the averaged gradients back into ``.grad`` (leaving parameters no rank used untouched)."""
        self.buffer *= scale
        for j, (p, a, b) in enumerate(zip(self.params, self.offsets[:-1], self.offsets[1:])):
            if used is not None and not used[j]:
                continue
            value = self.buffer[a:b].reshape(p.shape)
            if p._grad is None:
                p._grad = Tensor._make(backend.to_device(value.copy(), p.device))
            else:
                xp = backend.get_array_module(p._grad._array)
                p._grad._array[...] = xp.asarray(value)


class Reducer:
    """Launches a bucket's all-reduce when its last gradient arrives; finishes them all at backward's end."""

    def __init__(self, params: list[Tensor], cap_bytes: int, find_unused_parameters: bool) -> None:
        self.params = params
        self.buckets = [Bucket([params[i] for i in idx]) for idx in make_buckets(params, cap_bytes)]
        self.where = {}  # id(param) -> bucket index
        for b, bucket in enumerate(self.buckets):
            for p in bucket.params:
                self.where[id(p)] = b
        self.find_unused_parameters = find_unused_parameters
        self.next_bucket = 0  # buckets start in this order on every rank
        self.ready: set = set()
        self.callback_queued = False
        self.enabled = True  # False inside no_sync()
        self.comm_seconds = 0.0  # time spent waiting at the end of backward (the part not hidden)
        self.bytes_reduced = self.bytes_hidden = 0  # all-reduced bytes; those already done when backward ended
        # a helper thread drives MPI progress during backward, where MPI allows calls from two threads
        self.progress_thread = _mpi().Query_thread() == _mpi().THREAD_MULTIPLE and _comm().Get_size() > 1
        self._in_flight = threading.Event()
        self._lock = threading.Lock()  # no Iprobe once _stop_progress() has returned (e.g. before MPI_Finalize)
        self._thread = None
        self.handles = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]

    def remove_hooks(self) -> None:
        for h in self.handles:
            h.remove()

    def _on_grad(self, param: Tensor) -> None:
        if not self.enabled:
            return
        if id(param) in self.ready:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by a parameter receiving two "
                "gradients in one backward pass (it is used twice through separate graphs, or backward was called "
                "twice before the optimizer step); DistributedDataParallel averages each gradient once per backward.")
        self.ready.add(id(param))
        if not self.callback_queued:
            queue_callback(self._finish)
            self.callback_queued = True
        bucket = self.buckets[self.where[id(param)]]
        bucket.pending -= 1
        self._launch_ready()
        if self.next_bucket and not self.progress_thread:
            _comm().Iprobe()  # no helper thread: let MPI advance the all-reduces in flight at least here

    def _launch_ready(self) -> None:
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])

    def _launch(self, bucket: Bucket) -> None:
        bucket.pack()
        bucket.request = _comm().Iallreduce(_mpi().IN_PLACE, bucket.buffer, op=_mpi().SUM)
        self.next_bucket += 1
        if self.progress_thread:
            if self._thread is None:
                self._thread = threading.Thread(target=self._progress, args=(_comm(),), daemon=True)
                self._thread.start()
                atexit.register(self._stop_progress)  # never poke MPI after mpi4py has finalised it
            self._in_flight.set()

    def _progress(self, comm) -> None:
        """MPI moves a non-blocking collective forward only inside MPI calls; while backward computes
        (NumPy releases the GIL) this thread makes a cheap one every 0.1 ms, so the all-reduces advance.
        It sleeps on an Event whenever no all-reduce is in flight."""
        while True:
            self._in_flight.wait()
            with self._lock:
                if self._in_flight.is_set():
                    comm.Iprobe()
            time.sleep(1e-4)

    def _stop_progress(self) -> None:
        with self._lock:
            self._in_flight.clear()

    def _finish(self) -> None:
        """End of backward: start what is left (unused parameters), wait, average, write back."""
        comm = _comm()
        used = None
        if self.next_bucket < len(self.buckets):
            if not self.find_unused_parameters:
                missing = [i for i, p in enumerate(self.params) if id(p) not in self.ready]
                _mpi().Request.Waitall([b.request for b in self.buckets[:self.next_bucket]])  # leave none open
                self._reset()
                raise RuntimeError(
                    "Expected to have finished reduction in the prior iteration before starting a new one. This "
                    f"error indicates that your module has parameters that were not used in producing loss (parameter "
                    f"indices {missing[:10]} in module.parameters() got no gradient). You can enable unused parameter "
                    "detection by passing the keyword argument `find_unused_parameters=True` to "
                    "`framework.nn.parallel.DistributedDataParallel`.")
            while self.next_bucket < len(self.buckets):
                self._launch(self.buckets[self.next_bucket])
        if self.find_unused_parameters:
            # a parameter no rank used keeps its .grad as it was (None), as torch's reducer does
            local = np.array([id(p) in self.ready for p in self.params], dtype=np.int32)
            comm.Allreduce(_mpi().IN_PLACE, local, op=_mpi().MAX)
            used = local
        for b in self.buckets:  # overlap statistic: which all-reduces finished behind backward
            self.bytes_reduced += b.buffer.nbytes
            self.bytes_hidden += b.buffer.nbytes if b.request.Test() else 0
        start = time.perf_counter()
        self._stop_progress()
        _mpi().Request.Waitall([b.request for b in self.buckets])
        self.comm_seconds += time.perf_counter() - start
        scale = 1.0 / comm.Get_size()
        index = {id(p): i for i, p in enumerate(self.params)}
        for bucket in self.buckets:
            bucket.unpack(scale, None if used is None else used[[index[id(p)] for p in bucket.params]])
        self._reset()

    def prepare(self) -> None:
        """Before a forward: forget a backward that raised half-way (its started all-reduces are waited)."""
        if self.ready or self.next_bucket:
            _mpi().Request.Waitall([b.request for b in self.buckets[:self.next_bucket]])
            self._reset()

    def _reset(self) -> None:
        self._stop_progress()
        for b in self.buckets:
            b.reset()
        self.next_bucket, self.ready, self.callback_queued = 0, set(), False
