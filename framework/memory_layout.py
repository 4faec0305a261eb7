"""Memory layouts of new results, as torch chooses them: the strides a copy, a cast or a reduction writes.

Observable through ``stride()``, ``is_contiguous()`` and whether a later ``view()`` is allowed.  NumPy's own
choices differ: ``copy()`` is always C-ordered, ``astype`` and reductions follow the input's memory order."""
from __future__ import annotations

import functools

from .backend import empty_strided, get_array_module, keep_size1_strides, row_major, torch_strides
from .dtypes import channels_last, contiguous_format


def preserve_format_order(shape: tuple, strides: tuple) -> tuple:
    """The dims from outermost to innermost in torch's preserve_format copy of an array with these strides.

    torch's infer_dense_strides (c10/core/TensorImpl, the same stable insertion sort as TensorIterator): dims sorted
    by stride, a tie put the smaller dim inner, and a stride-0 dim (an expand) keeps its place in the contiguous
    order.  For a non-overlapping dense array this is its own dim order, so its strides are kept (size-1 dims
    aside, whose strides nothing reads).
    """
    return iterator_order(shape, (strides,))


def iterator_order(shape: tuple, operand_strides) -> tuple:
    """The dims from outermost to innermost of an elementwise result, as torch's TensorIterator orders them.

    ``operand_strides``: each operand's strides broadcast to ``shape`` (0 where it is broadcast), in argument order.
    For each pair of dims the first operand whose two strides are non-zero and differ decides; equal strides put
    the larger dim outer, or leave the pair to the next operand (reorder_dimensions' insertion sort).  NumPy lets C
    order win a conflict instead, so ``a * b`` with a column-major ``a`` and a row-major ``b`` differ.
    """
    perm = list(range(len(shape) - 1, -1, -1))  # innermost first, as torch's loop

    def after(d0: int, d1: int) -> bool | None:  # True: d0 goes inner of d1; None: no operand orders them
        for strides in operand_strides:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return s0 > s1
            if shape[d0] > shape[d1]:
                return True
        return None

    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            swap = after(perm[d0], perm[d1])
            if swap:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif swap is False:
                break
    return tuple(reversed(perm))


def broadcast_strides(a, shape: tuple) -> tuple:
    """``a``'s strides as an operand broadcast to ``shape``: 0 for the dims it is broadcast along."""
    pad = len(shape) - a.ndim
    return (0,) * pad + tuple(0 if n == 1 and m != 1 else st for n, st, m in zip(a.shape, a.strides, shape[pad:]))


def iterator_layout(out, operands):
    """``out`` (an elementwise result NumPy laid out) in the layout torch's TensorIterator gives it.

    Operands that are not arrays (Python scalars) order nothing.  Row-major operands give a row-major result, which
    NumPy's already is: returned at once (the hot path of a backward kernel fed contiguous gradients)."""
    if out.ndim < 2:
        return out
    if out.flags.c_contiguous:
        for x in operands:
            if getattr(x, "ndim", 0) and not x.flags.c_contiguous:
                break
        else:
            return out
    operands = [x for x in operands if getattr(x, "ndim", 0)]
    order = iterator_order(out.shape, [broadcast_strides(x, out.shape) for x in operands])
    if order == preserve_format_order(out.shape, out.strides):
        return out
    return copy_in_order(out, order)


def elementwise_layout(out, operands):
    """``out``, an elementwise result of ``operands`` (arrays, numbers, anything else is skipped), in torch's layout.

    Only operands of 2+ dims can order a pair of dims (a 1-d or 0-d one is broadcast along all but one), and when
    they are all row-major torch's order is NumPy's: that common case returns at once."""
    if type(out) is tuple or out.ndim < 2:
        return out
    if out.flags.c_contiguous:
        for x in operands:
            if getattr(x, "ndim", 0) > 1 and not x.flags.c_contiguous:
                break
        else:
            return out
    return iterator_layout(out, [x for x in operands if getattr(x, "ndim", 0) > 1])


def laid_out_by_operands(forward):
    """Decorates an elementwise op's ``forward(ctx, *operands)``: its result takes torch's TensorIterator layout
    from the operands, in argument order (NumPy's lets C order win where the operands disagree)."""
    @functools.wraps(forward)
    def wrapped(*args):
        return elementwise_layout(forward(*args), args)
    return wrapped


def copy_preserving_layout(a, np_dtype=None):
    """A copy of ``a`` (cast to np_dtype if given) in torch's preserve_format layout: clone() and to(dtype).

    A transposed input gives a transposed copy, as torch's; a non-dense one (a slice with steps, an expand) a dense
    copy with the same dim order.  Laid out by copying a transposed view in C order, then transposing back.
    """
    if not a.size:  # an empty tensor counts as dense: torch's copy keeps its strides exactly (zeros too)
        out = a.copy() if np_dtype is None else a.astype(np_dtype)
        return empty_strided(out, tuple(s * out.itemsize for s in torch_strides(a)))
    order = tuple(range(a.ndim)) if a.flags.c_contiguous else preserve_format_order(a.shape, a.strides)
    if order == tuple(range(a.ndim)):
        return keep_size1_strides(a.copy() if np_dtype is None else a.astype(np_dtype, order="C"), a)
    moved = a.transpose(order)
    copied = moved.copy() if np_dtype is None else moved.astype(np_dtype, order="C")
    inverse = [0] * a.ndim
    for pos, d in enumerate(order):
        inverse[d] = pos
    return keep_size1_strides(copied.transpose(inverse), a)


def contiguous_result(out):
    """``out`` C-contiguous: torch's reductions write a fresh contiguous tensor, while numpy's reduce in the input's
    memory order (a reduction of a transposed array comes out transposed), and keep a kept dim's old stride:
    torch's strides exactly, a size-1 dim's too (a keepdim sum of a transposed array: (1, 1), NumPy's (1, 3))."""
    return row_major(out)


def channels_last_like(shape: tuple, strides: tuple) -> bool:
    """torch's is_channels_last_strides_2d/3d: a 4-D (5-D) layout whose strides order the dims C, W, H, (D,) N from
    the innermost, which is what its suggest_memory_format() calls ChannelsLast (strides in elements)."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return False
    order = (1, 3, 2, 0) if len(shape) == 4 else (1, 4, 3, 2, 0)
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:  # ambiguous (N111 and the like): torch falls back to contiguous
            return False
        low = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def channels_last_copy(a):
    """``a`` (4-D or 5-D) copied into the channels-last layout: C innermost, then W, H (and D)."""
    to_last = (0, 2, 3, 1) if a.ndim == 4 else (0, 2, 3, 4, 1)
    back = (0, 3, 1, 2) if a.ndim == 4 else (0, 4, 1, 2, 3)
    return a.transpose(to_last).copy().transpose(back)


# ---- memory formats (torch.channels_last / channels_last_3d) ------------------------------------------------
# the dims from outermost to innermost of each format's layout, and the rank it needs
_FORMAT_ORDER = {"channels_last": (0, 2, 3, 1), "channels_last_3d": (0, 2, 3, 4, 1)}


_FORMAT_RANK = {"channels_last": 4, "channels_last_3d": 5}


def check_format_rank(fmt, ndim: int) -> None:
    """torch's check that a channels-last format fits the tensor's rank."""
    rank = _FORMAT_RANK.get(fmt.name)
    if rank is not None and ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")


def format_order(fmt, ndim: int) -> tuple:
    """The dims from outermost to innermost of ``fmt``'s layout (C order for contiguous_format)."""
    return _FORMAT_ORDER.get(fmt.name, tuple(range(ndim)))


def inverse_order(order) -> tuple:
    inverse = [0] * len(order)
    for pos, d in enumerate(order):
        inverse[d] = pos
    return tuple(inverse)


def copy_in_order(a, order, np_dtype=None):
    """A copy of ``a`` (cast to np_dtype if given) laid out with dims ``order`` from outermost to innermost:
    an empty array with those strides, then filled (NHWC storage behind NCHW sizes for channels_last)."""
    if tuple(order) == tuple(range(a.ndim)):
        return a.copy() if np_dtype is None else a.astype(np_dtype, order="C")
    # an array of its own (torch's empty_strided), not a transposed view of a copy: an engine's gradient laid out
    # so is then summed into in place, as torch's (fuzz seed 4303053)
    xp = get_array_module(a)
    shape = [a.shape[d] for d in order]
    laid_out = xp.empty(shape, dtype=a.dtype if np_dtype is None else np_dtype).transpose(inverse_order(order))
    out = xp.empty_like(laid_out, order="K")
    out[...] = a
    return keep_size1_strides(out, laid_out)  # empty_like picks its own strides for size-1 dims: torch's are these


def is_contiguous_as(fmt, shape: tuple, strides: tuple) -> bool:
    """torch's is_contiguous(memory_format): strides (in elements) dense in the format's dim order, size-1 dims
    skipped; a channels-last format on another rank answers False; preserve_format asks about C order."""
    if fmt.name in _FORMAT_ORDER:
        if len(shape) != _FORMAT_RANK[fmt.name]:
            return False
        expected = 1
        for d in reversed(_FORMAT_ORDER[fmt.name]):
            if shape[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= shape[d]
        return True
    if 0 in shape:
        return True
    expected = 1
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggest_memory_format(shape: tuple, strides: tuple) -> str:
    """torch's Tensor.suggest_memory_format: 'channels_last' or 'channels_last_3d' where the strides order the dims
    as that format does (ambiguous size-1 cases fall back to contiguous, as torch's), else 'contiguous_format'."""
    for name, order in _FORMAT_ORDER.items():
        if len(shape) == _FORMAT_RANK[name] and strides[1] != 0 and _strides_like(order, shape, strides):
            return name
    return "contiguous_format"


def _strides_like(order, shape, strides) -> bool:
    # c10's is_channels_last_strides_2d_s4 / _3d_s5: innermost to outermost, strides non-decreasing
    low = 0
    for d in reversed(order):
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def _covers(a: int, b: int) -> bool:
    """torch's ge() of dim_order: a stride or size at least b, or a multiple of it (0 is covered by anything)."""
    return b == 0 or (a != 0 and (a >= b or a % b == 0))


def dim_order(shape: tuple, strides: tuple) -> tuple:
    """(dims outermost to innermost, ambiguous) as torch's Tensor.dim_order computes them (the elementwise-output
    permutation of torch._prims_common): C-contiguous and channels-last tensors answer at once; otherwise an
    insertion sort innermost-first where a stride-0 dim decides nothing and equal strides put the longer dim outer.
    ``ambiguous``: some neighbouring pair of the result is not strictly ordered."""
    ndim = len(shape)
    if ndim < 2:
        return tuple(range(ndim)), False
    dense, last = is_contiguous_as(contiguous_format, shape, strides), is_contiguous_as(channels_last, shape, strides)
    if dense and not last:
        return tuple(range(ndim)), False
    if last and not dense:
        return (0, *range(2, ndim), 1), False

    def order(a: int, b: int) -> int:  # 1: a belongs inside b, -1: outside, 0: undecided
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if _covers(shape[b], shape[a]) else 1
        return -1 if _covers(sb, sa) else 1

    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        j = i
        for k in range(i - 1, -1, -1):
            c = order(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    ambiguous = any(order(perm[i], perm[i + 1]) != -1 for i in range(ndim - 1))
    return tuple(reversed(perm)), ambiguous
