"""argnums: which positional arguments a transform differentiates (torch's checks and error texts)."""
from __future__ import annotations

from typing import Any


def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def normalize_argnums(argnums, num_args: int):
    """argnums with negative positions wrapped; torch's RuntimeError for a bad type, range, repeat or empty tuple."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def slice_argnums(args: tuple, argnums, as_tuple: bool = True) -> Any:
    """The arguments at ``argnums``: a tuple for a tuple of argnums; for an int, (arg,) or arg (as_tuple=False)."""
    argnums = normalize_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def replace_args(args: tuple, new, argnums) -> tuple:
    """``args`` with the arguments at ``argnums`` replaced by ``new`` (one value for an int, a tuple otherwise)."""
    argnums = normalize_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))
