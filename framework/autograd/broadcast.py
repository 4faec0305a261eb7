"""Undo broadcasting in a gradient: sum it back down to the shape of the input that was broadcast.

Floor 3: the engine needs it for user Functions whose gradient comes back broadcast (as torch's engine
does), and every binary op needs it in backward, so it lives here rather than in ops.
"""
from __future__ import annotations

from .. import backend


def sum_to(grad, shape: tuple):
    """Sum ``grad`` (a Tensor) down to ``shape``, undoing broadcasting (only when the shapes differ)."""
    gshape = grad._array.shape
    if gshape == tuple(shape):
        return grad
    if not shape:  # torch's sum_to: a plain sum() (SumBackward0 under create_graph)
        return grad.sum()
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if axes:
        grad = grad.sum(dim=axes, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    elif grad._array.shape != tuple(shape):
        grad = grad.reshape(shape)
    return grad


def sum_to_array(g, shape: tuple, dtype=None):
    """sum_to on a raw array (the engine's fast path), plus the cast back to the input's dtype."""
    if g.shape != tuple(shape):
        # as torch's sum_to: a plain sum to a 0-d shape, else a keepdim sum then a view only to drop leading dims
        # (whether the result is a view decides if the engine may later sum into it in place)
        lead = g.ndim - len(shape)
        if not shape:
            g = backend.get_array_module(g).asarray(g.sum())
        else:
            axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                              if s == 1 and g.shape[i + lead] != 1)
            if axes:  # torch's sum writes a fresh contiguous result
                g = backend.row_major(g.sum(axis=axes, keepdims=True))
            if lead:
                g = g.reshape(shape)
    if dtype is not None and g.dtype != dtype:
        # torch's to() keeps a dense gradient's strides, an expand's 0 in a size-1 dim too (AccumulateGrad then
        # copies rather than steals it: the leaf's grad has _version 1)
        cast = g.astype(dtype)
        g = backend.keep_size1_strides(cast, g) if backend.is_non_overlapping_and_dense(g) else cast
    return g
