"""Forward-mode transforms: jvp, linearize, jacfwd, hessian (torch.func's), by the double-vjp trick.

framework has no forward-mode AD. For outputs y = f(x) and a dummy cotangent u, g(u) = J^T u is linear in u, so
the derivative of <g(u), v> w.r.t. u is J v: two reverse passes give the Jacobian-vector product. One linearization
(a forward pass and the J^T u graph) serves any number of tangents, so jacfwd runs f once and one reverse pass per
input element.
"""
from __future__ import annotations

import functools
from typing import Callable

from ..autograd import grad as autograd_grad
from ..creation import zeros_like
from ..ops import split, stack
from ..tensor import Tensor
from . import grad_level as levels
from .argnums import replace_args, slice_argnums
from .pytree import tree_flatten, tree_leaves, tree_unflatten
from .reverse import _check_aux, assert_non_empty_tensor_output, jacrev, standard_basis
from .vmap import check_randomness_arg, vmap_running

JVP_STR = "jvp(f, primals, tangents)"


class _Linearization:
    """f's outputs at the primals, and push(tangents) = J·tangents for the inputs at argnums (all if None)."""

    def __init__(self, func: Callable, args: tuple, argnums, has_aux: bool, api: str = JVP_STR) -> None:
        with levels.grad_level() as level:
            selected = args if argnums is None else slice_argnums(args, argnums, as_tuple=False)
            diff = level.handles_of(selected)
            out = func(*(diff if argnums is None else replace_args(args, diff, argnums)))
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is "
                                       "True")
                out, aux = out
                _check_aux(aux)
            flat_out, self.out_spec = tree_flatten(out)
            assert_non_empty_tensor_output(flat_out, api)
            self.keep = level.keeps_graph(flat_out)
            # u: one dummy cotangent per output that depends on anything; g = J^T u, kept where it depends on u
            self.dummies = [levels.transform_leaf(zeros_like(o)) if o.requires_grad else None for o in flat_out]
            used = [(o, u) for o, u in zip(flat_out, self.dummies) if u is not None]
            flat_diff = tree_leaves(diff)
            g = autograd_grad([o for o, _ in used], flat_diff, [u for _, u in used], create_graph=True,
                              allow_unused=True) if used else [None] * len(flat_diff)
            self.g = [(j, gj) for j, gj in enumerate(g) if gj is not None and gj.requires_grad]
            self.outputs = level.finish(flat_out, self.keep)
            self.aux = level.finish(aux, self.keep)

    def push(self, flat_tangents: list, strict: bool = False) -> list:
        """J·tangents, one tensor per output (zeros for an output independent of the inputs)."""
        targets = [u for u in self.dummies if u is not None]
        graph = self.keep or levels.depth > 0 or any(t.requires_grad for t in flat_tangents)
        found = [None] * len(targets)
        if self.g and targets:
            found = list(autograd_grad([gj for _, gj in self.g], targets, [flat_tangents[j] for j, _ in self.g],
                                       retain_graph=True, create_graph=graph, allow_unused=True))
        by_output = iter(found)
        result = []
        for out, u in zip(self.outputs, self.dummies):
            tangent = next(by_output) if u is not None else None
            if tangent is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of "
                                       "the inputs. This is not allowed with strict=True.")
                tangent = zeros_like(out)
            result.append(tangent if graph else tangent.detach())
        return result


def _check_tangents(flat_primals: list, flat_tangents: list, api: str) -> None:
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if len(flat) == 0:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_primals, flat_tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False):
    """(func(*primals), the Jacobian-vector product J·tangents[, aux]), shaped as func's outputs."""
    return _jvp_with_argnums(func, primals, tangents, argnums=None, strict=strict, has_aux=has_aux)


def _jvp_with_argnums(func: Callable, primals, tangents, argnums, *, strict: bool = False, has_aux: bool):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP_STR}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals if argnums is None else slice_argnums(primals, argnums))
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{JVP_STR}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    _check_tangents(flat_primals, flat_tangents, JVP_STR)
    lin = _Linearization(func, primals, argnums, has_aux)
    outputs = tree_unflatten(lin.outputs, lin.out_spec)
    tangents_out = tree_unflatten(lin.push(flat_tangents, strict), lin.out_spec)
    return (outputs, tangents_out, lin.aux) if has_aux else (outputs, tangents_out)


def linearize(func: Callable, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is J·tangents at primals, from one forward pass."""
    flat_primals, primals_spec = tree_flatten(primals)
    lin = _Linearization(func, primals, None, False, api="linearize")

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec as the primals "
                               f"{primals_spec}")
        for idx, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what, a, b in (("shape", t.shape, p.shape), ("device", t.device, p.device),
                               ("dtype", t.dtype, p.dtype)):
                if a != b:
                    raise RuntimeError(f"tangent:{idx} with {what} {a} in flattened pytree doesn't match the {what} "
                                       f"{b} of the corresponding primal.")
        return tree_unflatten(lin.push(flat_tangents), lin.out_spec)

    return tree_unflatten(lin.outputs, lin.out_spec), jvp_fn


def jacfwd(func: Callable, argnums: int | tuple = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """A function returning the Jacobian of ``func`` w.r.t. the arguments at ``argnums``, one Jacobian-vector
    product per input element. torch runs func once per element under vmap(randomness=...); here it runs once, under
    the same vmap checks (a random op raises with randomness="error"; with "different" the columns share one draw)."""

    @functools.wraps(func)
    def wrapper_fn(*args):
        flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
        numels = [p.numel() for p in flat_primals]
        check_randomness_arg(randomness)
        with vmap_running(randomness):
            lin = _Linearization(func, args, argnums, has_aux)
        columns = [lin.push(basis) for basis in standard_basis(flat_primals, numels)]
        jac_outs_ins = []
        for i, out in enumerate(lin.outputs):
            jac = stack([col[i] for col in columns], dim=-1)  # out.shape + (all input elements,)
            parts = split(jac, numels, dim=-1)
            ins = [part.reshape(tuple(out.shape) + tuple(p.shape)) for part, p in zip(parts, flat_primals)]
            jac_outs_ins.append(tree_unflatten(ins, primals_spec))
        if isinstance(argnums, int):
            jac_outs_ins = [ins[0] for ins in jac_outs_ins]
        result = tree_unflatten(jac_outs_ins, lin.out_spec)
        return (result, lin.aux) if has_aux else result

    return wrapper_fn


def hessian(func: Callable, argnums: int | tuple = 0) -> Callable:
    """A function returning the Hessian of ``func`` w.r.t. the arguments at ``argnums``: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)
