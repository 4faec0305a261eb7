"""Reverse-mode transforms: grad, grad_and_value, vjp, jacrev (torch.func's), on framework.autograd.grad."""
from __future__ import annotations

import functools
from typing import Callable

from ..autograd.grad_mode import is_grad_enabled
from ..ops import split, stack
from ..tensor import Tensor
from . import grad_level as levels
from .argnums import replace_args, slice_argnums
from .pytree import tree_flatten, tree_leaves, tree_unflatten


def _check_aux(aux):
    """torch unwraps aux leaf by leaf and accepts only tensors."""
    for leaf in tree_leaves(aux):
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return aux


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning (the gradient of ``func``'s scalar output w.r.t. the arguments at ``argnums``, the
    output); with has_aux, func returns (output, aux) and the function (gradient, (output, aux))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with levels.grad_level() as level:
            diff_args = level.handles_of(slice_argnums(args, argnums, as_tuple=False))
            output = func(*replace_args(args, diff_args, argnums), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   "APIs instead?")
            flat_diff, spec = tree_flatten(diff_args)
            keep = level.keeps_graph([output])
            grads = levels.vjp_grads([output], flat_diff, None, retain_graph=keep, create_graph=keep)
            grad_input = level.finish(tree_unflatten(list(grads), spec), keep)
            output = level.finish(output, keep)
            if has_aux:
                return grad_input, (output, level.finish(_check_aux(aux), keep))
            return grad_input, output

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of ``func``'s scalar output w.r.t. the arguments at ``argnums`` (with
    has_aux: (gradient, aux)). Nests: grad(grad(f)) is the second derivative."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) is the vector-Jacobian product at primals, shaped
    as primals."""
    return _vjp_with_argnums(func, *primals, argnums=None, has_aux=has_aux)


def _vjp_with_argnums(func: Callable, *primals, argnums=None, has_aux: bool = False):
    with levels.grad_level() as level:
        if argnums is None:
            diff_primals = level.handles_of(primals)
            call_args = diff_primals
        else:
            diff_primals = level.handles_of(slice_argnums(primals, argnums, as_tuple=False))
            call_args = replace_args(primals, diff_primals, argnums)
        primals_out = func(*call_args)
        aux = None
        if has_aux:
            if not (isinstance(primals_out, tuple) and len(primals_out) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            primals_out, aux = primals_out
            _check_aux(aux)
        flat_out, out_spec = tree_flatten(primals_out)
        assert_non_empty_tensor_output(flat_out, "vjp(f, *primals)")
        for out in flat_out:
            if not out.is_floating_point():
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {out.dtype}")
        flat_diff, primals_spec = tree_flatten(diff_primals)
        keep = level.keeps_graph(flat_out)
        results = level.finish(primals_out, keep)
        aux = level.finish(aux, keep)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        """The vector-Jacobian product for ``cotangents`` (shaped as func's outputs)."""
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {ct_spec.pprint()}, primal output: "
                               f"{out_spec.pprint()}")
        graph = create_graph and (keep or levels.depth > 0 or any(isinstance(c, Tensor) and c.requires_grad
                                                                   for c in flat_ct))
        grads = levels.vjp_grads(flat_out, flat_diff, flat_ct, retain_graph=retain_graph, create_graph=graph)
        if not graph:
            grads = tuple(g.detach() for g in grads)
        return tree_unflatten(list(grads), primals_spec)

    if has_aux:
        return results, vjp_fn, aux
    return results, vjp_fn


def assert_non_empty_tensor_output(output: list, api: str) -> None:
    if (len(output) == 1 and output[0] is None) or len(output) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {output})")
    for o in output:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def jacrev(func: Callable, argnums: int | tuple = 0, *, has_aux: bool = False, chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable:
    """A function returning the Jacobian of ``func`` w.r.t. the arguments at ``argnums``, one vjp per output
    element (torch vmaps the vjps, chunk_size at a time; the loop here gives the same values for any chunk_size)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args):
        vjp_out = _vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn = vjp_out[0], vjp_out[1]
        flat_output, output_spec = tree_flatten(output)
        numels = [o.numel() for o in flat_output]
        flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
        # one vjp per row of the identity over all output elements: row r of the Jacobians
        rows = [tree_leaves(vjp_fn(tree_unflatten(basis, output_spec)))
                for basis in standard_basis(flat_output, numels)]
        per_input = [stack([row[j] for row in rows]) if rows else None for j in range(len(flat_primals))]
        flat_input_flat_output = [
            tuple(part.view(tuple(out.shape) + tuple(p.shape))
                  for part, out in zip(split(jac, numels, dim=0), flat_output))
            for jac, p in zip(per_input, flat_primals)]
        flat_output_input = tuple(tree_unflatten(list(ins), primals_spec) for ins in zip(*flat_input_flat_output))
        if isinstance(argnums, int):
            flat_output_input = tuple(ins[0] for ins in flat_output_input)
        result = tree_unflatten(list(flat_output_input), output_spec)
        return (result, vjp_out[2]) if has_aux else result

    return wrapper_fn


def standard_basis(tensors: list, numels: list):
    """The rows of the identity over the tensors' elements taken together, each row split into tensors shaped as
    ``tensors`` (a one at one element, zeros elsewhere)."""
    for k in range(sum(numels)):
        row, start = [], 0
        for t, n in zip(tensors, numels):
            e = t.new_zeros(n)
            if start <= k < start + n:
                e[k - start] = 1
            row.append(e.view(t.shape))
            start += n
        yield row
