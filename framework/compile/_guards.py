"""What a compiled step depends on: the modules and optimizers it reaches, and the guard key built from them.

A recording is valid only while the step would issue the same array calls on the same buffers: same argument
shapes/dtypes/devices/requires_grad, same grad mode, same ``training`` flags, the same parameter and optimizer-state
arrays (identity: the optimizer re-flattening or ``load_state_dict`` rebinds them), same param groups.
"""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import is_grad_enabled, is_inference_mode_enabled
from ..nn.modules.module import Module
from ..optim._flat import FlatBucket
from ..optim.optimizer import Optimizer
from ..tensor import Tensor
from ._traced import TracedArray

_SCALARS = (bool, int, float, str, type(None))
# optimizers whose per-step scalars (lr, Adam's step) are dynamic_scalar inputs: lr is read at every replay
_DYNAMIC_LR = ("Adam", "AdamW", "SGD")


def _candidates(fn, args, kwargs):
    """The objects fn can reach directly: its arguments, closure cells, the globals it names, a bound method's self."""
    yield from args
    yield from kwargs.values()
    self = getattr(fn, "__self__", None)
    func = getattr(fn, "__func__", fn)
    if self is not None:
        yield self
        yield from vars(self).values() if hasattr(self, "__dict__") else ()
    if isinstance(fn, Module):
        yield fn
    code = getattr(func, "__code__", None)
    for cell in getattr(func, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue
    if code is not None:
        glb = getattr(func, "__globals__", {})
        for name in code.co_names:
            if name in glb:
                yield glb[name]


def discover(fn, args, kwargs) -> tuple:
    """(modules, optimizers, loose tensors) the step can reach, each listed once, in a stable order.

    Loose tensors: Tensors in fn's closure, the globals it names, a bound method's self, or the arguments'
    containers (``x = framework.randn(3, requires_grad=True)`` used by a step: its updates must be recorded)."""
    modules, optims, tensors, seen = [], [], [], set()

    def visit(obj, depth: int) -> None:
        if id(obj) in seen:
            return
        if isinstance(obj, Module):
            seen.add(id(obj))
            for m in obj.modules():
                if id(m) not in seen or m is obj:
                    seen.add(id(m))
                    modules.append(m)
        elif isinstance(obj, Optimizer):
            seen.add(id(obj))
            optims.append(obj)
        elif isinstance(obj, Tensor):
            seen.add(id(obj))
            tensors.append(obj)
        elif depth < 2 and type(obj) in (list, tuple):
            seen.add(id(obj))
            for x in obj:
                visit(x, depth + 1)
        elif depth < 2 and type(obj) is dict:
            seen.add(id(obj))
            for x in obj.values():
                visit(x, depth + 1)

    for t in _arg_tensors((args, kwargs), []):
        seen.add(id(t))  # arguments are inputs (copied in at each replay), not state
    for c in _candidates(fn, args, kwargs):
        visit(c, 0)
    return modules, optims, tensors


def _arg_tensors(x, out: list) -> list:
    if isinstance(x, Tensor):
        out.append(x)
    elif type(x) in (list, tuple):
        for i in x:
            _arg_tensors(i, out)
    elif type(x) is dict:
        for i in x.values():
            _arg_tensors(i, out)
    return out


def _arg_key(x):
    if isinstance(x, Tensor):
        a = x._array
        return ("T", a.shape, a.dtype.str, type(a).__module__, x.requires_grad)
    if type(x) in (list, tuple):
        return (type(x).__name__,) + tuple(_arg_key(i) for i in x)
    if type(x) is dict:
        return ("d",) + tuple((k, _arg_key(v)) for k, v in x.items())
    if isinstance(x, _SCALARS):
        return x  # a Python value changes what the step computes: part of the key
    return ("id", id(x))


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def guard_key(args, kwargs, modules, optims, tensors) -> tuple:
    """Everything a recording assumes, as one hashable value (a miss means: capture again)."""
    mods = tuple((id(m), m.training) for m in modules)
    params = tuple((id(p), id(p._array), p._grad is None) for m in modules for p in m._parameters.values()
                   if p is not None)
    bufs = tuple(id(b._array) for m in modules for b in m._buffers.values() if b is not None)
    opts = []
    for opt in optims:
        dynamic = type(opt).__name__ in _DYNAMIC_LR
        for g in opt.param_groups:
            hyper = tuple((k, _hashable(v)) for k, v in g.items() if k != "params" and (k != "lr" or not dynamic))
            ids = tuple(id(p) for p in g["params"])
            state = tuple(tuple((k, id(v._array)) for k, v in opt.state[p].items() if isinstance(v, Tensor))
                          if p in opt.state else () for p in g["params"])
            grads = tuple(p._grad is not None for p in g["params"])
            opts.append((id(opt), ids, hyper, state, grads))
    loose = tuple((id(t._array), t._rg, t._grad is None) for t in tensors)
    return (_arg_key(args), _arg_key(kwargs), is_grad_enabled(), is_inference_mode_enabled(), mods, params, bufs,
            tuple(opts), loose)


def assumed(modules, optims, tensors) -> list:
    """(tensor, array) for each array the guard key names by identity.  A recording holds these arrays, so no
    other array can take their ids while it is cached, and it is stale for good once a tensor holds another one
    (the optimizer flattened its parameters into one buffer, ``load_state_dict`` rebound them)."""
    pairs = [(p, p._array) for m in modules for p in m._parameters.values() if p is not None]
    pairs += [(b, b._array) for m in modules for b in m._buffers.values() if b is not None]
    for opt in optims:
        for g in opt.param_groups:
            pairs += [(v, v._array) for p in g["params"] if p in opt.state
                      for v in opt.state[p].values() if isinstance(v, Tensor)]
    return pairs + [(t, t._array) for t in tensors]


class Adopter:
    """Swaps every plain array the step's state holds for a TracedArray view of it (identity kept: one traced
    object per plain object, so ``p._array is bucket.views[i]`` still holds)."""

    def __init__(self) -> None:
        self.memo: dict = {}

    def array(self, a):
        if type(a) is not np.ndarray:
            return a  # already traced, a scalar, or a GPU array
        t = self.memo.get(id(a))
        if t is None:
            t = self.memo[id(a)] = (a, a.view(TracedArray))
        return t[1]

    def tensor(self, t) -> None:
        if t is None:
            return
        t._array = self.array(t._array)
        if t._grad is not None:
            self.tensor(t._grad)

    def container(self, c) -> None:
        if type(c) is list:
            for i, x in enumerate(c):
                if isinstance(x, np.ndarray):
                    c[i] = self.array(x)
                else:
                    self.any(x)
        elif type(c) is dict:
            for k, x in c.items():
                if isinstance(x, np.ndarray):
                    c[k] = self.array(x)
                else:
                    self.any(x)
        elif type(c) is tuple:
            for x in c:
                self.any(x)

    def bucket(self, b) -> None:
        for name in ("param", "grad", "steps"):
            setattr(b, name, self.array(getattr(b, name)))
        for name in ("views", "grad_views", "state", "state_views", "state_tensors", "step_tensors", "scratches"):
            v = getattr(b, name)
            if v is not None:
                self.container(v)

    def any(self, x) -> None:
        if isinstance(x, Tensor):
            self.tensor(x)
        elif isinstance(x, FlatBucket):
            self.bucket(x)
        elif type(x) in (list, dict, tuple):
            self.container(x)

    def adopt(self, modules, optims, tensors=()) -> bool:
        """Swap the state's plain arrays; True when any was swapped."""
        for t in tensors:
            self.tensor(t)
        for m in modules:
            for p in m._parameters.values():
                self.tensor(p)
            for b in m._buffers.values():
                self.tensor(b)
        for opt in optims:
            for g in opt.param_groups:
                for p in g["params"]:
                    self.tensor(p)
            for st in opt.state.values():
                self.container(st)
            self.container(getattr(opt, "_flat", {}))
        return bool(self.memo)
