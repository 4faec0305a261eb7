"""framework.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint.

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` without keeping its intermediate tensors and runs it again
in backward to get them back, trading compute for memory:

- use_reentrant=True: ``CheckpointFunction``, an autograd.Function whose forward runs ``fn`` under no_grad and whose
  backward reruns it with grad and calls backward on the rerun (a backward inside backward);
- use_reentrant=False: ``fn`` runs under saved_tensors_hooks that keep a small holder instead of each saved tensor;
  the first unpack in a backward reruns ``fn`` under hooks that fill the holders, stopping as soon as all are filled.

Both restore the random generator's state of the forward for the rerun (preserve_rng_state), so that dropout draws
the same masks.  The state is framework.random's generator (every op draws from it, then moves to its device).
"""
from __future__ import annotations

import contextlib
import threading
import uuid
import warnings
import weakref
from collections import defaultdict
from typing import Any, Callable, ContextManager, Iterable

from .. import amp, backend, random
from ..amp import autocast_mode
from ..autograd import Function, engine
from ..autograd import backward as _autograd_backward
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.saved import SavedTensor
from ..autograd.saved_hooks import _state as _hooks_state
from ..autograd.saved_hooks import HookedSaved, pack_saved
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "noop_context_fn", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled",
           "GraphExecGroup"]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled: bool | None = None
_enable_checkpoint_early_stop: bool | None = None


class CheckpointError(RuntimeError):
    """What the non-reentrant checkpoint raises when the recomputation saved other tensors than the forward."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Override every checkpoint's ``debug`` flag within this context (None: defer to each call's)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    try:
        _checkpoint_debug_enabled = enabled
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether non-reentrant checkpoints made within this context stop recomputing once all saved tensors are back."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    try:
        _enable_checkpoint_early_stop = enable
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor detached, keeping its requires_grad (the reentrant rerun's fresh leaves)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


@contextlib.contextmanager
def _rng_state(state: dict | None):
    """Run the block with the generator in ``state`` (None: as it is), then put the surrounding state back."""
    if state is None:
        yield
        return
    outer = random.get_rng_state()
    random.set_rng_state(state)
    try:
        yield
    finally:
        random.set_rng_state(outer)


def _break_capture() -> None:
    backend.graph_break("torch.utils.checkpoint (its backward reruns the function with the forward's random state "
                        "restored, which a replay of recorded array calls cannot repeat)")


def _infer_device_type(*args) -> str:
    """The device type whose autocast state the rerun restores: 'cuda' when a tensor argument is on the GPU."""
    return "cuda" if any(isinstance(a, Tensor) and a.device != "cpu" for a in args) else "cpu"


def _autocast_kwargs(device_type: str) -> dict:
    """The autocast state of a device type now (torch's _get_autocast_kwargs), to rerun the function under."""
    enabled = autocast_mode.is_autocast_enabled(device_type)
    return {"enabled": enabled, "dtype": autocast_mode.get_autocast_dtype(device_type) if enabled else None,
            "cache_enabled": autocast_mode.is_autocast_cache_enabled()}


def _autocast_as_in_forward(device_type: str, device_kwargs: dict, cpu_kwargs: dict) -> contextlib.ExitStack:
    """The forward's autocast state for the rerun: its device type's, then the CPU's (as torch enters them)."""
    stack = contextlib.ExitStack()
    if device_type != "cpu":
        stack.enter_context(amp.autocast(device_type, **device_kwargs))
    stack.enter_context(amp.autocast("cpu", **cpu_kwargs))
    return stack


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad; backward reruns the function and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.device_type = _infer_device_type(*args)
        ctx.device_autocast_kwargs = _autocast_kwargs(ctx.device_type)
        ctx.cpu_autocast_kwargs = _autocast_kwargs("cpu")
        ctx.fwd_cpu_state = random.get_rng_state() if preserve_rng_state else None
        # non-tensor inputs are kept in ctx, tensors saved (None placeholders, filled in backward)
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not engine.is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        tensors = ctx.saved_tensors
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = tensors[i]
        with _rng_state(ctx.fwd_cpu_state):
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad(), _autocast_as_in_forward(ctx.device_type, ctx.device_autocast_kwargs,
                                                        ctx.cpu_autocast_kwargs):
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        # backward through the rerun, from the outputs that require grad only
        outputs_with_grad, args_with_grad = [], []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[ContextManager, ContextManager]] = noop_context_fn,
               determinism_check: str = _DEFAULT_DETERMINISM_MODE, debug: bool = False, early_stop: bool = True,
               **kwargs):
    """``function(*args, **kwargs)``, keeping only its inputs for backward, which reruns it to get the rest back.

    preserve_rng_state=True (a keyword): the rerun draws the same random numbers as the forward did.
    Under framework.compile a checkpointed step breaks the capture (it runs eagerly, with one warning).
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        _break_capture()
        return CheckpointFunction.apply(function, preserve, *args)
    gen = _checkpoint_without_reentrant_generator(function, preserve, context_fn, determinism_check, debug,
                                                  early_stop, *args, **kwargs)
    next(gen)  # before the forward: hooks on, inputs saved
    try:
        ret = function(*args, **kwargs)
    except BaseException as e:
        try:
            gen.throw(e)
        except StopIteration as stop:
            raise RuntimeError(
                "torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception raised "
                "during the checkpointed forward. This is not supported because checkpoint cannot return a value "
                "for a failed forward.") from stop
        raise
    try:
        next(gen)  # after the forward: hooks off
    except StopIteration:
        return ret
    raise AssertionError("torch.utils.checkpoint: expected context_fn generator to yield exactly twice, but it "
                         "yielded more than twice.")


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run ``functions`` (a Sequential or a list) on ``input``, checkpointing all but the last of ``segments``
    chunks."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):  # an nn.Sequential
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last chunk is not checkpointed
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


def _internal_assert(cond) -> None:
    if not cond:
        raise AssertionError("Something went unexpectedly wrong in activation checkpoint. Please report this bug by "
                             "filing an issue to PyTorch.")


# The non-reentrant checkpoint, as torch's (see its NOTE [ Nestable Checkpoint ]): the forward's pack hook keeps a
# _Holder per saved tensor; the first unpack in a backward (graph task) reruns the function under the recomputation
# hooks, which put each recomputed tensor into the holder at the same position, keyed by that backward's id, and
# stop the rerun once all holders are filled.  An unpack takes its tensor out of the holder (once).

class _Handle:
    pass


class _Holder:
    def __init__(self) -> None:
        self.handles: dict = {}


class _CheckpointFrame:
    def __init__(self, recompute_fn, early_stop: bool, unpack_error_cb, metadata_fn) -> None:
        self.recompute_fn = recompute_fn
        self.saved_args: list = []
        self.weak_holders: list = []
        self.recomputed: defaultdict = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter: defaultdict = defaultdict(int)
        self.is_recomputed: defaultdict = defaultdict(bool)
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.unpack_error_cb = unpack_error_cb
        self.x_metadatas: list = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False
        self.logs: tuple = ([], [])  # debug: what the forward and the recomputation saved, in order

    def save_inputs(self, *args) -> None:
        """Keep the inputs as saved tensors (through the outer hooks, if any: torch's nesting rule 2)."""
        self.saved_args = [_make_saved(arg) if isinstance(arg, Tensor) else arg for arg in args]

    def get_inputs(self) -> list:
        return [arg.unpack(None) if isinstance(arg, (SavedTensor, HookedSaved)) else arg for arg in self.saved_args]

    def check_recomputed_tensors_match(self, gid) -> None:
        if self.ignore_saved_mismatch:
            return
        if not len(self.weak_holders) == self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                "recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_debug_tip_msg}")
        nb_meta_different = []
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            _internal_assert(gid in holder.handles)
            _internal_assert(holder.handles[gid] is not None)
            _internal_assert(holder.handles[gid] in self.recomputed[gid])
            x_meta = self.x_metadatas[idx]
            recomputed_x = self.recomputed[gid][holder.handles[gid]]
            if x_meta != self.metadata_fn(recomputed_x):
                nb_meta_different.append((idx, x_meta, self.metadata_fn(recomputed_x)))
        if nb_meta_different:
            mismatched = "".join(f"tensor at position {idx}:\nsaved metadata: {x_meta}\n"
                                 f"recomputed metadata: {recomputed_meta}\n"
                                 for idx, x_meta, recomputed_meta in nb_meta_different)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
                f"during the forward pass.\n{mismatched}.\n{_debug_tip_msg}")


_debug_tip_msg = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.
"""


def _make_saved(t: Tensor):
    """torch._C._autograd._make_saved_tensor(t, is_output=False): a saved input, through the active hooks."""
    saved = SavedTensor.of_input(t)
    return pack_saved((saved,), (t,), ())[0] if _hooks_state.stack else saved


def _default_meta_extractor(x: Tensor) -> dict:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns: dict = {
    _DEFAULT_DETERMINISM_MODE: _default_meta_extractor,
    "none": lambda _: None,
}


class _StopRecomputationError(Exception):
    pass


def _describe(x: Tensor) -> str:
    fn = x.grad_fn
    return f"{tuple(x.shape)} {x.dtype}" + (f", grad_fn={fn.name()}" if fn is not None else "")


class _recomputation_hook(saved_tensors_hooks):
    """The rerun's hooks: each saved tensor goes into the holder at its position (for this backward's id)."""

    def __init__(self, target_frame_ref, gid) -> None:
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            target_frame = target_frame_ref()
            if target_frame is None:
                raise AssertionError("Internal error: target_frame reference is None")
            recomp_idx = target_frame.recomp_counter[gid]
            target_frame.recomp_counter[gid] += 1
            target_frame.logs[1].append(_describe(x))
            if recomp_idx >= len(target_frame.weak_holders):
                if target_frame.early_stop:
                    raise AssertionError("Unexpected state: target_frame.early_stop is set")
                if not target_frame.forward_completed:
                    # no early stop and a grad inside the checkpointed function: not a mismatch
                    target_frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{_debug_tip_msg}")
            holder = target_frame.weak_holders[recomp_idx]()
            if holder is not None:  # (None: freed by a backward inside the forward)
                _internal_assert(holder.handles.get(gid, None) is None)
                holder.handles[gid] = _Handle()
                target_frame.recomputed[gid][holder.handles[gid]] = x
            if target_frame.early_stop and target_frame.recomp_counter[gid] == len(target_frame.weak_holders):
                raise _StopRecomputationError
            return x

        def unpack_hook(x):
            return x

        super().__init__(pack_hook, unpack_hook)


class _checkpoint_hook(saved_tensors_hooks):
    """The forward's hooks: a holder instead of each saved tensor; unpack recomputes on first use in a backward."""

    def __init__(self, frame: _CheckpointFrame) -> None:
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            frame.logs[0].append(_describe(x))
            if frame.metadata_fn is not None:
                with no_grad():
                    frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = GraphExecGroup._get_current_group()  # backwards under one GraphExecGroup share a recomputation
            if gid is None:
                gid = engine.current_graph_task_id()
                if gid == -1:  # an unpack outside backward (ctx.saved_tensors read directly): a temporary id
                    gid = int(uuid.uuid4())
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                frame.logs[1].clear()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputationError:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            _internal_assert(gid in holder.handles)
            if holder.handles[gid] is None:
                extra = ""
                if GraphExecGroup._get_current_group() is not None:
                    extra = ("Performing two backward calls that overlap (i.e. require the same saved activation in "
                             "order to compute gradients) is not allowed while under the "
                             "torch.utils.checkpoint.GraphExecGroup context. ")
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                    f"{extra}If you are calling ctx.saved_tensors in backward, make sure to do so only once. "
                    "Otherwise please open an issue with details on your use case.")
            _internal_assert(holder.handles[gid] in frame.recomputed[gid])
            ret = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            return ret

        if frame.unpack_error_cb is not None:
            def unpack_hook_with_error_cb(holder):
                try:
                    return unpack_hook(holder)
                except CheckpointError as e:
                    frame.unpack_error_cb(e)
            super().__init__(pack_hook, unpack_hook_with_error_cb)
        else:
            super().__init__(pack_hook, unpack_hook)


def _debug_error_cb(frame_ref):
    """debug=True: the error lists the tensors the forward and the recomputation saved, in order (torch logs every
    operator through a dispatch mode; we list the saves, which is where the two runs must agree)."""
    def unpack_error_cb(e: CheckpointError):
        fwd, rec = frame_ref().logs
        raise CheckpointError(
            f"{e}\n\nAn error happened while unpacking tensors; dumping the tensors saved by the latest computation "
            "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n\n"
            "Tensors saved during the original forward (shape, dtype, the op that made them):\n"
            + "".join(f"  {i}: {d}\n" for i, d in enumerate(fwd))
            + "Tensors saved during recomputation:\n" + "".join(f"  {i}: {d}\n" for i, d in enumerate(rec))) from e
    return unpack_error_cb


def _checkpoint_without_reentrant_generator(fn, preserve_rng_state=True, context_fn=noop_context_fn,
                                            determinism_check: str = _DEFAULT_DETERMINISM_MODE, debug: bool = False,
                                            early_stop: bool = True, *args, **kwargs):
    """The non-reentrant checkpoint around ``fn``'s forward: yields once before it and once after it."""
    use_debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    if use_debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check in _allowed_determinism_checks_to_fns:
        metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    else:
        raise ValueError(f"determinism_check should be one of {list(_allowed_determinism_checks_to_fns.keys())}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    device_type = _infer_device_type(*args)
    device_autocast_kwargs, cpu_autocast_kwargs = _autocast_kwargs(device_type), _autocast_kwargs("cpu")
    fwd_cpu_state = random.get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs) -> None:
        with _rng_state(fwd_cpu_state), _autocast_as_in_forward(device_type, device_autocast_kwargs,
                                                                 cpu_autocast_kwargs), recompute_context:
            fn(*inputs, **kwargs)

    new_frame = _CheckpointFrame(
        recompute_fn, _enable_checkpoint_early_stop if _enable_checkpoint_early_stop is not None else early_stop,
        None, metadata_fn)
    if use_debug:
        new_frame.unpack_error_cb = _debug_error_cb(weakref.ref(new_frame))
    if not is_grad_enabled():
        yield
        return
    _break_capture()
    new_frame.save_inputs(*args)
    forward_context_suppressed_exc = False
    with _checkpoint_hook(new_frame), forward_context:
        try:
            yield
        except BaseException:
            forward_context_suppressed_exc = True
            raise
    if forward_context_suppressed_exc:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception raised during "
            "the checkpointed forward. This is not supported because checkpoint cannot return a value for a failed "
            "forward.")
    new_frame.forward_completed = True


class _ExecGroupState(threading.local):
    group = None


_exec_group = _ExecGroupState()


class GraphExecGroup:
    """Backward calls under one instance of this context recompute each non-reentrant checkpoint at most once (they
    must use disjoint saved activations, even with retain_graph=True)."""

    def __enter__(self) -> "GraphExecGroup":
        if _exec_group.group is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {_exec_group.group}")
        _exec_group.group = self
        return self

    def __exit__(self, *args: object) -> None:
        _exec_group.group = None

    @classmethod
    def _get_current_group(cls) -> "GraphExecGroup | None":
        return _exec_group.group
