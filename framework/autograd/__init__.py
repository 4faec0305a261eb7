"""framework.autograd: backward(), grad(), Function, grad modes, anomaly mode, explain()."""
from __future__ import annotations

import warnings

from .. import diagnostics
from ..creation import ones_like, zeros_like
from ..tensor import Tensor
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .callsite import set_source_tracking
from . import graph  # noqa: F401  (framework.autograd.graph, as torch.autograd.graph)
from .engine import is_checkpoint_valid as _is_checkpoint_valid  # noqa: F401  (torch's private name)
from .engine import run_backward
from .graph import GradientEdge
from .function import BackwardNode, Function, FunctionCtx
from .graph_text import explain_graph
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .node import AccumulateGrad, Node
from .variable import Variable
from .version import bump_context

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "detect_anomaly", "set_detect_anomaly", "explain", "Node",
           "AccumulateGrad", "BackwardNode", "Variable", "bump_context", "graph", "set_source_tracking", "is_inference_mode_enabled", "is_anomaly_enabled"]


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (Tensor, GradientEdge)):
        return [x]
    return list(x)


def _edge_of(t) -> tuple:
    """(node, input_nr) of a tensor or a GradientEdge."""
    return (t.node, t.output_nr) if isinstance(t, GradientEdge) else t._edge()


def _grads_list(grad_outputs, n: int) -> list:
    """grad_outputs as torch reads them: None is one None per output, a Tensor is a list of one."""
    if grad_outputs is None:
        return [None] * n
    return [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)


def _root_grads(outputs: list, grad_outputs: list, create_graph: bool, for_grad: bool) -> list:
    # torch's Python side (_make_grads) zips outputs with grad_outputs: extra grad_outputs are never read
    grads = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(t, GradientEdge):  # our nodes do not keep their outputs' shapes: the gradient must be given
            if not isinstance(g, Tensor):
                raise RuntimeError("grad can be implicitly created only for scalar outputs\n\nframework: an output "
                                   f"given as a GradientEdge needs its gradient in grad_outputs[{i}] (a tensor).")
            grads.append(g if create_graph else g.detach())
            continue
        if g is None:
            if t.requires_grad and t.numel() != 1:  # before reading grad_fn, which may raise, as torch
                raise diagnostics.implicit_grad_nonscalar(t.shape)
            g = ones_like(t)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}\n\nframework: "
                            f"pass grad_outputs[{i}] as a tensor of the output's shape, e.g. framework.ones_like(out).")
        if tuple(g.shape) != tuple(t.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                f"shape of {t.shape}.")
        grads.append(g if create_graph else g.detach())
    # then its engine: the counts, then each root
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients\n\nframework: grad_outputs "
                           f"(grad_tensors) needs one gradient, or None, for each of the {len(outputs)} outputs.")
    for i, t in enumerate(outputs):
        if isinstance(t, GradientEdge):
            continue
        if not t.requires_grad:
            if for_grad:
                raise diagnostics.AutogradError(
                    f"element {i} of tensors does not require grad and does not have a grad_fn")
            raise diagnostics.no_grad_fn(i)
        if t.grad_fn is None and t._base is not None and not t._rg:
            # a view made under no_grad requires grad (as its base) but has no grad_fn and, being a view, no grad
            # accumulator either: torch's engine refuses it as a root (one set to require grad itself has one)
            if for_grad:
                raise diagnostics.AutogradError(
                    f"element {i} of tensors does not require grad and does not have a grad_fn")
            raise diagnostics.no_grad_fn(i)
    return grads


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             inputs=None) -> None:
    """Accumulate d(tensors)/d(leaves), weighted by grad_tensors, into the leaves' ``.grad``.

    Args:
        tensors: the output(s) to differentiate.
        grad_tensors: the vector(s) of the vector-Jacobian product; may be omitted for scalars.
        retain_graph: keep saved tensors for another backward (defaults to create_graph).
        create_graph: record the backward pass itself, for higher-order derivatives.
        inputs: accumulate only into these tensors (leaves or not).
    """
    given_inputs = inputs is not None
    inputs = list(inputs.values()) if type(inputs) is dict else _as_list(inputs)
    if given_inputs and not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outputs = _as_list(tensors)
    grads = _root_grads(outputs, _grads_list(grad_tensors, len(outputs)), create_graph, for_grad=False)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn_create_graph_cycle()
    edges = [_edge_of(t) for t in outputs]
    if not inputs:
        run_backward(edges, grads, retain_graph, create_graph)
        return
    for t in inputs:  # torch: a non-leaf input retains its grad (for good), and its grad_fn runs and is freed
        if isinstance(t, Tensor) and t.requires_grad and t.grad_fn is not None:
            t.retain_grad()
    # the inputs' nodes run in the engine, a leaf's AccumulateGrad among them: it accumulates (and its hooks fire)
    # as soon as it is ready, as torch's, so a backward that fails midway has already filled the ready leaves
    targets = {node for node, _ in _input_slots(inputs)}
    run_backward(edges, grads, retain_graph, create_graph, targets=targets, run_targets=True)


def _input_slots(inputs) -> dict:
    """(node, input_nr) of each input's gradient edge -> the positions of the inputs it is (a tensor may repeat)."""
    slots: dict = {}
    for i, t in enumerate(inputs):
        if isinstance(t, GradientEdge):
            slots.setdefault((t.node, t.output_nr), []).append(i)
            continue
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        slots.setdefault(t._edge(), []).append(i)
    return slots


def _run_captured(edges, grads, inputs, retain_graph, create_graph) -> list:
    """Run backward only as far as ``inputs`` (without running their nodes) and return the gradient that reached
    each one (autograd.grad)."""
    slots = _input_slots(inputs)
    capture: dict = {"out": [None] * len(inputs)}
    capture.update({k: v[0] for k, v in slots.items()})
    run_backward(edges, grads, retain_graph, create_graph, capture=capture, accumulate=False,
                 targets={node for node, _ in slots})
    out = capture["out"]
    for k, idxs in slots.items():  # the same tensor passed twice gets the same gradient
        for j in idxs[1:]:
            out[j] = out[idxs[0]]
    return out


_create_graph_warned = False


def _warn_create_graph_cycle() -> None:
    """torch's warning (once per process, as its TORCH_WARN_ONCE) for backward(create_graph=True)."""
    global _create_graph_warned
    if not _create_graph_warned:
        _create_graph_warned = True
        warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                      "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
                      "creating the graph to avoid this. If you have to use this function, make sure to reset the "
                      ".grad fields of your parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=3)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False):
    """Return d(outputs)/d(inputs) (vector-Jacobian products) without touching any ``.grad``.

    inputs may be a dict (the result is then a dict with its keys); is_grads_batched: the first dimension of
    each grad_output is a batch of vectors, one vector-Jacobian product each (torch vmaps; we loop).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_list(outputs)
    ins = list(inputs.values()) if type(inputs) is dict else _as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use framework.autograd.backward.",
                      FutureWarning, stacklevel=2)
    if is_grads_batched:
        result = _batched_grad(outs, ins, _grads_list(grad_outputs, len(outs)), retain_graph, create_graph, allow_unused,
                               materialize_grads)
    else:
        result = _grad(outs, ins, _grads_list(grad_outputs, len(outs)), retain_graph, create_graph, allow_unused,
                       materialize_grads)
    return dict(zip(inputs.keys(), result)) if type(inputs) is dict else result


def _batched_grad(outs, ins, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads) -> tuple:
    """is_grads_batched: one vector-Jacobian product per row of the grad_outputs, stacked."""
    for i, (t, g) in enumerate(zip(outs, grad_outputs)):
        if g is not None and tuple(g.shape[1:]) != tuple(t.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"{type(g.shape)(g.shape[1:])} and output[{i}] has a shape of {t.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
    n = next((g.shape[0] for g in grad_outputs if g is not None), 1)
    rows = []
    for b in range(n):
        last = b == n - 1
        rows.append(_grad(outs, ins, [None if g is None else g[b] for g in grad_outputs],
                          retain_graph if last else True, create_graph, allow_unused, materialize_grads))
    return tuple(None if rows[0][k] is None else _stack([r[k] for r in rows]) for k in range(len(ins)))


def _stack(parts: list) -> Tensor:
    """parts stacked along a new first dimension, by slice writes into zeros (ops sit above autograd)."""
    out = zeros_like(parts[0]).unsqueeze(0).repeat(len(parts), *([1] * parts[0].dim()))
    for b, part in enumerate(parts):
        out[b] = part
    return out


def _grad(outs, ins, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads) -> tuple:
    grads = _root_grads(outs, grad_outputs, create_graph, for_grad=True)
    if retain_graph is None:
        retain_graph = create_graph
    result = _run_captured([_edge_of(t) for t in outs], grads, ins, retain_graph, create_graph)
    final = []
    for i, (t, g) in enumerate(zip(ins, result)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                if isinstance(t, GradientEdge):
                    raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
                g = zeros_like(t, requires_grad=create_graph)
        elif not create_graph and g.requires_grad:  # (a gradient torch returns as a view stays one)
            g = g.detach()
        final.append(g)
    return tuple(final)


def explain(obj) -> str:
    """Explain an autograd error (its full text) or the graph behind a tensor (a text tree)."""
    if isinstance(obj, BaseException):
        return str(obj)
    return explain_graph(obj)
