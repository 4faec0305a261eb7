"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp of a function, built on autograd.grad.

As torch's: a tensor argument gives tensor results, a tuple gives tuples; without create_graph the results (and
the function's outputs) are detached; jvp uses the double-vjp trick (forward-mode AD is not implemented).
Jacobians are built one output element at a time (torch's vectorize=True is accepted, and loops the same).
"""
from __future__ import annotations

from typing import Callable

from ..creation import zeros_like
from ..tensor import Tensor
from . import _stack, grad
from .grad_mode import enable_grad


def _as_tuple(x, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    if isinstance(x, Tensor):
        return False, (x,)
    if not isinstance(x, tuple):
        raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                        f"given {arg_name} has type {type(x)}.")
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the value at index {i} has type {type(t)}.")
    return True, x


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Inputs that require grad: views of the user's (create_graph: linked to them), fresh leaves otherwise."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(values, create_graph: bool):
    if isinstance(values, tuple):
        return tuple(_finish(v, create_graph) for v in values)
    if values is None or create_graph:
        return values
    return values.detach()


def _grads(outputs: tuple, inputs: tuple, grad_outputs: tuple, create_graph: bool) -> tuple:
    """d(outputs)/d(inputs) weighted by grad_outputs; zeros for an input the outputs do not use."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(t) for t in inputs)
    res = grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True, create_graph=create_graph,
               allow_unused=True)
    return tuple(zeros_like(t) if g is None else g for g, t in zip(res, inputs))


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (None,)
        else:
            vs = _as_tuple(v, "v", "vjp")[1]
        result = _grads(outs, inputs, vs, create_graph)
    outputs = _finish(outs if out_tuple else outs[0], create_graph)
    return outputs, _finish(result if is_tuple else result[0], create_graph)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-vjp trick (as torch's)."""
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (None,)
        else:
            vs = _as_tuple(v, "v", "jvp")[1]
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        grad_inputs = _grads(outs, inputs, dummies, create_graph=True)
        vs = tuple(zeros_like(t) + 1 if g is None else g for g, t in zip(vs, inputs))
        result = _grads(tuple(g for g in grad_inputs), dummies, vs, create_graph)
    outputs = _finish(outs if out_tuple else outs[0], create_graph)
    return outputs, _finish(result if out_tuple else result[0], create_graph)


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of func at inputs: for each (output, input) pair a tensor of shape output.shape + input.shape."""
    with enable_grad():
        is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        jac = []
        for out in outs:
            flat = out.reshape(-1)
            rows = []  # rows[k][j]: d flat[k] / d inputs[j]
            for k in range(flat.numel()):
                if flat.requires_grad:
                    rows.append(_grads((flat[k],), inputs, (None,), create_graph))
                else:
                    rows.append(tuple(zeros_like(t) for t in inputs))
            per_input = []
            for j, t in enumerate(inputs):
                if rows:
                    block = _stack([r[j] for r in rows]).reshape(tuple(out.shape) + tuple(t.shape))
                else:
                    block = zeros_like(t).reshape(-1)[:0].reshape(tuple(out.shape) + tuple(t.shape))
                per_input.append(_finish(block, create_graph))
            jac.append(tuple(per_input) if is_tuple else per_input[0])
    return tuple(jac) if out_tuple else jac[0]


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar func at inputs (the Jacobian of its gradient)."""
    is_tuple, tup = _as_tuple(inputs, "inputs", "hessian")

    def grad_fn(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element.")
        return jacobian(func, xs if is_tuple else xs[0], create_graph=True)
    return jacobian(grad_fn, inputs, create_graph=create_graph)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) for a scalar func."""
    with enable_grad():
        is_tuple, tup = _as_tuple(inputs, "inputs", "vhp")
        tup = _prepare(tup, create_graph)
        out = func(*tup)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        vs = _as_tuple(v, "v", "vhp")[1] if v is not None else (None,)
        grads = _grads((out,), tup, (None,), create_graph=True)
        result = _grads(grads, tup, vs, create_graph)
    return _finish(out, create_graph), _finish(result if is_tuple else result[0], create_graph)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar func (H is symmetric: the same as vhp)."""
    return vhp(func, inputs, v, create_graph, strict)
