"""The recorder: while a step runs eagerly it logs each array call as (function, input buffers, output buffers,
constants), and the Recording it yields replays them with no Tensor, node or saved-tensor object.

Every call is stored in the form that writes into the buffer the capture produced (``np.add(a, b, out=c)``), so
a replay issues the same numpy calls on the same memory in the same order, and is bit-for-bit the eager step.
"""
from __future__ import annotations

import operator
import os
import sys
import warnings

import numpy as np

from .. import backend
from ._stand_ins import RECORDING_NUMPY, RecordingGenerator
from ._traced import TracedArray

_FRAMEWORK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(np.__file__)
# np.* functions whose output shape depends on the values: a replay could not reuse their buffers
_DATA_DEPENDENT = {"nonzero", "argwhere", "flatnonzero", "unique", "extract", "compress"}


class GraphBreak(RuntimeError):
    """A captured step needed a value on the host (``.item()``, printing, a data-dependent shape)."""


def user_line() -> str:
    """'file:line' of the innermost frame outside framework and numpy: the user's line that caused a call."""
    f = sys._getframe(1)
    while f is not None:
        name = os.path.abspath(f.f_code.co_filename)
        if not name.startswith(_FRAMEWORK_DIR) and not name.startswith(_NUMPY_DIR):
            return f"{f.f_code.co_filename}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"


# numpy >= 2.4 warns (a DeprecationWarning, ~1 us even when ignored) on every call passing these an output positionally
_KEYWORD_OUT = (np.maximum, np.minimum)


_FILLS = {"zeros": 0, "zeros_like": 0, "ones": 1, "ones_like": 1}  # creation functions replayed as np.copyto(buf, v)


def _root(arr):
    return arr if arr.base is None else arr.base


def _into(fn, args, kwargs, out):
    """out[...] = fn(*args, **kwargs): replays a call that allocates (a copy, a fancy index, a draw)."""
    out[...] = fn(*args, **kwargs)


def _draw(gen, name, args, kwargs, out):
    """A random draw from the framework generator's *current* numpy Generator (manual_seed replaces it)."""
    out[...] = getattr(gen.np, name)(*args, **kwargs)


def _refill(slot, compute):
    """A dynamic scalar's slot gets this step's value (lr, bias corrections)."""
    slot[()] = compute()


class Recording:
    """A flat list of array calls on fixed buffers; ``replay()`` runs them in order."""

    __slots__ = ("calls", "texts", "breaks", "inputs", "outputs", "guards", "assumes")

    def __init__(self, calls, texts, breaks, inputs, outputs, guards, assumes=()) -> None:
        self.calls, self.texts, self.breaks = calls, texts, breaks
        self.inputs, self.outputs, self.guards, self.assumes = inputs, outputs, guards, assumes

    @property
    def buffers(self) -> list:
        """The distinct blocks of memory the calls use (buffers that share memory counted once)."""
        owners: dict = {}
        for call in self.calls:
            for a in _flatten_arrays(call[1:]):
                while isinstance(a.base, np.ndarray):
                    a = a.base
                owners[id(a)] = a
        return list(owners.values())

    def replay(self) -> None:
        for fn, args, kwargs in self.calls:
            if kwargs:
                fn(*args, **kwargs)
            else:  # most calls: a ufunc with its output passed positionally (cheaper to parse than out=)
                fn(*args)


def _name(fn) -> str:
    if fn is _into or fn is _draw:
        return fn.__name__
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


class Recorder:
    """Collects the calls of one capture (installed as ``backend._recorder`` while the step runs)."""

    def __init__(self, fullgraph: bool) -> None:
        self.fullgraph = fullgraph
        self.calls: list = []
        self.texts: list = []
        self.breaks: list = []
        self.memo: dict = {}          # id(traced) -> (traced, plain view): one plain buffer object per traced one
        self.written: set = set()     # ids of the memory owners some recorded call wrote
        self.external: dict = {}      # id(owner) -> owner, for memory read before anything recorded wrote it
        self.suppress = 0             # > 0 while a dynamic scalar is computed (its host reads are the point)
        self.foldable: set = set()    # indices of gradient copies into a flat slot (backend.gradient_copied)
        self.fresh: set = set()       # ids of the buffers this capture allocated (not state from before it)
        self.backward_ran = False     # set by the engine: the step ran a backward of its own
        self.xp = RECORDING_NUMPY

    def release(self) -> None:
        """Drop the capture's references to the arrays it recorded (the recording holds what it replays)."""
        self.memo.clear()
        self.calls.clear()
        self.external.clear()

    # ---- buffers -----------------------------------------------------------------------------------
    def plain(self, x):
        """The plain ndarray behind a traced array (other values unchanged; lists/tuples/dicts converted)."""
        if isinstance(x, TracedArray):
            hit = self.memo.get(id(x))
            if hit is None:
                hit = self.memo[id(x)] = (x, x.view(np.ndarray))
            return hit[1]
        if type(x) in (list, tuple):
            return type(x)(self.plain(i) for i in x)
        if type(x) is dict:
            return {k: self.plain(v) for k, v in x.items()}
        return x

    def traced(self, arr):
        """Wrap a plain result as a traced array (numpy scalars become 0-d buffers)."""
        if isinstance(arr, np.generic):
            arr = np.asarray(arr)
        t = arr.view(TracedArray)
        self.memo[id(t)] = (t, arr)
        if arr.base is None:
            self.fresh.add(id(arr))
        return t

    def _reads(self, arrays) -> None:
        for a in arrays:
            if isinstance(a, np.ndarray):
                r = _root(a)
                if id(r) not in self.written:
                    self.external.setdefault(id(r), r)
            elif type(a) in (list, tuple):
                self._reads(a)

    def _wrote(self, arr) -> None:
        self.written.add(id(_root(arr)))

    def record(self, fn, args, kwargs, text: str | None = None) -> None:
        if self.suppress:
            return  # an input check or a dynamic scalar's own host work: capture-time only
        if isinstance(fn, np.ufunc) and kwargs.keys() == {"out"} and fn not in _KEYWORD_OUT:
            args, kwargs = tuple(args) + tuple(kwargs["out"]), {}  # ufunc(a, b, out) == ufunc(a, b, out=(out,))
        self.calls.append((fn, args, kwargs))
        self.texts.append(text or _name(fn))

    # ---- the hooks ---------------------------------------------------------------------------------
    def ufunc(self, ufunc, method, inputs, kwargs):
        ins = tuple(self.plain(i) for i in inputs)
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        kw = dict(kwargs)
        outs = kwargs.get("out")
        self._reads(ins)
        if outs is not None:
            kw["out"] = tuple(self.plain(o) for o in outs)
        if method == "at":
            fn(*ins, **kw)
            self.record(fn, ins, kw, f"{ufunc.__name__}.at")
            self._wrote(ins[0])
            return None
        result = fn(*ins, **kw)
        if outs is not None:
            self.record(fn, ins, kw, f"{ufunc.__name__}" + ("" if method == "__call__" else f".{method}"))
            for o in kw["out"]:
                self._wrote(o)
            return outs[0] if len(outs) == 1 else outs
        many = isinstance(result, tuple)
        wrapped = tuple(self.traced(r) for r in (result if many else (result,)))
        kw["out"] = tuple(self.plain(w) for w in wrapped)
        self.record(fn, ins, kw, f"{ufunc.__name__}" + ("" if method == "__call__" else f".{method}"))
        for o in kw["out"]:
            self._wrote(o)
        return wrapped if many else wrapped[0]

    def _result(self, fn, args, kwargs, result, sources, text):
        """Wrap ``result``: views of a source stay views (nothing to replay); new data is recorded as a copy-in."""
        if isinstance(result, (tuple, list)):  # np.split, np.broadcast_arrays: each part on its own
            parts = [self._one(_part(fn, i), args, kwargs, r, sources, text) for i, r in enumerate(result)]
            # np.linalg's results are named tuples (SVDResult(U, S, Vh)), built from their fields
            return type(result)(*parts) if hasattr(result, "_fields") else type(result)(parts)
        return self._one(fn, args, kwargs, result, sources, text)

    def _one(self, fn, args, kwargs, result, sources, text):
        if isinstance(result, np.ndarray):
            root = _root(result)
            for s in sources:
                if isinstance(s, np.ndarray) and (result is s or root is _root(s)):
                    return result.view(TracedArray) if result is not s else self._traced_of(s)
        elif not isinstance(result, np.generic):
            return result  # a Python value (a shape, a dtype): nothing to record
        t = self.traced(result)
        out = self.plain(t)
        self.record(_into, (fn, args, kwargs, out), {}, text)
        self._wrote(out)
        return t

    def _traced_of(self, plain):
        for t, p in self.memo.values():
            if p is plain:
                return t
        return self.traced(plain)

    def function(self, func, args, kwargs):
        name = getattr(func, "__name__", "")
        if name in _DATA_DEPENDENT:
            self.host_read(None, f"np.{name} (data-dependent shape)")
        pargs, pkw = self.plain(args), self.plain(kwargs)
        self._reads(pargs)
        self._reads(tuple(pkw.values()))
        result = func(*pargs, **pkw)
        out = pkw.get("out")
        if out is not None:
            self.record(func, pargs, pkw, f"np.{name}")
            self._wrote(out)
            return kwargs["out"]
        if result is None:  # an in-place function (np.copyto, np.put_along_axis): replay the same call
            self.record(func, pargs, pkw, f"np.{name}")
            if pargs and isinstance(pargs[0], np.ndarray):
                self._wrote(pargs[0])
            return None
        if isinstance(result, (bool, int, float)) and not isinstance(result, np.generic):
            self.host_read(None, f"np.{name} (a Python value)")
            return result
        flat = [a for a in _flatten(pargs) if isinstance(a, np.ndarray)]
        if name == "concatenate" and isinstance(result, np.ndarray):  # replays straight into its buffer
            t = self.traced(result)
            self.record(func, pargs, dict(pkw, out=self.plain(t)), f"np.{name}")
            self._wrote(self.plain(t))
            return t
        return self._result(func, pargs, pkw, result, flat, f"np.{name}")

    def method(self, plain_method, name, self_arr, args, kwargs):
        me = self.plain(self_arr)
        pargs, pkw = self.plain(args), self.plain(kwargs)
        self._reads((me,) + tuple(_flatten(pargs)))
        result = plain_method(me, *pargs, **pkw)
        if result is me:
            return self_arr
        if name in ("copy", "astype") and isinstance(result, np.ndarray) and result.shape == me.shape \
                and _root(result) is not _root(me):
            # a copy or a cast replays as copyto into the buffer: no allocation (the same cast loop as astype)
            t = self.traced(result)
            self.record(np.copyto, (self.plain(t), me), {"casting": "unsafe"}, f".{name}")
            self._wrote(self.plain(t))
            return t
        return self._one(plain_method, (me,) + tuple(pargs), pkw, result, [me], f".{name}")

    def getitem(self, arr, index):
        me, pindex = self.plain(arr), self.plain(index)
        comps = pindex if isinstance(pindex, tuple) else (pindex,)
        if any(isinstance(c, np.ndarray) and c.dtype == bool and c.ndim > 0 for c in comps):
            self.host_read(None, "boolean-mask indexing (data-dependent shape)")
        self._reads((me,) + tuple(c for c in comps if isinstance(c, np.ndarray)))
        result = np.ndarray.__getitem__(me, pindex)
        return self._one(operator.getitem, (me, pindex), {}, result, [me], "getitem")

    def setitem(self, arr, index, value) -> None:
        me, pindex, pvalue = self.plain(arr), self.plain(index), self.plain(value)
        self._reads(tuple(c for c in (pindex if isinstance(pindex, tuple) else (pindex,))
                          if isinstance(c, np.ndarray)) + (pvalue,))
        np.ndarray.__setitem__(me, pindex, pvalue)
        self.record(operator.setitem, (me, pindex, pvalue), {}, "setitem")
        self._wrote(me)

    def create(self, fn, name, args, kwargs):
        pargs, pkw = self.plain(args), self.plain(kwargs)
        result = fn(*pargs, **pkw)
        flat = [a for a in _flatten(pargs) if isinstance(a, np.ndarray)]
        if isinstance(result, np.ndarray) and any(result is a or _root(result) is _root(a) for a in flat):
            same = args[0] if result is pargs[0] else result  # asarray of an array: that array
            # a host constant (a table an op builds with NumPy) becomes traced too: indexing it with a traced
            # array (table[idx]) goes through no numpy protocol, so only a traced table records that getitem
            return same if isinstance(same, TracedArray) else self._traced_of(result)
        t = self.traced(result)
        if name in _FILLS or name in ("full", "full_like"):  # a fill of the buffer: no new array and copy per replay
            value = _FILLS[name] if name in _FILLS else (pargs[1] if len(pargs) > 1 else pkw["fill_value"])
            self.record(np.copyto, (self.plain(t), value), {"casting": "unsafe"}, f"np.{name}")  # as full() casts
        elif name == "ascontiguousarray" and len(pargs) == 1 and not pkw and isinstance(pargs[0], np.ndarray) \
                and result.shape == pargs[0].shape and result.dtype == pargs[0].dtype:
            # a copy of an array as it is: replayed as copyto into its buffer (no allocation, no second copy)
            self.record(np.copyto, (self.plain(t), pargs[0]), {}, f"np.{name}")
        elif name not in ("empty", "empty_like"):
            self.record(_into, (fn, pargs, pkw, self.plain(t)), {}, f"np.{name}")
        self._wrote(self.plain(t))
        return t

    def draw(self, gen, name, args, kwargs):
        result = getattr(gen.np, name)(*args, **kwargs)
        if not isinstance(result, np.ndarray):
            self.host_read(None, f"a scalar random draw ({name})")
            return result
        t = self.traced(result)
        self.record(_draw, (gen, name, args, kwargs, self.plain(t)), {}, f"random.{name}")
        self._wrote(self.plain(t))
        return t

    def generator(self, gen):
        return RecordingGenerator(self, gen)

    def scalar_slot(self, compute, dtype):
        self.suppress += 1
        try:
            slot = np.array(compute(), dtype=dtype)
        finally:
            self.suppress -= 1
        self.record(_refill, (slot, compute), {}, "scalar slot")
        return slot

    # ---- graph breaks ------------------------------------------------------------------------------
    def host_read(self, arr, what: str) -> None:
        """A value leaves the arrays for Python: the recording cannot replay past it (a graph break)."""
        if self.suppress or (arr is not None and not isinstance(arr, TracedArray)):
            return
        where = user_line()
        message = (f"framework.compile: graph break: {what} at {where} needs the value on the host in the middle of "
                   "the step, so the recording cannot replay it; this step runs eagerly. Move the read out of the "
                   "compiled function (e.g. read the returned loss every N steps).")
        if self.fullgraph:
            raise GraphBreak(message + " (fullgraph=True makes this an error)")
        if where not in [line for _, line, _ in self.breaks]:  # one break per user line: the outermost name
            self.breaks.append((what, where, message))


def _part(fn, i):
    def part(*args, **kwargs):
        return fn(*args, **kwargs)[i]
    return part


def _flatten_arrays(x):
    for i in (x.values() if type(x) is dict else x):
        if isinstance(i, np.ndarray):
            yield i
        elif type(i) in (list, tuple, dict):
            yield from _flatten_arrays(i)


def _flatten(xs):
    for x in xs:
        if type(x) in (list, tuple):
            yield from _flatten(x)
        else:
            yield x


def warn_breaks(breaks, seen: set) -> None:
    """One warning per (operation, user line), as torch._dynamo reports graph breaks."""
    for what, where, message in breaks:
        if (what, where) not in seen:
            seen.add((what, where))
            warnings.warn(message, stacklevel=3)
