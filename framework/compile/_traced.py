"""TracedArray: the numpy array subclass a captured step computes with, so every array call reaches the recorder.

The ops write ``a + b``, ``a.sum(axis=0)``, ``a[idx] = v`` on raw arrays, not only ``xp.add``: a stand-in module
alone would miss most of the work.  A subclass sees all of it through numpy's own override protocols
(``__array_ufunc__`` for operators, ufuncs and reductions, ``__array_function__`` for ``np.*`` functions) plus a
few overridden methods (copies, fancy indexing, item writes, host reads).  The hooks are installed on the class
only while a capture runs; outside it a TracedArray behaves (and dispatches) like a plain ndarray.
"""
from __future__ import annotations

import numpy as np

from .. import backend

_plain_ufunc = np.ndarray.__array_ufunc__
_plain_function = np.ndarray.__array_function__


class TracedArray(np.ndarray):
    """A view of a recording's buffer; while capturing, each call on it is logged by ``backend._recorder``."""


def _rec():
    return backend._recorder


def _ufunc_hook(self, ufunc, method, *inputs, **kwargs):
    return _rec().ufunc(ufunc, method, inputs, kwargs)


def _function_hook(self, func, types, args, kwargs):
    return _rec().function(func, args, kwargs)


# methods that may allocate new data (recorded when their result does not share memory with the array)
_COPYING = ("copy", "astype", "reshape", "ravel", "flatten", "dot", "take", "repeat", "argmax", "argmin",
            "sort", "argsort", "squeeze", "transpose", "swapaxes", "__deepcopy__", "__copy__")
# methods that read values into Python: graph breaks
_HOST_READS = {"item": ".item()", "tolist": ".tolist()", "__float__": "float(tensor)", "__int__": "int(tensor)",
               "__bool__": "bool(tensor)", "__index__": "tensor as an index", "__repr__": "printing a tensor",
               "__str__": "printing a tensor", "nonzero": "nonzero() (data-dependent shape)"}


def _method(name):
    plain = getattr(np.ndarray, name)

    def call(self, *args, **kwargs):
        return _rec().method(plain, name, self, args, kwargs)
    call.__name__ = name
    return call


def _host(name, what):
    plain = getattr(np.ndarray, name)

    def call(self, *args, **kwargs):
        _rec().host_read(self, what)
        return plain(self.view(np.ndarray), *args, **kwargs)
    call.__name__ = name
    return call


def _getitem(self, index):
    return _rec().getitem(self, index)


def _setitem(self, index, value):
    _rec().setitem(self, index, value)


def _fill(self, value):
    _rec().setitem(self, Ellipsis, value)


_HOOKS = {"__array_ufunc__": _ufunc_hook, "__array_function__": _function_hook, "__getitem__": _getitem,
          "__setitem__": _setitem, "fill": _fill}
_HOOKS.update({n: _method(n) for n in _COPYING})
_HOOKS.update({n: _host(n, w) for n, w in _HOST_READS.items()})


def install() -> None:
    """Route TracedArray's calls to the recorder (capture starts)."""
    for name, fn in _HOOKS.items():
        setattr(TracedArray, name, fn)


def uninstall() -> None:
    """TracedArray is a plain ndarray again (capture ended)."""
    for name in _HOOKS:
        if name in TracedArray.__dict__:
            delattr(TracedArray, name)
