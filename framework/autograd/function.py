"""Function: the op contract (forward/backward + ctx), and apply(), which records the graph.

Mirrors torch/autograd/function.py.  ``ctx`` *is* the graph node: ``MyFn.apply`` makes an instance of
``MyFnBackward`` (built-in ops name theirs like torch, e.g. ``MulBackward0``).  apply() does, in order:
check in-place rules, run forward, bump dirty tensors' versions, wrap outputs (views share their
base's version counter), then, if recording, set edges, save tensors and rebase dirty tensors' history.
"""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .. import backend, diagnostics, dtypes
from ..creation import zeros
from . import anomaly as _anomaly
from .bfloat16 import _forward_bfloat16, _forward_bfloat16_inplace, half_dtype, refuse_half_first
from .broadcast import sum_to
from .callsite import user_site
from .copy_slices import CopySlices
from .edges import _NO_EDGE, _NUMBERS, _collect_edges, _edge_positions, computed_outputs
from .grad_mode import _state as _grad_state
from .grad_mode import is_grad_enabled, no_grad
from .node import Node, _sequence
from .saved import SavedTensor
from .saved_attrs import saved_properties
from .saved_hooks import HookedSaved, pack_saved
from .saved_hooks import _active as _hooks_active
from .saved_names import SAVED_NAMES
from ..tensor import Tensor
from .version import VersionCounter
from .view_meta import CreationMeta

_new = object.__new__


class FunctionCtx:
    """What forward() may tell backward(): saved tensors, dirty/non-differentiable outputs."""

    def save_for_backward(self, *tensors) -> None:
        """Keep these (inputs or outputs) for backward; modified in place later -> error on unpack."""
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:  # torch API completeness (forward AD is not supported)
        self._to_save_fwd = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs that forward modified in place (their versions are bumped, history rebased)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that never require grad (e.g. argmax indices)."""
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With True (default) backward receives zeros instead of None for unused outputs."""
        self._materialize = value

    @property
    def saved_arrays(self) -> tuple:
        """saved_tensors as raw arrays (for ``backward_arrays``); the same freed/version checks."""
        saved = self._saved
        if saved is None:
            raise diagnostics.saved_tensor_freed(self)
        out = []
        for s in saved:  # a loop, not a comprehension: no extra frame, no method call per value
            if type(s) is SavedTensor:
                tensor, counter = s[0], s[2]
                if tensor is not None and s[5] is not None and tensor._grad_fn is None:
                    raise diagnostics.saved_tensor_detached(s, self)  # a non-leaf input, detach_()'ed since
                if counter is not None and counter.value != s[3]:
                    raise diagnostics.inplace_modified(s, self)
                out.append(s[1] if tensor is None else tensor._array)
            elif type(s) is HookedSaved:  # kept by a saved_tensors_hooks pack hook: its unpack hook runs now
                out.append(s.unpack_array(self))
            else:
                out.append(s._array if isinstance(s, Tensor) else s)
        return tuple(out)

    @property
    def saved_tensors(self) -> tuple:
        """Unpack what save_for_backward kept; raises if freed or modified in place since."""
        saved = self._saved
        if saved is None:
            raise diagnostics.saved_tensor_freed(self)
        return tuple(s.unpack(self) if isinstance(s, (SavedTensor, HookedSaved)) else s for s in saved)


class BackwardNode(Node, FunctionCtx):
    """The grad_fn of a Function's outputs; calls ``Function.backward(ctx, *grads)``."""

    _forward_cls: type = None  # set per Function subclass
    # class-level defaults, overwritten per instance only when used (node creation is on the hot path)
    _to_save: tuple = ()
    _saved: tuple | None = ()
    _dirty: tuple = ()
    _non_diff: tuple = ()
    _materialize = True
    needs_input_grad: tuple = ()
    _edge_args: tuple | None = None  # positions of forward args that have an edge; None: all of them
    _out_meta: tuple = ()  # (shape, dtype) of each output, to materialize zero grads

    def apply(self, grads: list) -> list:
        if self._materialize and len(grads) > 1 and any(g is None for g in grads):
            # (an output that is not a tensor, or None, has no meta: its gradient stays None, as in torch)
            grads = [zeros(meta[0], dtype=meta[1]) if g is None and meta is not None else g
                     for g, meta in zip(grads, self._out_meta)]
        fwd = self._forward_cls
        n = len(self.needs_input_grad)
        edge_args = self._edge_args
        # (a bfloat16 gradient takes the Tensor formula: its ops promote as torch's, where a 0-d float32 operand
        # does not widen a bfloat16 gradient, and each rounds once, as torch's kernels)
        if fwd.backward_arrays is not None and len(grads) == 1 and not _grad_state.grad and not (
                dtypes.bfloat16_used and half_dtype(grads[0]._array) is not None):
            # no graph of the backward pass is wanted: the op's array formula skips Tensor bookkeeping
            grad = grads[0]._array
            arrays = fwd.backward_arrays(self, grad)
            if len(arrays) != n and (len(arrays) < n or arrays[n] is not None or len(arrays) > n + 1):
                _check_count(self, arrays, n)  # only a call when the count looks wrong
            inference = _grad_state.inference
            # to tell the gradient's own views among the results (through as_strided's wrapper of a restrided one)
            owner = grad if grad.base is None else backend.memory_owner(grad)
            result = []
            for a in (arrays if edge_args is None else [arrays[i] for i in edge_args]):
                if a is None:
                    result.append(None)
                elif a is grad:  # passed through (add, a cast to the same dtype): torch's is the same tensor
                    result.append(grads[0])
                elif getattr(a, "base", None) is not None and backend.memory_owner(a) is owner:
                    # a view of the incoming gradient (sum's expand, a view op's reshape): a view made under
                    # no_grad, as torch's formula makes it (in-place writes to it then get torch's errors)
                    result.append(Tensor._make_view(a, grads[0], None, ()))
                else:  # Tensor._make inlined: one frame less per gradient
                    if type(a) is not np.ndarray and isinstance(a, np.generic):
                        a = np.asarray(a)  # numpy maths on 0-d arrays returns scalars: a view must share an array
                    t = _new(Tensor)
                    t._array, t._rg = a if a.size else backend.empty_as_torch(a), False
                    t._version_counter = None if inference else VersionCounter()
                    result.append(t)
            if fwd.grad_writes:
                _count_writes(result, fwd.grad_writes, grads)
            return result
        out = fwd.backward(self, *grads)
        if not isinstance(out, tuple):
            out = (out,)
        if len(out) != n:
            _check_count(self, out, n)
        result = list(out[:n]) if edge_args is None else [out[i] for i in edge_args]
        if not fwd.array_forward:  # a user Function: check its gradients as torch's engine does
            for k, (g, shape) in enumerate(zip(result, self._input_shapes)):
                if g is not None and not isinstance(g, Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(g).__name__})\n\n"
                                       f"{self.name()}'s backward returned a {type(g).__name__} as gradient {k}: "
                                       "return a Tensor of the input's shape, or None when it needs no gradient.")
                if g is None or tuple(g.shape) == shape:
                    continue
                try:  # torch sums a gradient that is a broadcast of the input's shape back down to it
                    broadcastable = np.broadcast_shapes(shape, tuple(g.shape)) == tuple(g.shape)
                except ValueError:
                    broadcastable = False
                if broadcastable:
                    result[k] = sum_to(g, shape)
                else:
                    raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {k} - got "
                                       f"{list(g.shape)} but expected shape compatible with {list(shape)}")
        if fwd.grad_writes:
            _count_writes(result, fwd.grad_writes, grads)
        return result

    def release(self) -> None:
        # dropping the tuple frees every saved array it alone kept; a node that saved nothing (only Nones: addcmul
        # with no operand but self needing a gradient) stays runnable, as torch's raises only unpacking a freed one
        if self._saved and any(s is not None for s in self._saved):
            self._saved = None


def _check_count(node, out, n: int) -> None:
    """torch's error when backward returns too few gradients, or too many that are not None."""
    if len(out) < n or any(g is not None for g in out[n:]):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {n}, got {len(out)})")


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, named like torch's (``MulBackward0``)."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        # the common case (array maths, one fresh output, no views or in-place) takes a short path
        cls._fast = bool(getattr(cls, "array_forward", False) and not getattr(cls, "inplace", False)
                         and not getattr(cls, "is_view", False))
        node_name = attrs.get("node_name") or f"{name}Backward"
        node_attrs = {"_forward_cls": cls, "__module__": cls.__module__}
        # torch's grad_fn._saved_self, _raw_saved_self, ...: properties of the node class, not a __getattr__ (which
        # would stop CPython from specializing every attribute read on every node)
        key = f"{cls.__module__.removeprefix('framework.')}.{cls.__qualname__}"  # saved_names.py's key
        node_attrs.update(saved_properties(SAVED_NAMES.get(key, ())))
        short = node_name.rsplit("::", 1)[-1]
        if short != node_name:  # torch's C++-only nodes: class NotImplemented, name() torch::autograd::NotImplemented
            node_attrs["name"] = lambda self: node_name
        cls._node_cls = type(short, (BackwardNode,), node_attrs)
        if getattr(cls, "half_kernel", None) or getattr(cls, "low_precision_check", None):
            refuse_half_first(cls)  # only these ops pay for the dtype check
        if cls._fast:  # Op.apply *is* the short path: one Python frame less on every op
            cls.apply = classmethod(_apply_fast)
        elif "apply" not in attrs and getattr(cls, "array_forward", False) and getattr(cls, "is_view", False) \
                and not getattr(cls, "inplace", False) and not getattr(cls, "multi_view", False):
            cls.apply = classmethod(_apply_view)  # likewise for one-output views (t, view, transpose, expand)
        elif "apply" not in attrs:  # an in-place or view subclass of a fast op gets the general apply back
            cls.apply = Function.__dict__["apply"]


class Function(metaclass=_FunctionMeta):
    """Subclass with ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call with ``.apply``.

    Built-in ops set ``array_forward = True``: their forward receives and returns arrays (fast),
    their backward receives and returns Tensors (so ``create_graph=True`` gives higher derivatives).
    User Functions, like torch's, see Tensors in both.
    """

    array_forward = False
    inplace = False   # built-ins: forward modifies arg 0 in place and returns it
    is_view = False   # built-ins: output 0 is a view of arg 0 (shares storage and version counter)
    multi_view = False  # built-ins with is_view: *every* output is a view of arg 0 (unbind, split)
    # built-ins with inplace: forward returns arg 0's new geometry (t_, squeeze_, as_strided_), a view of the same
    # memory that becomes arg 0's array; as torch's set_history for these ops, a view gets no CopySlices
    inplace_view = False
    scalar_edges = False  # built-ins: Python-number args get a (None, 0) edge, as torch's wrapped scalars
    none_edges = False  # built-ins: a None arg (an optional tensor left out) gets a (None, 0) edge, as torch's
    # built-ins: positions of args that are index or mask tensors (torch's non-differentiable inputs). forward gets
    # their arrays as usual; saving one keeps the Tensor, so changing it in place before backward is refused, as
    # torch's saved indices are; and they get no edge
    index_args: tuple | range = ()
    # built-ins with a bfloat16 operand compute in float32 and round once (_forward_bfloat16), except those whose
    # result is exact in bfloat16 anyway and must stay so (a cast or a move: CuPy has no bfloat16 to round on)
    exact_in_bfloat16 = False
    # built-ins whose torch CPU kernel has no float16/bfloat16 version: its name ("lu_cpu"), refused as torch's
    # dispatch does; or the function name of torch's "Low precision dtypes not supported" check ("linalg.inv")
    half_kernel: str | None = None
    low_precision_check: str | None = None
    half_operands: int | None = None  # how many leading forward args are the user's operands (None: all)
    bfloat16_scalars = False  # a Python number operand is rounded to bfloat16 first (torch's fmod/remainder kernels)
    # with a bfloat16 result, a 0-d operand of another float dtype is cast to bfloat16 first (TensorIterator's common
    # dtype), but at these positions, whose kernel reads the 0-d operand's own value (mul and div's second operand)
    bfloat16_reads_scalar: tuple = ()
    checks_overlap = True  # built-in in-place ops: refuse inputs that share part of the written memory
    # built-in in-place ops: refuse to write a tensor whose elements repeat memory (expand), as torch's
    # TensorIterator; its fill kernels (zero_, fill_ of a number, masked_fill_, index_put_) let the write through
    checks_internal_overlap = True
    copy_skips_same_data = False  # copy_: a source that is the target's very memory skips the overlap checks
    # Optional fast path: backward_arrays(ctx, grad_array) -> tuple of arrays, the same maths as backward()
    # on raw arrays. The engine uses it when create_graph=False; backward() stays the reference (and is
    # what create_graph=True differentiates).
    backward_arrays = None
    # torch's backward formula of some ops makes the input's gradient as zeros and writes into it in place
    # (zeros: empty().zero_(); then scatter_/index_put_): that many writes are its _version (a count for the first
    # input, or a tuple, one per input)
    grad_writes: int | tuple = 0

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)\n\n"
                           f"Call `{type(self).__name__}.apply(...)` on the class itself.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Optional (torch 2's style): forward(*args) takes no ctx, and this fills ctx from inputs and output."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward on ``args`` and, if any input requires grad, record the op (views, in-place).

        Keyword arguments are bound to forward's parameters first, as torch does, so that they count as inputs
        (needs_input_grad, one gradient each); with a setup_context, left-out defaults count too.
        """
        separate_ctx = cls.setup_context is not Function.setup_context
        if kwargs or separate_ctx:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs) if separate_ctx else \
                inspect.signature(cls.forward).bind(None, *args, **kwargs)  # None stands for ctx
            if separate_ctx:
                bound.apply_defaults()
            args, kwargs = bound.args if separate_ctx else bound.args[1:], bound.kwargs
        needs = tuple([isinstance(a, Tensor) and (a._rg or (a._base is not None and a.requires_grad))
                       for a in args])
        record = True in needs and is_grad_enabled()
        if cls.inplace:
            if args[0]._version_counter is None and not _grad_state.inference:
                raise diagnostics.inference_tensor_inplace(args[0])
            if is_grad_enabled():
                diagnostics.check_inplace(args[0], True in needs)
        ctx = cls._node_cls()
        ctx.needs_input_grad = needs
        # torch collects the edges before running the op: an in-place write must not change them (nor make an
        # input view's history unreadable) before they are taken
        edges = _collect_edges(cls, args, needs) if record else None
        if record and cls.array_forward:
            ctx.needs_input_grad = computed_outputs(needs, args, edges)
        if cls.inplace:  # the kernel's overlap checks come after the edges (an operand's view error first)
            target = args[0]._array
            # torch's copy_ of a tensor's own memory (same start, strides, shape) returns before any overlap check
            same = cls.copy_skips_same_data and isinstance(args[1], Tensor) and \
                backend.same_data(target, args[1]._array)
            if cls.checks_internal_overlap and not same and backend.repeats_memory(target):
                raise diagnostics.overlapping_write()
            if len(args) > 1 and cls.checks_overlap:
                _check_partial_overlap(target, args)
        if cls.array_forward:
            arrays = [a._array if isinstance(a, Tensor) else a for a in args]
            if dtypes.bfloat16_used and cls.inplace and not cls.inplace_view and not cls.exact_in_bfloat16 and \
                    half_dtype(arrays[0]) is not None:
                out = _forward_bfloat16_inplace(cls, ctx, arrays)
            else:
                out = cls.forward(ctx, *arrays)
        else:
            with no_grad():
                out = cls.forward(*args, **kwargs) if separate_ctx else cls.forward(ctx, *args, **kwargs)
                if separate_ctx:
                    cls.setup_context(ctx, args, out)
            _check_user_ctx(ctx, args, record)
        if cls.inplace_view:
            args[0]._array = out
        single = not isinstance(out, tuple)
        outs = (out,) if single else out

        dirty = _dirty_tensors(ctx, args, cls)
        if dirty:  # torch bumps in inference_mode too; only inference tensors (no counter) have no version
            for t in dirty:
                if t._version_counter is not None:
                    t._version_counter.bump(cls._node_cls.__name__ if cls.array_forward else cls.__name__)
        results = _wrap_outputs(cls, ctx, args, outs, dirty, record)
        if record:
            _record(cls, ctx, args, results, dirty, 3, edges)
        return results[0] if single else tuple(results)


def _check_user_ctx(ctx, args, record: bool) -> None:
    """torch's checks on what a user Function's forward told ctx: only tensors (or None) saved, and no leaf
    that requires grad marked dirty while the op is recorded."""
    for i, s in enumerate(ctx._to_save):
        if s is not None and not isinstance(s, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(s).__name__}\n\nsave_for_backward keeps tensors (and None) only: keep "
                            f"other values as attributes of ctx (`ctx.k = k`).")
    if record:
        for d in ctx._dirty:
            if isinstance(d, Tensor) and d.requires_grad and d.grad_fn is None and d._base is None:
                raise diagnostics.AutogradError(
                    "a leaf Variable that requires grad has been used in an in-place operation.",
                    f"What happened: {type(ctx).__name__[:-len('Backward')]}.forward modified a leaf tensor that "
                    f"requires grad ({tuple(d.shape)}) and marked it dirty.\n"
                    + diagnostics._fixes("pass a copy (`x.clone()`) to the Function, or modify the leaf under "
                                         "`with framework.no_grad():` outside it."))


class OriginalSelf:
    """What an in-place op's forward saves when backward needs the input's values from before the write
    (torch's ``original_self = self.clone()``): a copy of the array, given on unpack the input's history from
    before the write, so that create_graph=True differentiates through it too."""

    __slots__ = ("array",)

    def __init__(self, array) -> None:
        self.array = array


def _count_writes(results: list, writes, incoming: list) -> None:
    """The inputs' gradients carry the _version of torch's in-place writes into them (grad_writes: a count for
    the first input, or one per input); a gradient passed through as it came is not one of them."""
    for grad, n in zip(results, writes if isinstance(writes, tuple) else (writes,)):
        if n and grad is not None and grad._version_counter is not None and not any(grad is g for g in incoming):
            grad._version_counter.value += n


def check_no_partial_overlap(out: Tensor, *inputs) -> None:
    """For in-place ops built from other ops (addcmul_, lerp_): torch's overlap check on their operands."""
    _check_partial_overlap(out._array, (out,) + inputs)


def _check_partial_overlap(target, args) -> None:
    """torch's assert_no_partial_overlap: an input that shares only part of the written-to memory is refused
    (the op would read elements it has already overwritten); the very same memory (``a.add_(a)``) is fine."""
    root = backend.memory_owner(target)
    for a in args[1:]:
        if isinstance(a, Tensor):
            arr = a._array
            if arr is not target and backend.memory_owner(arr) is root and \
                    backend.memory_overlap(target, arr) == "partial":
                raise diagnostics.partial_overlap()


def _apply_fast(cls, *args):
    """Op.apply for array ops that neither view nor modify their inputs (most ops), in one pass over args."""
    grad_mode = _grad_state.grad  # the op's one grad-mode read (a thread-local: read once, kept in a local)
    ctx = _new(cls._node_cls)  # no __init__ frame: the node takes its sequence number only if recorded
    arrays, needs, edges = [], [], []
    requires = False  # some input requires grad: the op is recorded, even if no input has an edge
    all_edged = True  # every arg has an edge (the usual case): backward then needs no index list
    index_args = cls.index_args
    for a in args:  # one loop for forward's arrays, needs_input_grad and the edges
        if isinstance(a, Tensor):
            arrays.append(a._array)
            if a._rg or (a._base is not None and a.requires_grad):
                if grad_mode:  # fast ops never change their inputs' history, so the edge can be taken now
                    fn = a._grad_fn
                    edge = (fn, a._output_nr) if fn is not None and a._base is None else a._edge()
                    edges.append(edge)
                    requires = True
                    needs.append(edge[0] is not None)  # torch's should_compute_output (see computed_outputs)
                else:
                    needs.append(True)
            else:
                needs.append(False)
                if index_args and len(needs) - 1 in index_args:
                    all_edged = False  # an index tensor: no edge
                else:
                    edges.append(_NO_EDGE)
        else:
            arrays.append(a)
            needs.append(False)
            if (cls.scalar_edges and isinstance(a, _NUMBERS)) or (a is None and cls.none_edges):
                edges.append(_NO_EDGE)
            else:
                all_edged = False
    ctx.needs_input_grad = needs = tuple(needs)
    record = requires
    out = cls.forward(ctx, *arrays) if not dtypes.bfloat16_used else _forward_bfloat16(cls, ctx, arrays)
    if type(out) is tuple or ctx._non_diff:
        results = _wrap_outputs(cls, ctx, args, out if type(out) is tuple else (out,), (), record)
        if record:
            _record(cls, ctx, args, results, (), 3)
        return tuple(results) if type(out) is tuple else results[0]
    raw = out  # what forward returned: a numpy scalar for 0-d results, which forward may have saved
    if isinstance(out, np.generic):  # numpy returns scalars from 1-D dot, full reductions and 0-d ufuncs
        out = np.asarray(out)
    t = _new(Tensor)  # Tensor._make inlined: one frame less on every op
    t._array = out if out.size else backend.empty_as_torch(out)
    t._rg = False
    t._version_counter = None if _grad_state.inference else VersionCounter()
    if record and out.dtype.kind in "fV":
        ctx._seq = next(_sequence)
        ctx._grad_dtypes = (out.dtype,)
        ctx.next_functions = tuple(edges)
        if not all_edged:
            ctx._edge_args = _edge_positions(cls, args)
        ctx._site = user_site(2)  # frames to skip: user_site, _apply_fast (which is Op.apply)
        if _anomaly._state.enabled:  # anomaly mode off: this one attribute read
            ctx._anomaly_stack = _anomaly.record_stack()
        t._grad_fn = ctx
        t._rg = True
        if ctx._to_save:
            saved = []
            for i, s in enumerate(ctx._to_save):  # the output and None are resolved here, without a call
                saved.append(None if s is None else SavedTensor.of_output(t) if (s is out or s is raw) else
                             _resolve_saved(s, args, (t,), None, ctx._to_save, i))
            # saved_tensors_hooks: the one read this costs an op that saves (pack_saved checks this thread's stack)
            ctx._saved = tuple(saved) if not _hooks_active.count else pack_saved(tuple(saved), args, (t,))
            ctx._to_save = ()
    return t


def _apply_view(cls, src, *rest):
    """Op.apply for array ops whose one output is a view of their first argument (t, view, transpose, ...).

    The general apply's steps for this case only (no in-place checks, no user-Function branches): a Linear's
    ``weight.t()`` runs on every call, so this saves about half of a view op's bookkeeping.
    """
    args = (src,) + rest
    needs = tuple([isinstance(a, Tensor) and (a._rg or (a._base is not None and a.requires_grad)) for a in args])
    ctx = _new(cls._node_cls)
    ctx.needs_input_grad = needs
    record = True in needs and _grad_state.grad
    # torch takes the edges before the op runs: an input whose history cannot be read (a no_grad view of a base
    # modified since) raises that error before the op's own checks (an index out of range)
    edges = (((0,), (src._edge(),)) if not rest else _collect_edges(cls, args, needs)) if record else None
    if record:
        ctx.needs_input_grad = computed_outputs(needs, args, edges)
    out = cls.forward(ctx, src._array, *[a._array if isinstance(a, Tensor) else a for a in rest])
    if type(out) is tuple or ctx._non_diff or ctx._to_save:  # not a plain one-output view: the general steps
        results = _wrap_outputs(cls, ctx, args, out if type(out) is tuple else (out,), (), record)
        if record:
            _record(cls, ctx, args, results, (), 3, edges)
        return tuple(results) if type(out) is tuple else results[0]
    if isinstance(out, np.generic):  # numpy returns scalars from 0-d indexing: a view must share an array
        out = np.asarray(out)
    t = Tensor._make_view(out, src, cls, rest)
    if record and out.dtype.kind in "fV":  # recorded
        ctx._seq = next(_sequence)
        ctx._edge_args, ctx.next_functions = edges
        ctx._site = user_site(2)  # frames to skip: user_site, _apply_view (which is Op.apply)
        if _anomaly._state.enabled:
            ctx._anomaly_stack = _anomaly.record_stack()
        ctx._grad_dtypes = (out.dtype,)
        t._set_history(ctx, 0)
    return t


def _dirty_tensors(ctx, args, cls) -> tuple:
    if cls.inplace:
        return (args[0],)
    if not ctx._dirty:
        return ()
    # user Functions pass tensors; array forwards pass arrays: map them back to the input tensors
    found = []
    for d in ctx._dirty:
        for a in args:
            if isinstance(a, Tensor) and (a is d or a._array is d):
                found.append(a)
                break
    return tuple(found)


def _wrap_outputs(cls, ctx, args, outs, dirty, record) -> list:
    """Turn forward's outputs into Tensors: dirty inputs come back as the same objects, views share."""
    non_diff = ctx._non_diff
    results = []
    for i, o in enumerate(outs):
        if o is None or (not cls.array_forward and not isinstance(o, Tensor)):
            results.append(o)  # None, or a user Function's non-tensor output (a number, a string): as it is
            continue
        arr = o._array if isinstance(o, Tensor) else o
        if isinstance(arr, np.generic):  # numpy returns scalars from 1-D dot and full reductions
            arr = np.asarray(arr)
        t = None
        for d in dirty:
            if d._array is arr or d is o:
                t = d
                break
        if t is None:
            if cls.is_view and (i == 0 or cls.multi_view):
                t = Tensor._make_view(arr, args[0], cls, args[1:], cls.multi_view)
            elif isinstance(o, Tensor) and not cls.array_forward and o._base is not None and \
                    any(o._base is a or o._base is a._base for a in args if isinstance(a, Tensor)):
                t = o  # a user Function returning a view of an input
                if record:  # torch: its history is the custom backward, so in-place changes to it are refused
                    t._creation_meta = CreationMeta.IN_CUSTOM_FUNCTION
            elif record and not cls.array_forward and any(o is a for a in args):
                t = Tensor._make(arr, o._version_counter)  # an input returned as-is: torch makes it a view of it
                t._base = o if o._base is None else o._base
                t._view_version = o._version_counter.value if o._version_counter is not None else 0
                t._creation_meta = CreationMeta.IN_CUSTOM_FUNCTION
            else:
                t = Tensor._make(arr)
        differentiable = record and t._array.dtype.kind in "fV" and not any(
            nd is o or nd is arr or (isinstance(nd, Tensor) and nd._array is arr) for nd in non_diff)
        if differentiable:
            t._output_nr = i
            t._pending_diff = True
        results.append(t)
    return results


def _record(cls, ctx, args, results, dirty, site_depth: int, edges: tuple | None = None) -> None:
    """Connect ctx into the graph: edges to inputs, saved tensors, outputs' grad_fn, CopySlices.

    site_depth: frames between user_site() and the caller of Op.apply (user_site, _record, apply), so the
    call-site walk starts at the first frame that may be the user's.
    edges: from _collect_edges, taken before forward ran (None: take them now).
    """
    ctx._seq = next(_sequence)
    edge_args, ctx.next_functions = edges if edges is not None else _collect_edges(cls, args, ctx.needs_input_grad)
    ctx._edge_args = edge_args
    if not cls.array_forward:
        ctx._input_shapes = tuple(tuple(args[i].shape) if isinstance(args[i], Tensor) else () for i in edge_args)
    ctx._site = user_site(site_depth)
    if _anomaly._state.enabled:
        ctx._anomaly_stack = _anomaly.record_stack()
    ctx._grad_dtypes = tuple([t._array.dtype if isinstance(t, Tensor) else None for t in results])
    if len(results) > 1:
        # (shape, numpy dtype) of each output, to materialize zero gradients for unused outputs
        ctx._out_meta = tuple((t._array.shape, t._array.dtype) if isinstance(t, Tensor) else None
                              for t in results)
        ctx._n_outputs = len(results)

    # Outputs first: a dirty view's in-place op is wrapped in CopySlices on its base.
    for t in results:
        if not isinstance(t, Tensor) or not t._pending_diff:
            continue
        t._pending_diff = False
        if t._base is not None and t._view_fn is not None and any(t is d for d in dirty) and not cls.inplace_view:
            base = t._base
            cs = CopySlices(base, t._view_fn_now(), ctx, base._edge())
            base._set_history(cs, 0)
            t._view_version = -1  # the view's own grad_fn is regenerated from the base on access
            t._rg = True
        else:
            t._set_history(ctx, t._output_nr)

    if ctx._to_save:
        # a built-in in-place op saves its other inputs as torch does, *before* its write: one that shares the
        # written tensor's memory (b.mul_(b)) is then stale, and backward refuses it instead of using new values
        written = args[0]._version_counter if cls.inplace else None
        # the written input's edge, taken before the write: the history of its values from before it
        before = ctx.next_functions[0] if cls.inplace and edge_args and edge_args[0] == 0 else _NO_EDGE
        ctx._saved = tuple([SavedTensor.of_original(s.array, before) if type(s) is OriginalSelf
                            else _resolve_saved(s, args, results, written, ctx._to_save, i)
                            for i, s in enumerate(ctx._to_save)])
        if _hooks_active.count:  # saved_tensors_hooks on (in some thread): the node keeps what pack_hook returns
            ctx._saved = pack_saved(ctx._saved, args, results)
        ctx._to_save = ()


def _resolve_saved(s, args, results, written=None, to_save=(), i: int = 0):
    """Map something forward saved to a SavedTensor (an input or output tensor) or keep it raw.

    written: the version counter an in-place built-in just bumped; its other inputs are saved as they were
    before the write (torch saves them first), the written tensor itself as the output it now is.
    to_save[:i]: what forward saved before ``s``: when several inputs hold s's array (atan2(x.detach(), x)),
    the n-th save of that array is the n-th of them, so a saved input keeps its own requires_grad.
    """
    if s is None:
        return None
    arr = s._array if isinstance(s, Tensor) else s  # a user Function's output is re-wrapped: match its array
    if written is not None:
        for a in args[1:]:
            if isinstance(a, Tensor) and (a is s or a._array is arr):
                return SavedTensor.of_input(a, before_write=a._version_counter is written)
    for t in results:
        if isinstance(t, Tensor) and (t is s or t._array is arr):
            return SavedTensor.of_output(t)
    for k, a in enumerate(args):
        if isinstance(a, Tensor) and (a is s or a._array is s):
            same = [b for b in args[k:] if isinstance(b, Tensor) and (b is s or b._array is s)]
            if len(same) > 1:  # rare: inputs sharing one array, told apart by the order they were saved in
                a = same[min(sum(e is s for e in to_save[:i]), len(same) - 1)]
            return SavedTensor.of_input(a)
    if isinstance(s, Tensor):  # an intermediate tensor a user Function made
        return SavedTensor.of_input(s)
    return Tensor._make(s) if hasattr(s, "shape") else s


class _DelayedError(Function):
    """torch's DelayedError: identity forward, whose backward raises (a once_differentiable backward's outputs)."""

    node_name = "torch::autograd::Error"  # torch's C++ node name for this node, shown by grad_fn.name()

    @staticmethod
    def forward(ctx, *xs):
        return tuple(x.clone() for x in xs) if len(xs) > 1 else xs[0].clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable\n\n"
                           "This gradient came out of a custom Function's backward decorated with "
                           "@once_differentiable, which builds no graph: it cannot be differentiated again. "
                           "Write its backward with differentiable ops (and drop the decorator) for "
                           "higher-order gradients.")


def once_differentiable(fn):
    """Decorate a Function's backward that is not itself differentiable: it runs under no_grad, and its results
    (when the incoming gradients require grad) raise if differentiated again, as torch's."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        present = [o for o in outs if o is not None]
        if not present:
            return outputs
        fakes = []
        for o in present:  # torch: each result becomes a fresh leaf that requires grad, behind the error node
            f = o.detach()
            f.requires_grad_(True)
            fakes.append(f)
        errs = _DelayedError.apply(*fakes)
        errs = list(errs) if isinstance(errs, tuple) else [errs]
        res = [None if o is None else errs.pop(0) for o in outs]
        return tuple(res) if isinstance(outputs, tuple) else res[0]
    return wrapper
