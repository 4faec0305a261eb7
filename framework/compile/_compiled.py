"""CompiledFunction: the cache of recordings (one per guard key), capture on a miss, replay on a hit."""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import backend
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import _traced
from ._guards import Adopter, assumed, discover, guard_key
from ._passes import fold_gradient_copies, owner_of
from ._record import GraphBreak, Recorder, Recording, warn_breaks
from ._reuse import BufferPool, ReusePlan

_EAGER = "eager"  # the cache entry of a key whose capture met a graph break: that step always runs eagerly
_STALE = "stale"  # the entry of a key no call can match again (its recording dropped; it still counts to the limit)


def _map(x, fn):
    """fn applied to every Tensor in a nest of lists, tuples and dicts."""
    if isinstance(x, Tensor):
        return fn(x)
    if type(x) in (list, tuple):
        return type(x)(_map(i, fn) for i in x)
    if type(x) is dict:
        return {k: _map(v, fn) for k, v in x.items()}
    return x


def _on_cpu(modules, tensors) -> bool:
    """True when every parameter, buffer and loose tensor the step reaches is a numpy array."""
    for m in modules:
        for t in list(m._parameters.values()) + list(m._buffers.values()):
            if t is not None and not isinstance(t._array, np.ndarray):
                return False
    return all(isinstance(t._array, np.ndarray) for t in tensors)


def _tensors(x, out: list) -> list:
    _map(x, out.append)
    return out


class CompiledFunction:
    """``fn`` captured once per guard key and replayed afterwards (see framework.compile)."""

    def __init__(self, fn, *, fullgraph: bool = False, cache_size_limit: int = 8) -> None:
        self.fn, self.fullgraph, self.cache_size_limit = fn, fullgraph, cache_size_limit
        self.cache: dict = {}
        self.captures = 0  # how many times a step was recorded (tests read it)
        self.replays = 0
        self.latest = None  # the recording the last capture made (explain reads it: it may be stale already)
        self._warned: set = set()
        self.pool = BufferPool()  # memory the recordings' temporaries share (one replay runs at a time)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if backend._recorder is not None or any(not isinstance(t._array, np.ndarray) for t in _tensors(args, [])):
            return self.fn(*args, **kwargs)  # nested in another capture, or on a GPU: run as written
        modules, optims, tensors = discover(self.fn, args, kwargs)
        if not _on_cpu(modules, tensors):
            self._warn_once("gpu", "framework.compile records NumPy arrays only: this step holds CuPy arrays and runs "
                                   "eagerly (a CuPy recording is future work, see the compile notes)")
            return self.fn(*args, **kwargs)
        key = guard_key(args, kwargs, modules, optims, tensors)
        entry = self.cache.get(key)
        if entry is _EAGER:
            return self.fn(*args, **kwargs)
        entry = None if entry is _STALE else entry
        if entry is not None and all(p._grad is not None and p._grad._array is a for p, a in entry.guards):
            return self._replay(entry, args, kwargs)
        if entry is None and Adopter().adopt(modules, optims, tensors):  # plain arrays became traced views: a new key
            key = guard_key(args, kwargs, modules, optims, tensors)
            entry = self.cache.get(key)
            if entry is _EAGER:
                return self.fn(*args, **kwargs)
            entry = None if entry is _STALE else entry
            if entry is not None and all(p._grad is not None and p._grad._array is a for p, a in entry.guards):
                return self._replay(entry, args, kwargs)
        if len(self.cache) >= self.cache_size_limit:
            self._warn_once("limit", f"framework.compile: {getattr(self.fn, '__qualname__', self.fn)} hit the "
                                     f"recompile limit ({self.cache_size_limit} guard keys); running it eagerly "
                                     "for new keys (the arguments' shapes or the state change every call?)")
            return self.fn(*args, **kwargs)
        return self._capture(key, args, kwargs, modules, optims, tensors)

    def _warn_once(self, tag, message) -> None:
        if tag not in self._warned:
            self._warned.add(tag)
            warnings.warn(message, stacklevel=3)

    # ---- capture -----------------------------------------------------------------------------------
    def _capture(self, key, args, kwargs, modules, optims, tensors):
        self.captures += 1
        self.latest = None
        recorder = Recorder(self.fullgraph)
        Adopter().adopt(modules, optims, tensors)
        assumes = assumed(modules, optims, tensors)
        inputs = []  # (plain input buffer, position) : replays copy the new argument values in

        def own(t: Tensor) -> Tensor:
            buf = np.array(t._array, copy=True)
            traced = recorder.traced(buf)
            new = Tensor._make(traced)
            new._rg = t._rg and t._grad_fn is None
            inputs.append(buf)
            return new

        targs, tkwargs = _map(args, own), _map(kwargs, own)
        entry_grads = {}
        leaves = [p for m in modules for p in m._parameters.values() if p is not None] + list(tensors)
        for p in leaves:
            if p._grad is not None:
                a = p._grad._array
                entry_grads[id(a if a.base is None else a.base)] = (p, a)
        _traced.install()
        backend._recorder = recorder
        try:
            result = self.fn(*targs, **tkwargs)
        finally:
            backend._recorder = None
            _traced.uninstall()
        if recorder.breaks:
            self.cache[key] = _EAGER
            warn_breaks(recorder.breaks, self._warned)
            return result
        if not recorder.backward_ran and is_grad_enabled() and any(t.requires_grad for t in _tensors(result, [])):
            # a forward whose graph the caller will backpropagate later: a replay would return tensors without
            # one (and silently no gradients), so this key runs eagerly from now on
            self.cache[key] = _EAGER
            message = (f"framework.compile: {getattr(self.fn, '__qualname__', self.fn)} returns a tensor that "
                       "requires grad without running backward itself: a replay cannot rebuild its graph, so it runs "
                       "eagerly. Compile the whole training step (forward, loss.backward(), optimizer.step()), or "
                       "call it under framework.no_grad() to have it replayed.")
            if self.fullgraph:
                raise GraphBreak(message)
            if "graph" not in self._warned:
                self._warned.add("graph")
                warnings.warn(message, stacklevel=4)  # the user's call (skipping _capture and __call__)
            return result
        outputs = [(t, recorder.plain(t._array) if isinstance(t._array, _traced.TracedArray) else None)
                   for t in _tensors(result, [])]
        guards = [entry_grads[r] for r in recorder.external if r in entry_grads]
        # temporaries of this capture that a copy may be folded away from: not the inputs, not the outputs
        temporaries = recorder.fresh - {id(owner_of(b)) for b in inputs} - \
            {id(owner_of(b)) for _, b in outputs if b is not None}
        calls, texts = fold_gradient_copies(recorder.calls, recorder.texts, recorder.foldable, temporaries)
        plan = ReusePlan(calls, recorder.fresh)
        del calls  # the recording's own references to its arrays: what stays alive is held by someone else
        recorder.release()
        calls = plan.calls(self.pool)
        rec = self.latest = self.cache[key] = Recording(calls, texts, recorder.breaks, inputs, (result, outputs),
                                                        guards, assumes)
        self._drop_stale()
        return self._results(rec)  # copies, as a replay returns: the next replay rewrites the buffers

    def _drop_stale(self) -> None:
        """Forget the recordings no call can replay again: a tensor its key names holds another array now (the
        first step's capture, before the optimizer flattened the parameters).  They held their own buffers."""
        for key, entry in list(self.cache.items()):
            if isinstance(entry, Recording) and any(t._array is not a for t, a in entry.assumes):
                self.cache[key] = _STALE

    # ---- replay ------------------------------------------------------------------------------------
    def _replay(self, rec: Recording, args, kwargs):
        self.replays += 1
        new = _tensors((args, kwargs), [])
        for buf, t in zip(rec.inputs, new):
            np.copyto(buf, t._array)
        rec.replay()
        return self._results(rec)

    @staticmethod
    def _results(rec: Recording):
        """fn's return value with each Tensor made anew from its buffer (a copy: the next replay rewrites it)."""
        result, outputs = rec.outputs
        fresh = {}
        for t, buf in outputs:
            fresh[id(t)] = Tensor._make(buf.copy()) if buf is not None else t
        return _map(result, lambda t: fresh.get(id(t), t))
