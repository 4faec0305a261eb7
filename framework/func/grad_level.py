"""One level of a reverse-mode transform (grad, vjp, jacrev, jvp...): differentiable stand-ins for its inputs,
and whether its results keep a graph.

torch's functorch gives each transform a level and wraps tensors per level. Here each level makes its own handle
for an input: a view of it when the input already requires grad (so an enclosing transform, or the user's own
autograd, still sees the path), a fresh leaf otherwise. A level's derivative w.r.t. its handles then counts only
the paths through those handles, which keeps nested transforms (grad of grad) apart. Results are built with
create_graph=True only when something outside the level can still differentiate them: an enclosing transform,
or a tensor the user made require grad; otherwise they are detached, as torch's results are outside the transforms.
"""
from __future__ import annotations

import contextlib

from ..autograd import grad as autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import AccumulateGrad
from ..creation import zeros_like
from ..tensor import Tensor
from .pytree import tree_map

depth = 0  # reverse-mode transform levels now running


class GradLevel:
    """One transform's level: makes the handles for its inputs, and decides whether its results keep a graph."""

    def __init__(self) -> None:
        self.outer_grad_enabled = is_grad_enabled()
        self.nested = depth > 0

    def handle(self, x):
        """A differentiable stand-in for x at this level (torch's ValueError for a non-tensor)."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        return x.view_as(x) if x.requires_grad else transform_leaf(x.detach())

    def handles_of(self, tree):
        return tree_map(self.handle, tree)

    def keeps_graph(self, outputs: list) -> bool:
        """Whether results must stay differentiable: inside another transform, or when ``outputs`` reach a tensor
        that required grad before this level (a captured parameter, an input the user marked)."""
        if not self.outer_grad_enabled:
            return False
        return self.nested or _reaches_outside(outputs)

    def finish(self, tree, keep: bool):
        """The level's results as the caller sees them: detached unless ``keep``."""
        if keep:
            return tree
        return tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


def transform_leaf(x: Tensor) -> Tensor:
    """x made a leaf that requires grad, marked as a transform's own (a handle, a dummy cotangent): reaching it
    does not tie a result to the user's autograd."""
    x.requires_grad_()
    x._func_leaf = True
    return x


def _reaches_outside(outputs: list) -> bool:
    """Whether the graph behind ``outputs`` reaches a leaf that requires grad and is not a transform's own."""
    seen, todo = set(), []
    for t in outputs:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if not getattr(t, "_func_leaf", False):
                    return True
            else:
                todo.append(t.grad_fn)
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if not getattr(node.variable, "_func_leaf", False):
                return True
            continue
        todo.extend(fn for fn, _ in node.next_functions)
    return False


@contextlib.contextmanager
def grad_level():
    """Run a reverse-mode transform's function: grad mode on, one level deeper."""
    global depth
    level = GradLevel()
    depth += 1
    try:
        with enable_grad():
            yield level
    finally:
        depth -= 1


def vjp_grads(outputs: list, inputs: list, cotangents: list | None, retain_graph: bool, create_graph: bool) -> tuple:
    """sum_i cotangents_i * d(outputs_i)/d(inputs); zeros for an input the outputs do not use (torch's
    _autograd_grad)."""
    if cotangents is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(x) for x in inputs)
    grads = autograd_grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=retain_graph,
                          create_graph=create_graph, allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))
