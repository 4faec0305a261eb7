"""Flat parameters for the foreach optimizers: a group's parameters, gradients and state as views into one
contiguous buffer per (device, dtype), so one array call updates every parameter of the group.

A ``FlatBucket`` owns the buffers.  Each parameter's ``_array`` is rebound to a view of ``bucket.param``;
its grad and state tensors to views of ``bucket.grad`` and ``bucket.state[name]``.  The user still sees
ordinary tensors.  Before each step ``matches()`` checks (by identity, a few attribute reads per parameter)
that nobody rebound a view: ``param.data = x``, ``Module.to(...)``, ``load_state_dict`` or a fresh
``.grad`` all rebind, and the optimizer then re-flattens (or, when it cannot, falls back to the readable
single-tensor path for that step).

Gradients land there too: while a parameter is still our view, its first gradient of a backward is written
straight into a slot of a fresh flat gradient buffer (``grad_slot``), so ``gather_grads`` finds the flat
gradient ready instead of concatenating copies.  A fresh buffer per backward keeps torch's semantics: a
``.grad`` a user kept from an earlier step is never overwritten.

Caveat (documented): flattening moves each parameter into new storage, so an alias taken before the first
step (``w = p.detach()``, ``p.numpy()``) stops sharing memory with the parameter afterwards.
"""
from __future__ import annotations

import weakref

from ..backend import device_of, get_array_module, gradient_copied, to_device
from ..creation import zeros
from ..tensor import GRAD_HOMES, Tensor


def _root(arr):
    """The array that owns ``arr``'s memory (numpy and cupy both collapse a view's base to its owner)."""
    return arr if arr.base is None else arr.base


def _home(p: Tensor, bucket: FlatBucket, i: int) -> None:
    """Register ``bucket`` as the home of p's gradients, for as long as p lives."""
    key = id(p)
    if key not in GRAD_HOMES:
        weakref.finalize(p, GRAD_HOMES.pop, key, None)
    GRAD_HOMES[key] = (weakref.ref(bucket), i)


class FlatBucket:
    """Parameters of one (device, dtype) in one param group, and their grads and state, as views of flat buffers."""

    __slots__ = ("params", "states", "names", "xp", "on_gpu", "sizes", "param", "views", "grad", "grad_views", "state",
                 "state_tensors", "state_views", "steps", "step_tensors", "first", "taken", "scratches", "__weakref__")

    def __init__(self, params: list, states: list, names: tuple, has_step: bool, fresh: bool) -> None:
        """Copy ``params`` (and their state, unless ``fresh``: then create it as zeros) into flat buffers."""
        arr0 = params[0]._array
        xp, dtype, device = get_array_module(arr0), arr0.dtype, device_of(arr0)
        self.params, self.states, self.names, self.xp = list(params), list(states), names, xp
        self.on_gpu = device != "cpu"
        self.sizes = [p._array.size for p in params]
        self.param = xp.concatenate([p._array.reshape(-1) for p in params])
        self.views = self._split(self.param)
        for i, (p, v) in enumerate(zip(params, self.views)):
            p._array = v  # the parameter's storage is now a slice of the group's buffer
            _home(p, self, i)  # its next gradient may go straight into our flat gradient (grad_slot)
        self.grad, self.grad_views = None, None
        self.taken: set = set()  # indices of self.grad's slots already holding a gradient
        self.state, self.state_tensors, self.state_views = {}, {}, {}
        for name in names:
            if fresh:
                flat = xp.zeros(self.param.size, dtype)
            else:  # gather the existing state (load_state_dict or Module.to may have changed its device/dtype)
                flat = xp.concatenate([to_device(st[name]._array, device).astype(dtype, copy=False).reshape(-1)
                                       for st in states])
            self.state[name] = flat
            self.state_views[name] = self._split(flat)
            self.state_tensors[name] = [Tensor._make(v) for v in self.state_views[name]]
            for st, t in zip(states, self.state_tensors[name]):
                st[name] = t
        self.steps, self.step_tensors = None, None
        if has_step:
            # torch keeps each parameter's step as its own scalar tensor; ours are 0-d views of one array
            if fresh:
                self.steps = zeros(len(params))._array
            else:
                self.steps = get_array_module(states[0]["step"]._array).array(
                    [st["step"].item() for st in states], dtype=states[0]["step"]._array.dtype)
            self.step_tensors = [Tensor._make(self.steps[i:i + 1].reshape(())) for i in range(len(params))]
            for st, t in zip(states, self.step_tensors):
                st["step"] = t
        self.first = fresh  # the step that creates the state (SGD's momentum starts as a copy of the grad)
        self.scratches: list = []  # buffers for the optimizer's temporaries (scratch())

    def _split(self, flat) -> list:
        """Views of ``flat`` shaped like each parameter."""
        out, start = [], 0
        for p, n in zip(self.params, self.sizes):
            out.append(flat[start:start + n].reshape(p._array.shape))
            start += n
        return out

    def scratch(self, i: int):
        """Scratch buffer ``i``, the size of the flat buffer: where a foreach update writes its temporaries."""
        while len(self.scratches) <= i:  # made on first use (while framework.compile captures: a recorded buffer)
            self.scratches.append(get_array_module(self.param).empty(self.param.size, self.param.dtype))
        return self.scratches[i]

    def matches(self, state: dict, names: tuple) -> bool:
        """True while every parameter, state tensor and step is still our view (grads are checked by gather_grads)."""
        if names != self.names:
            return False
        for p, v, st in zip(self.params, self.views, self.states):
            if p._array is not v or state[p] is not st:
                return False
        for name, tensors in self.state_tensors.items():
            for st, t, v in zip(self.states, tensors, self.state_views[name]):
                if st.get(name) is not t or t._array is not v:
                    return False
        if self.step_tensors is not None:
            for st, t in zip(self.states, self.step_tensors):
                if st.get("step") is not t:
                    return False
        return True

    def grad_slot(self, i: int, g):
        """Parameter i's first gradient of a backward, copied into its slot of the flat gradient; None when the
        parameter no longer lives in our buffer.  A slot already handed out starts a fresh buffer."""
        p = self.params[i]
        if p._array is not self.views[i] or g.dtype != p._array.dtype:
            return None
        if self.grad is None or i in self.taken:
            xp = get_array_module(g)  # not self.xp: while framework.compile captures, its recording stand-in
            self.grad = xp.empty(self.param.size, self.param.dtype)
            self.grad_views = self._split(self.grad)
            self.taken = set()
        self.taken.add(i)
        view = self.grad_views[i]
        view[...] = g
        gradient_copied()  # framework.compile: the replay may compute g straight into the slot
        return view

    def drop_grad(self) -> None:
        """zero_grad(set_to_none=True) dropped the grads: forget the flat gradient unless a parameter still has its
        slot as .grad, so its memory is freed there, as torch's grads are (a .grad a user kept keeps its own view;
        the next backward starts a fresh buffer either way)."""
        views = self.grad_views
        if views is None or any(p._grad is not None and p._grad._array is v for p, v in zip(self.params, views)):
            return
        self.grad = self.grad_views = None
        self.taken = set()

    def gather_grads(self):
        """The flat gradient: the grads are reused in place when they are still our views (zero_grad(set_to_none=
        False) keeps them), else copied into a *new* buffer (an old grad a user kept must not be overwritten)."""
        params, views = self.params, self.grad_views
        if views is not None and all(p._grad._array is v for p, v in zip(params, views)):
            return self.grad
        self.grad = self.xp.concatenate([p._grad._array.reshape(-1) for p in params])
        self.grad_views = self._split(self.grad)
        self.taken = set(range(len(params)))
        for p, v in zip(params, self.grad_views):
            if not p._grad._rg and p._grad._base is None:  # a grad with history or a view keeps its storage
                p._grad._array = v
        return self.grad

    def next_step(self) -> float:
        """Increment every parameter's step counter (one array call) and return the common value."""
        self.count_step()
        return self.step_value()

    def count_step(self) -> None:
        """Increment every parameter's step counter (one array call)."""
        self.steps += 1

    def step_value(self) -> float:
        """The common step count, read on the host (a captured step reads it in its dynamic scalars)."""
        return float(self.steps[0])

    def bump(self, op: str) -> None:
        """Tensor in-place semantics for the parameters: each one's version counter sees this update."""
        counters = [p._version_counter for p in self.params if p._version_counter is not None]
        if not counters:
            return
        first = counters[0]
        first.bump(op)
        # the same op, user line and "inside X.step()" label for all: one frame walk, not one per parameter
        for c in counters[1:]:
            c.value += 1
            c.last_op, c.last_site, c.last_context = first.last_op, first.last_site, first.last_context


def _status(st: dict, names: tuple, has_step: bool):
    """"fresh" (no state yet), the step count (state complete; 0 for SGD), or None (half created: not flattenable)."""
    have = [n in st for n in names] + ([("step" in st)] if has_step else [])
    if not any(have):
        return "fresh"
    if not all(have):
        return None
    return st["step"].item() if has_step else 0


def flat_buckets(params: list, state: dict, names: tuple, has_step: bool, owned: set) -> list:
    """Split ``params`` (all with a grad) into (FlatBucket | None, params) per (device, dtype, state status).

    Parameters whose step counts differ (one had no grad for a while) go to different buckets, as their bias
    corrections differ.  None means "step these with the single-tensor path": their state is half created,
    their dtype is not floating, or two of them share memory that is not ours (flattening would separate
    them).  ``owned``: ids of the parameter views of this optimizer's current buckets.
    """
    by_key: dict = {}
    for p in params:
        arr = p._array
        by_key.setdefault((device_of(arr), arr.dtype, _status(state[p], names, has_step)), []).append(p)
    out = []
    for (_, dtype, status), group in by_key.items():
        ok = status is not None and dtype.kind in "fV"
        if ok:  # parameters sharing memory: only our own (disjoint) views of an older flat buffer may
            roots = [id(_root(p._array)) for p in group]
            shared = [id(p._array) for p, r in zip(group, roots) if roots.count(r) > 1]
            ok = all(a in owned for a in shared) and len(set(shared)) == len(shared)
        states = [state[p] for p in group]
        out.append((FlatBucket(group, states, names, has_step, status == "fresh") if ok else None, group))
    return out
