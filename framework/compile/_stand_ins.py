"""The stand-ins a capture hands out: numpy's module (``xp``) and the random generator, both logging to the recorder.

They look the recorder up at call time (``backend._recorder``): code may keep the module past the capture
(``FlatBucket.xp``), and then it behaves as plain numpy.
"""
from __future__ import annotations

import numpy as np

from .. import backend
from ._traced import TracedArray

# creation functions of the stand-in module: their result becomes a buffer the replay refills (empty: not needed)
_CREATION = {"zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "array", "arange", "eye",
             "identity", "linspace", "empty", "empty_like", "asarray", "ascontiguousarray", "asanyarray"}


class RecordingNumpy:
    """The numpy stand-in get_array_module hands out while capturing: creation functions make traced buffers.

    One shared instance: code that keeps it past the capture (FlatBucket.xp) gets plain numpy behaviour."""

    def __getattr__(self, name: str):
        if name == "lib":
            self.lib = _RecordingLib()
            return self.lib
        attr = getattr(np, name)
        if name in _CREATION:
            attr = _creator(attr, name)
        setattr(self, name, attr)  # cached: the next lookup is an attribute read
        return attr


def _as_strided(x, *args, **kwargs):
    """np.lib.stride_tricks.as_strided, keeping a traced array traced (numpy's returns a plain view)."""
    rec = backend._recorder
    if rec is None or not isinstance(x, TracedArray):
        return np.lib.stride_tricks.as_strided(x, *args, **kwargs)
    return np.lib.stride_tricks.as_strided(rec.plain(x), *args, **kwargs).view(TracedArray)


class _RecordingLib:
    """``xp.lib`` of the stand-in: stride tricks give traced views (a window view is memory, not a call)."""

    def __init__(self) -> None:
        self.stride_tricks = self

    as_strided = staticmethod(_as_strided)

    def __getattr__(self, name: str):
        return getattr(np.lib.stride_tricks, name, None) or getattr(np.lib, name)


def _creator(fn, name: str):
    # the recorder is looked up at call time: code may keep this module (FlatBucket.xp) past the capture
    def create(*args, **kwargs):
        rec = backend._recorder
        return fn(*args, **kwargs) if rec is None else rec.create(fn, name, args, kwargs)
    create.__name__ = name
    return create


RECORDING_NUMPY = RecordingNumpy()


class RecordingGenerator:
    """Stands in for the numpy Generator: each draw is logged, and replays draw again (new numbers, same order)."""

    def __init__(self, rec, gen) -> None:
        self._rec, self._gen = rec, gen

    def __getattr__(self, name: str):
        def draw(*args, **kwargs):
            return self._rec.draw(self._gen, name, args, kwargs)
        return draw
