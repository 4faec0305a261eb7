"""The backward engine: walk the graph from the outputs to the leaves, once, iteratively.

Mirrors torch/csrc/autograd/engine.cpp, without threads:
1. count, for every node reachable from the roots, how many edges point at it (its dependencies);
2. start from the roots' nodes with the given gradients; a node runs once all its dependencies
   have delivered their gradients (summed in an input buffer);
3. ready nodes run newest-first (highest sequence number), like torch's CPU ready queue, which is
   what fixes the order hooks fire in;
4. each node's saved tensors are freed after it runs unless retain_graph=True.
No recursion anywhere, so a chain of 10,000 ops is fine.
"""
from __future__ import annotations

import heapq
import itertools
import sys
from typing import Sequence

from .. import backend, diagnostics, dtypes
from .anomaly import is_anomaly_enabled
from .grad_mode import set_grad_enabled
from ..memory_layout import iterator_layout
from ..tensor import Tensor
from .node import AccumulateGrad


def _dependencies(roots) -> dict:
    """node -> number of edges pointing at it, over everything reachable from ``roots``."""
    deps: dict = {}
    stack = list({r: None for r in roots if r is not None})  # each root once, in order
    pushed = set(stack)  # roots are already on the stack; any other node is pushed when first counted
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            count = deps.get(nxt)
            if count is None:  # first edge into nxt: the dict doubles as the "seen" set
                deps[nxt] = 1
                if nxt not in pushed:
                    stack.append(nxt)
            else:
                deps[nxt] = count + 1
    return deps


def _needed(roots, targets) -> set:
    """Nodes with a path to a target node through their edges: only these run when inputs= is given."""
    order, stack, seen = [], [(r, False) for r in roots if r is not None], set()
    while stack:  # iterative post-order
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append((nxt, False))
    needed: set = set()
    for node in order:  # children come before parents
        if any(nxt in needed or nxt in targets for nxt, _ in node.next_functions if nxt is not None):
            needed.add(node)
    return needed


# One list per running backward (a backward started inside a hook nests): callbacks queued during it.
_final_callbacks: list[list] = []


class _GraphTask:
    """What torch's engine knows of the running backward: its id and which nodes it will execute."""

    __slots__ = ("id", "roots", "deps", "needed", "capture", "for_grad")

    def __init__(self, capture, for_grad: bool) -> None:
        self.id = next(_task_ids)
        self.roots, self.deps, self.needed, self.capture, self.for_grad = (), {}, None, capture, for_grad


_task_ids = itertools.count()
_tasks: list[_GraphTask] = []  # the running backwards, innermost last (a backward inside a hook nests)


def current_graph_task_id() -> int:
    """torch._C._current_graph_task_id: the running backward's id, -1 outside backward."""
    return _tasks[-1].id if _tasks else -1


def will_engine_execute_node(node) -> bool:
    """torch._C._will_engine_execute_node: whether the running backward evaluates ``node`` (runs or captures it)."""
    if not _tasks:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    task = _tasks[-1]
    if node not in task.deps and node not in task.roots:
        return False
    if task.needed is None:
        return True
    capture = task.capture
    runs = node in task.needed or (capture is not None and any((node, nr) in capture for nr in range(node._n_outputs)))
    if runs and task.for_grad and isinstance(node, AccumulateGrad):
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                           "autograd.grad(). This is currently not supported.")
    return runs


def output_needed(node) -> bool:
    """torch's task_should_compute_output for an edge into ``node``: False when the running backward is limited
    (autograd.grad, backward(inputs=...)) and ``node`` neither leads to an input nor is captured."""
    if not _tasks or _tasks[-1].needed is None:
        return True
    task = _tasks[-1]
    return node in task.needed or (task.capture is not None and
                                   any((node, nr) in task.capture for nr in range(node._n_outputs)))


def is_checkpoint_valid() -> bool:
    """torch's Engine.is_checkpoint_valid: False inside autograd.grad or backward(inputs=...) (the reentrant
    checkpoint's backward then cannot compute its inputs' gradients)."""
    return not _tasks or (_tasks[-1].needed is None and _tasks[-1].capture is None)


def queue_callback(fn) -> None:
    """Run ``fn()`` once the running backward has finished (torch: Variable._execution_engine.queue_callback).

    DistributedDataParallel uses it to wait for its gradient all-reduces before backward() returns.
    """
    if not _final_callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks[-1].append(fn)


def run_backward(root_edges: Sequence, root_grads: Sequence, retain_graph: bool, create_graph: bool,
                 capture: dict | None = None, accumulate: bool = True, targets: set | None = None,
                 run_targets: bool = False) -> None:
    """Propagate gradients through the graph (see _propagate), then run the callbacks queued meanwhile."""
    callbacks: list = []
    _final_callbacks.append(callbacks)
    if backend._recorder is not None:  # framework.compile: this step backpropagates itself (its outputs' graphs
        backend._recorder.backward_ran = True  # are not needed after it)
    _tasks.append(_GraphTask(capture, not accumulate and not run_targets))  # autograd.grad: no accumulation
    try:
        _propagate(root_edges, root_grads, retain_graph, create_graph, capture, accumulate, targets, run_targets)
        for fn in callbacks:  # a callback may queue more; the loop picks them up
            fn()
    finally:
        _tasks.pop()
        _final_callbacks.pop()


def _propagate(root_edges: Sequence, root_grads: Sequence, retain_graph: bool, create_graph: bool,
               capture: dict | None = None, accumulate: bool = True, targets: set | None = None,
               run_targets: bool = False) -> None:
    """Propagate ``root_grads`` from ``root_edges`` through the graph.

    capture: {(node, input_nr): slot} -> the gradient flowing into that spot is stored in capture_out.
    accumulate: run AccumulateGrad nodes (backward) or not (autograd.grad).
    targets: when given, only nodes leading to these nodes run (and, with run_targets, the targets themselves:
    torch's backward(inputs=[non-leaf]) runs and frees the input's grad_fn; AccumulateGrad still obeys accumulate).
    """
    roots = [e[0] for e in root_edges]
    deps = _dependencies(roots)
    needed = _needed(roots, targets) if targets is not None else None
    if run_targets and needed is not None:
        needed |= targets
    task = _tasks[-1]
    task.roots, task.deps, task.needed = roots, deps, needed
    buffers: dict = {}
    ready: list = []
    tie = 0
    for (node, nr), g in zip(root_edges, root_grads):
        if node is None:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_outputs
        g = _as_input_dtype(g, node, nr, create_graph)
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    for node in buffers:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq, tie, node))
            tie += 1

    anomaly = is_anomaly_enabled()
    plain = capture is None and needed is None and accumulate  # a plain backward(): no per-node filters
    # torch's graph root: one root edge is its own root node, always evaluated (so its tensor hooks fire) even
    # when it leads to no input; several go through a GraphRoot, whose edges obey the filters like any other
    sole_root = roots[0] if len(root_edges) == 1 else None
    heappop, heappush = heapq.heappop, heapq.heappush  # locals: no module lookup per node
    with set_grad_enabled(create_graph):
        while ready:
            node = heappop(ready)[2]
            grads = buffers.pop(node)
            if plain:
                if node._tensor_pre_hooks or node._retain_grad_hooks:
                    _run_tensor_hooks(node, grads)
            elif _filtered(node, grads, capture, needed, accumulate, node is sole_root):
                continue
            if node._pre_hooks:  # most nodes have none: no iterator made for an empty tuple
                for hook in node._pre_hooks:
                    backend.hook_called(hook)  # compile: a hook with Python side effects breaks the capture
                    new = hook(tuple(grads))
                    if new is not None:
                        grads = list(new)
            if (grads[0] is None) if len(grads) == 1 else all(g is None for g in grads):
                outs = [None] * len(node.next_functions)
            elif needed is not None and getattr(node, "_forward_cls", None) is not None \
                    and node._forward_cls.array_forward:
                outs = _apply_limited(node, grads, needed, capture)
                if anomaly:
                    _check_nan(node, outs)
            else:
                outs = node.apply(grads)
                if anomaly:
                    _check_nan(node, outs)
            if not retain_graph:
                node.release()
            if node._post_hooks:  # likewise
                for hook in node._post_hooks:
                    backend.hook_called(hook)
                    new = hook(tuple(outs), tuple(grads))
                    if new is not None:
                        outs = list(new)
            if needed is not None:
                outs = _needed_outputs(node, outs, needed, capture)
            grads = None  # torch has freed the node's inputs before it passes the outputs on (see _accumulate)
            for (nxt, nr), g in zip(node.next_functions, outs):
                if nxt is None:
                    continue
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * nxt._n_outputs
                if g is not None:
                    want = nxt._grad_dtypes
                    if want is not None and want[nr] is not None and g._array.dtype != want[nr]:
                        g = _as_input_dtype(g, nxt, nr, create_graph)
                    if buf[nr] is None:
                        buf[nr] = g
                    elif create_graph:
                        buf[nr] = buf[nr] + g  # a differentiable sum, for higher-order gradients
                    else:
                        buf[nr] = _accumulate(buf[nr], g, outs)
                left = deps[nxt] - 1  # one dict read and one write per edge
                deps[nxt] = left
                if left == 0:
                    heappush(ready, (-nxt._seq, tie, nxt))
                    tie += 1
            # the engine holds a gradient only in its buffers, as torch's moves them there: what decides whether
            # it may be summed into in place (_accumulate) or kept by AccumulateGrad as it is (its _version)
            outs = g = None


def _apply_limited(node, grads: list, needed: set, capture: dict | None) -> list:
    """A built-in's backward in a limited backward (inputs=, autograd.grad): its formula sees needs_input_grad
    False for an edge the backward neither runs nor captures, as torch's generated formulas ask
    task_should_compute_output, so a gradient nobody wants is not computed (nor its errors raised: addr's vec2
    gradient of a bfloat16 vec1, fuzz seed 4007166). A user Function's stays as forward set it, as torch's."""
    full = node.needs_input_grad
    positions = range(len(node.next_functions)) if node._edge_args is None else node._edge_args
    narrowed = list(full)
    for i, (nxt, nr) in zip(positions, node.next_functions):
        if nxt is not None and i < len(narrowed) and nxt not in needed and \
                not (capture is not None and (nxt, nr) in capture):
            narrowed[i] = False
    if narrowed == list(full):
        return node.apply(grads)
    node.needs_input_grad = tuple(narrowed)
    try:
        return node.apply(grads)
    finally:
        node.needs_input_grad = full


def _needed_outputs(node, outs: list, needed: set, capture: dict | None) -> list:
    """torch's task_should_compute_output: a limited backward (inputs=, autograd.grad) has no gradient for an edge
    into a node it neither runs nor captures from (so a gradient also sent there is held only once)."""
    return [g if nxt is not None and (nxt in needed or capture is not None and (nxt, nr) in capture) else None
            for (nxt, nr), g in zip(node.next_functions, outs)]


def _accumulate(prev, g, outs: list):
    """prev + g, as torch's InputBuffer::accumulate without grad mode: in place into prev when only the engine
    holds it (which bumps its _version, as torch's add_), else into a new tensor."""
    if prev._efficient_zero:  # torch's add of a ZeroTensor: the other one, copied (or a zero tensor again)
        if g._efficient_zero:
            return prev
        return Tensor._make(backend.get_array_module(g._array).array(g._array, order="K", copy=True))
    # sys.getrefcount when only the engine holds prev: its buffer, this argument, getrefcount's own, and the output
    # list of the node running now if prev came from it (torch has moved it out of there)
    if sys.getrefcount(prev) <= 3 + sum(o is prev for o in outs) and _writable_alone(prev):
        prev._array += g._array
        prev._version_counter.bump("AccumulateGrad")
        return prev
    # laid out as torch's prev + g (TensorIterator: prev's layout decides first; NumPy's would pick C order)
    total = iterator_layout(prev._array + g._array, (prev._array, g._array))
    # numpy's 0-d arithmetic returns a scalar: keep an array (writeable, as torch's gradients)
    return Tensor._make(total if total.ndim else backend.as_array(total))


def _writable_alone(t) -> bool:
    """The rest of torch's can_accumulate_inplace: t's memory is its own, dense and writeable. A view never
    qualifies: torch's keeps its base alive (ViewInfo), so its storage has a second user; an array merely restrided
    on its size-1 dims (a cast that kept an expand's 0 strides: torch's empty_strided) owns its memory."""
    a = t._array
    if t._version_counter is None or a.base is not None and not backend.restrided_alone(a):
        return False
    if a.base is None and sys.getrefcount(a) > 3:  # t's, this name, getrefcount's: a view of it lives on (a leaf
        return False  # stole a slice of it) or another tensor wraps it, so torch's storage has a second user
    flags = getattr(a, "flags", None)
    return backend.is_non_overlapping_and_dense(a) and getattr(flags, "writeable", True)


def _as_input_dtype(g, node, nr: int, create_graph: bool):
    """``g`` cast to the dtype of the tensor it is the gradient of (torch's validate_outputs)."""
    want = node._grad_dtypes
    if g is None or want is None or want[nr] is None or g._array.dtype == want[nr]:
        return g
    if create_graph:
        return g.to(dtypes.from_numpy_dtype(want[nr]))  # differentiable: ToCopyBackward0, as torch
    # torch's to() keeps a dense gradient's strides, those of its size-1 dims too (an expand's 0: which AccumulateGrad
    # then copies rather than steals, so the leaf's grad has _version 1); a non-dense one (a slice of an expanded
    # gradient, CatBackward0's) it writes C-contiguous, where NumPy's astype would lay a stride-0 dim innermost
    a = g._array
    if backend.is_non_overlapping_and_dense(a):
        return Tensor._make(backend.keep_size1_strides(backend.as_array(a.astype(want[nr])), a))
    return Tensor._make(backend.as_array(a.astype(want[nr], order="C")))


def _filtered(node, grads: list, capture: dict | None, needed: set | None, accumulate: bool,
              is_root: bool = False) -> bool:
    """autograd.grad / inputs=: run the tensor hooks and store captured gradients; True when the node must not run.

    As torch's evaluate_function: a node that runs anyway (it leads to another input) is captured before its
    tensor hooks, which then run just before it; a node that does not run gets its hooks first, then the capture.
    """
    runs = (needed is None or node in needed) and (accumulate or not isinstance(node, AccumulateGrad))
    if not runs and not is_root and (capture is None or not any((node, nr) in capture for nr in range(len(grads)))):
        return True  # torch's engine never evaluates a node it neither runs nor captures from: no hooks fire
    if capture is not None and runs:
        _capture(node, grads, capture)
    if node._tensor_pre_hooks or node._retain_grad_hooks:
        _run_tensor_hooks(node, grads)
    if capture is not None and not runs:
        _capture(node, grads, capture)
    return not runs


def _capture(node, grads: list, capture: dict) -> None:
    """Store the gradients flowing into ``node`` that autograd.grad / inputs= asked for."""
    for nr in range(len(grads)):
        slot = capture.get((node, nr))
        if slot is not None:
            capture["out"][slot] = grads[nr]


def _run_tensor_hooks(node, grads: list) -> None:
    """Tensor.register_hook hooks (may replace the gradient), then retain_grad's, as torch orders them."""
    hooks = node._tensor_pre_hooks
    if hooks:
        for nr, fns in hooks.items():
            for fn in list(fns):
                if grads[nr] is None:
                    continue
                backend.hook_called(fn)
                new = fn(grads[nr])
                if new is not None:
                    _check_hook_result(fn, grads[nr], new)
                    grads[nr] = new
    retain = node._retain_grad_hooks
    if retain:
        for nr, fn in retain.items():
            if grads[nr] is not None:
                fn(grads[nr])


def _check_hook_result(fn, old, new) -> None:
    """torch's check_single_result: a tensor hook returns a tensor of the gradient's type, device and size."""
    name = getattr(fn, "__name__", type(fn).__name__)
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'\n\n"
                        f"A hook registered with register_hook returns None or the new gradient, a Tensor.")
    if new._array.dtype != old._array.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})\n\n"
                           "A hook's new gradient keeps the dtype of the one it received: cast it back with "
                           f"`.to({old.dtype!r})`.")
    if new.device != old.device:
        raise RuntimeError(f"hook '{name}' has changed the device of value (was {old.device} got {new.device})")
    if tuple(new._array.shape) != tuple(old._array.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value\n\n"
                           f"It received a gradient of shape {tuple(old.shape)} and returned one of shape "
                           f"{tuple(new.shape)}: a hook's gradient keeps the shape of its tensor.")


def _check_nan(node, outs) -> None:
    for i, g in enumerate(outs):
        if g is not None and not bool(g.isfinite().all()):
            stack = "".join(node._anomaly_stack or [])
            raise diagnostics.AutogradError(
                f"Function '{node.name()}' returned nan values in its {i}th output.",
                "What happened: under detect_anomaly(), backward checks every gradient for NaN/Inf.\n"
                f"  {node.name()} was recorded at this forward call:\n{stack}")
