"""vmap: map a function over a dimension of its inputs, as torch.func.vmap.

This is the readable reference implementation: a Python loop that calls the function once per example (the inputs
sliced at their in_dims) and stacks the outputs at their out_dims. torch instead runs the function once on
BatchedTensors; the values are the same, the cost is one call per example. The checks and error texts are torch's.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable

from .. import random as _random
from .. import vmap_state
from ..ops import stack
from ..tensor import Tensor
from .pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten


def check_randomness_arg(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


@contextlib.contextmanager
def vmap_running(randomness: str):
    """While the mapped function runs: .item() raises, and random ops too with randomness="error"."""
    vmap_state.running.append(randomness)
    try:
        yield
    finally:
        vmap_state.running.pop()


def _get_name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def vmap(func: Callable, in_dims: int | tuple = 0, out_dims: int | tuple = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """A function that maps ``func`` over dimension ``in_dims`` of its inputs and stacks the results at
    ``out_dims``: vmap(f)(x)[i] == f(x[i]).

    in_dims / out_dims: an int, None (not mapped: passed whole / returned once) or a pytree of those matching the
    inputs / outputs. randomness: "error" (a random op inside raises, as torch), "different" (each example draws
    its own numbers), "same" (each example starts from the same generator state, so all draw the same numbers).
    chunk_size: accepted and checked; the loop runs one example at a time whatever it is.

    Differences from torch (a consequence of the loop): `.item()` inside the function raises torch's error on any
    tensor, not only on ones that depend on the mapped inputs; an out_dims=None output raises torch's "can not
    return a BatchedTensor" error when its value differs between examples (torch: when it depends on the mapped
    inputs at all); data-dependent control flow (`if x.sum() > 0`)
    runs per example instead of raising; a batch of size 0 raises, as there is no example to learn the outputs'
    shapes from; random draws differ from torch's generator anyway.
    """
    check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, args_spec = _process_batched_inputs(in_dims, args, func)
        if batch_size == 0:
            raise ValueError(f"vmap({_get_name(func)}, ...)(<inputs>): framework's vmap loops over the examples "
                             "and cannot run a batch of size 0.")
        state = _random.get_rng_state() if randomness == "same" else None
        per_example = []
        with vmap_running(randomness):
            for b in range(batch_size):
                if state is not None:
                    _random.set_rng_state(state)
                example = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_in_dims)]
                per_example.append(func(*tree_unflatten(example, args_spec), **kwargs))
        return _stack_outputs(per_example, out_dims, func)

    return wrapped


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return
    for leaf in tree_flatten(out_dims)[0]:
        if not (leaf is None or isinstance(leaf, int)):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or "
                             "a python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


def _process_batched_inputs(in_dims, args: tuple, func) -> tuple[int, list, list, Any]:
    """(batch size, one in_dim per input leaf (negative ones wrapped), the input leaves, their spec)."""
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if not isinstance(in_dim, int) and in_dim is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if isinstance(in_dim, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


def _stack_outputs(per_example: list, out_dims, func):
    """The examples' outputs stacked leaf by leaf at their out_dim (out_dim None: the first example's value)."""
    name = _get_name(func)
    flat_first, spec = tree_flatten(per_example[0])
    if isinstance(per_example[0], Tensor):  # torch's edge case: a tensor output takes out_dims=(d,) too
        ok = isinstance(out_dims, int) or out_dims is None or (isinstance(out_dims, tuple) and len(out_dims) == 1)
        flat_out_dims = list(out_dims) if isinstance(out_dims, tuple) else [out_dims]
    else:
        flat_out_dims = broadcast_to_and_flatten(out_dims, spec)
        ok = flat_out_dims is not None
    if not ok:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
                         f"structure {spec}.")
    flat_per_example = [tree_flatten(out)[0] for out in per_example]
    result = []
    for k, (first, out_dim) in enumerate(zip(flat_first, flat_out_dims)):
        if out_dim is None:
            if isinstance(first, Tensor) and any(_depends_on_example(ex[k], first) for ex in flat_per_example[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            result.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you "
                             "mean to set out_dims= to None for output?")
        result.append(stack([ex[k] for ex in flat_per_example], dim=out_dim))
    return tree_unflatten(result, spec)


def _depends_on_example(value, first: Tensor) -> bool:
    """Whether an out_dims=None output differs between examples (torch: it is a BatchedTensor)."""
    return value is not first and not (isinstance(value, Tensor) and value.shape == first.shape
                                       and bool((value == first).all()))
