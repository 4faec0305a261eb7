"""Rewrites of a finished recording: fewer calls, the same results bit for bit.

One pass so far, ``fold_gradient_copies``: backward computes a leaf's gradient into a temporary (``matmul(a, b,
out=tmp)``), then AccumulateGrad copies it into the leaf's slot of the optimizer's flat gradient buffer
(``slot[...] = tmp``).  When nothing else reads ``tmp``, the replay can compute straight into the slot and skip
the copy, as torch's AccumulateGrad steals a gradient nobody else holds instead of copying it.
"""
from __future__ import annotations

import operator

import numpy as np


def owner_of(a):
    """The array that owns ``a``'s memory (through views of views, traced or not)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _arrays(x, out: list) -> list:
    if isinstance(x, np.ndarray):
        out.append(x)
    elif type(x) in (list, tuple):
        for i in x:
            _arrays(i, out)
    elif type(x) is dict:
        for i in x.values():
            _arrays(i, out)
    return out


def _same_layout(view, owner) -> bool:
    """``view`` is all of ``owner``'s memory in C order (the owner itself, or a reshape of it)."""
    return (view.size == owner.size and view.dtype == owner.dtype and view.flags.c_contiguous
            and owner.flags.c_contiguous and view.__array_interface__["data"][0] == owner.__array_interface__["data"][0])


def _split_io(call) -> tuple[list, list] | None:
    """(output positions, input arrays) of a call: ("args", i) / ("out", i) for ufuncs, ("into", 3) for a copy-in
    (``_into``); None for a call whose outputs we do not know (it is left alone)."""
    fn, args, kwargs = call
    if isinstance(fn, np.ufunc) and not kwargs:  # the recorder passes a ufunc's outputs positionally
        return [("args", i) for i in range(fn.nin, len(args))], _arrays(args[:fn.nin], [])
    ufunc = fn if isinstance(fn, np.ufunc) else getattr(fn, "__self__", None)  # np.add.reduce: bound to np.add
    if isinstance(ufunc, np.ufunc) and "out" in kwargs:  # a ufunc method (reduce): out= with axis, keepdims...
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        return [("out", i) for i in range(len(kwargs["out"]))], _arrays((args, rest), [])
    if getattr(fn, "__name__", "") == "_into":  # out[...] = fn(*args, **kwargs)
        return [("into", 3)], _arrays((args[1], args[2]), [])
    return None


def _get(call, where):
    kind, i = where
    return call[1][i] if kind in ("args", "into") else call[2]["out"][i]


def _replace(call, where, new):
    fn, args, kwargs = call
    kind, i = where
    if kind in ("args", "into"):
        return fn, args[:i] + (new,) + args[i + 1:], kwargs
    outs = kwargs["out"]
    return fn, args, dict(kwargs, out=outs[:i] + (new,) + outs[i + 1:])


def fold_gradient_copies(calls: list, texts: list, foldable: set, temporaries: set) -> tuple[list, list]:
    """Fold each marked gradient copy ``slot[...] = tmp`` into the call that wrote ``tmp``.

    Only when, by the recording itself: ``tmp`` is all of a buffer that exactly two calls use, an earlier one
    writing it as its one output and this copy; that call reads nothing in the slot's memory, and no call in
    between touches it; and the buffer is one of ``temporaries`` (ids of buffers the capture allocated, other than
    its inputs and outputs: no state a later step reads).
    """
    if not foldable:
        return calls, texts
    uses: dict = {}  # id(owner) -> indices of the calls that reference it
    for i, (fn, args, kwargs) in enumerate(calls):
        for a in _arrays((args, kwargs), []):
            lst = uses.setdefault(id(owner_of(a)), [])
            if not lst or lst[-1] != i:
                lst.append(i)
    calls, drop = list(calls), set()
    for j in sorted(foldable):
        fn, args, kwargs = calls[j]
        if fn is not operator.setitem or args[1] is not Ellipsis or kwargs:
            continue
        slot, tmp = args[0], args[2]
        if not isinstance(tmp, np.ndarray) or tmp.shape != slot.shape or tmp.dtype != slot.dtype \
                or not slot.flags.c_contiguous:
            continue
        owner = owner_of(tmp)
        if id(owner) not in temporaries or not _same_layout(tmp, owner) or len(uses.get(id(owner), ())) != 2:
            continue
        i = uses[id(owner)][0]
        io = _split_io(calls[i]) if i not in drop else None
        if io is None:
            continue
        outs = [w for w in io[0] if owner_of(_get(calls[i], w)) is owner]
        if len(outs) != 1 or not _same_layout(_get(calls[i], outs[0]), owner):
            continue  # tmp is not simply that call's one output
        if any(owner_of(a) is owner or np.may_share_memory(a, slot) for a in io[1]):
            continue  # the call reads tmp itself, or the slot's memory that it would now overwrite early
        if any(np.may_share_memory(a, slot) for k in range(i + 1, j) for a in _arrays(calls[k][1:], [])):
            continue  # a call in between reads or writes the slot
        calls[i] = _replace(calls[i], outs[0], slot.reshape(_get(calls[i], outs[0]).shape))
        drop.add(j)
    return [c for k, c in enumerate(calls) if k not in drop], [t for k, t in enumerate(texts) if k not in drop]
