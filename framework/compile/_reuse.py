"""Buffer reuse by last use: a recording's temporaries share memory, so a compiled step holds about its peak of live
bytes between calls instead of every intermediate array its capture ever made.

A capture leaves one buffer per intermediate result (an activation, a gradient, a scratch value) and a replay
writes the same buffers again, so all of them stay allocated between calls: the transformer step held 250 MB where
torch holds 10.  Most are dead long before the step ends.  This pass reads, for each buffer the capture allocated,
the call that uses it first and the call that uses it last.  Buffers whose spans do not overlap share one block
of memory (the largest first, each into the smallest block it fits, as a register allocator hands out
registers), and the blocks are shared by every recording of the same compiled function (one replay runs at a time).
A replay then works in memory it used a moment ago, warm in the cache: the same calls, the same results.

A buffer is shared only when, by the recording itself, every byte the step reads was written earlier in the step
(so no value crosses from one replay to the next) and nothing outside the recording holds it: a returned tensor, a
``.grad``, optimizer state, a view the user kept, a module attribute.  That last check is not a list of cases: the
pass keeps weak references to the buffers, drops the recording's own, collects garbage, and any buffer still alive
is held by someone else and keeps its own memory.  Object arrays (they hold references) are never shared.
"""
from __future__ import annotations

import gc
import operator
import weakref

import numpy as np



def _start(a) -> int:
    return a.__array_interface__["data"][0]


def _walk(x, fn, leaf=np.ndarray):
    """x with fn applied to every ``leaf`` in a nest of tuples, lists and dicts (other values as they are)."""
    if isinstance(x, leaf):
        return fn(x)
    if type(x) in (list, tuple):
        return type(x)(_walk(i, fn, leaf) for i in x)
    if type(x) is dict:
        return {k: _walk(v, fn, leaf) for k, v in x.items()}
    return x


def _arrays(x) -> list:
    out = []
    _walk(x, out.append)
    return out


def _as_tuple(out) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def _basic(index) -> bool:
    """``index`` picks a view (ints, slices, Ellipsis, None), not a gather by arrays."""
    return all(i is None or i is Ellipsis or type(i) in (int, slice) for i in _as_tuple(index))


def _writes_reads(call) -> tuple[list, list]:
    """(arrays ``call`` overwrites without reading them, arrays it reads); unsure: it writes nothing, reads all."""
    fn, args, kwargs = call
    name = getattr(fn, "__name__", "")
    if kwargs.get("where", True) is not True:
        pass  # a masked write keeps the old values where the mask is False: a read
    elif isinstance(fn, np.ufunc):
        return list(args[fn.nin:]) + list(_as_tuple(kwargs.get("out", ()))), \
            _arrays((args[:fn.nin], {k: v for k, v in kwargs.items() if k != "out"}))
    elif isinstance(getattr(fn, "__self__", None), np.ufunc) and name in ("reduce", "accumulate", "outer") \
            and "out" in kwargs:  # np.add.reduce(a, axis, out=...): every element of out written
        return list(_as_tuple(kwargs["out"])), _arrays((args, {k: v for k, v in kwargs.items() if k != "out"}))
    elif name in ("_into", "_draw"):  # out[...] = fn(*args, **kwargs)
        return [args[-1]], _arrays(args[:-1])
    elif fn is np.copyto:
        return [args[0]], _arrays((args[1:], kwargs))
    elif name == "concatenate" and "out" in kwargs:
        return list(_as_tuple(kwargs["out"])), _arrays(args)
    elif fn is operator.setitem and _basic(args[1]):  # a[2:5] = v: that view written
        return [np.ndarray.__getitem__(args[0], args[1])], _arrays(args[2])
    return [], _arrays((args, kwargs))


def _owner(a):
    """The array that owns ``a``'s memory, through views and np.lib.stride_tricks.as_strided's wrapper (an object
    whose ``.base`` is the array it views)."""
    while True:
        base = a.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None) if hasattr(base, "__array_interface__") else None
            if not isinstance(base, np.ndarray):
                return a
        a = base


def _bytes_view(memory, a, owner):
    """The bytes of ``owner``'s memory that ``a`` covers, as a view of ``memory`` (one bool per byte of owner)."""
    return np.ndarray(a.shape + (a.itemsize,), bool, buffer=memory, offset=_start(a) - _start(owner),
                      strides=a.strides + (1,))


def _whole(a, owner) -> bool:
    """``a`` is all of ``owner``'s memory, each byte once (the owner itself, or a contiguous view of all of it)."""
    return a is owner or (a.nbytes == owner.nbytes and _start(a) == _start(owner)
                          and (a.flags.c_contiguous or a.flags.f_contiguous))


def _in_c_order(owner):
    """``owner`` with its axes ordered by falling stride: C-contiguous when its elements fill its memory."""
    return owner.transpose(np.argsort(owner.strides, kind="stable")[::-1])


def _bytes_of(owner):
    """A flat uint8 view of all of a dense owner's memory."""
    return _in_c_order(owner).reshape(-1).view(np.uint8)


class _Ref:
    """A placeholder for an array of the recording: a view (offset, shape, strides, dtype) of buffer ``owner``."""

    __slots__ = ("owner", "offset", "shape", "strides", "dtype")

    def __init__(self, owner: int, a, base) -> None:
        self.owner, self.offset = owner, _start(a) - _start(base)
        self.shape, self.strides, self.dtype = a.shape, a.strides, a.dtype

    def view(self, memory):
        return np.ndarray(self.shape, self.dtype, buffer=memory, offset=self.offset, strides=self.strides)


class BufferPool:
    """The blocks of memory a compiled function's recordings share (its replays run one at a time)."""

    def __init__(self) -> None:
        self.blocks: list = []

    def place(self, spans: list) -> list:
        """A block for each (first use, last use, nbytes) span, blocks shared by spans that do not overlap: the
        largest first, each into the smallest block it fits whose spans so far end before it starts or start
        after it ends (a new block when none fits)."""
        taken = [[] for _ in self.blocks]  # block -> the spans placed in it (this recording's)
        where = [0] * len(spans)
        for n in sorted(range(len(spans)), key=lambda n: -spans[n][2]):
            first, last, nbytes = spans[n]
            fits = [k for k, b in enumerate(self.blocks) if b.nbytes >= nbytes
                    and all(l < first or f > last for f, l in taken[k])]
            if fits:
                k = min(fits, key=lambda k: self.blocks[k].nbytes)
            else:
                k = len(self.blocks)
                self.blocks.append(np.empty(nbytes, np.uint8))
                taken.append([])
            taken[k].append((first, last))
            where[n] = self.blocks[k]
        return where


def _shareable(owner, fresh: set) -> bool:
    """A buffer the capture made, of plain numbers (an object array holds references: raw bytes would not do),
    owning all of its memory."""
    return (id(owner) in fresh and type(owner) is np.ndarray and owner.base is None and owner.nbytes > 0
            and not owner.dtype.hasobject and _in_c_order(owner).flags.c_contiguous)


class _Span:
    """What the plan knows of one buffer: its first and last use, whether it may share memory, and while its
    opening calls only write parts of it, which bytes they wrote."""

    __slots__ = ("owner", "first", "last", "shareable", "written")

    def __init__(self, owner, first: int, shareable: bool) -> None:
        self.owner, self.first, self.last, self.shareable, self.written = owner, first, first, shareable, None


class ReusePlan:
    """The calls of a recording with each shareable buffer replaced by a placeholder; ``calls(pool)`` gives the
    calls back, with every buffer nobody else holds mapped into the pool.  The plan holds no shareable buffer."""

    def __init__(self, calls: list, fresh: set) -> None:
        spans = {}  # id(owner) -> _Span
        for i, call in enumerate(calls):
            for a in _arrays(call[1:]):
                o = _owner(a)
                span = spans.get(id(o))
                if span is None:
                    span = spans[id(o)] = _Span(o, i, _shareable(o, fresh))
                    if span.shareable:
                        span.written = np.zeros(o.nbytes, bool)  # its bytes the step wrote so far
                span.last = i
                if type(a) is not np.ndarray:
                    span.shareable = False  # a subclass view (kept as it is)
            writes, reads = _writes_reads(call)
            for a in reads:  # every byte read must have been written earlier in the step: no value crosses steps
                span = spans[id(_owner(a))]
                if span.written is not None and not _bytes_view(span.written, a, span.owner).all():
                    span.shareable, span.written = False, None
            for a in writes:
                span = spans[id(_owner(a))]
                if span.written is not None:
                    _bytes_view(span.written, a, span.owner)[...] = True
                    if _whole(a, span.owner) or span.written.all():
                        span.written = None  # all written: nothing more to check
        for span in spans.values():
            if span.written is not None:  # some bytes never written: keep them (and their value) to itself
                span.shareable = False
        shared = [s for s in spans.values() if s.shareable]
        index = {id(s.owner): n for n, s in enumerate(shared)}
        self.spans = [(s.first, s.last, s.owner.nbytes) for s in shared]
        self.refs = [weakref.ref(s.owner) for s in shared]

        def placeholder(a):
            o = _owner(a)
            n = index.get(id(o))
            return a if n is None else _Ref(n, a, o)
        self.template = [(fn, _walk(args, placeholder), _walk(kwargs, placeholder)) for fn, args, kwargs in calls]

    def calls(self, pool: BufferPool) -> list:
        """The recording's calls: buffers nobody else holds share the pool's blocks by their spans; call after the
        recording dropped its own references to the arrays it recorded."""
        gc.collect()  # a buffer kept only by a dead reference cycle (an autograd graph) is not held
        memory = {}
        order = []
        for n, ref in enumerate(self.refs):
            owner = ref()
            if owner is not None:
                memory[n] = _bytes_of(owner)  # held outside the recording: its own memory
            else:
                order.append(n)
        for n, block in zip(order, pool.place([self.spans[n] for n in order])):
            memory[n] = block

        def resolve(ref):
            return ref.view(memory[ref.owner])
        return [(fn, _walk(args, resolve, _Ref), _walk(kwargs, resolve, _Ref)) for fn, args, kwargs in self.template]

