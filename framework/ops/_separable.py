"""SeparableMap: a resampling written as one small matrix per spatial dim (the linear map behind padding, interpolation and adaptive average pooling), applied and transposed axis by axis."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor
from ._util import formula_zeros


def _apply_maps(xp, a, mats, picks=None, taps=None):
    """Apply one (out, in) matrix to each of the last len(mats) dims of a (a gather where ``picks`` gives one, a
    sum over each row's taps where ``taps`` does)."""
    k = len(mats)
    for i, m in enumerate(mats):
        axis = a.ndim - k + i
        if picks is not None and picks[i] is not None:
            a = xp.take(a, xp.asarray(picks[i]), axis=axis)
        elif taps is not None and taps[i] is not None:
            a = _sum_taps(xp, a, axis, *taps[i])
        else:
            a = xp.moveaxis(xp.moveaxis(a, axis, -1) @ m.T, -1, axis)
    return a


def _taps(m):
    """The host matrix ``m`` as each row's taps: (columns, weights, used), each (rows, most taps in a row); a row's
    spare places have column 0, weight 0 and used False. Summed by _sum_taps, an input reaches only the outputs it
    has a weight in, as in torch's kernels, where a matrix product spreads a NaN or inf to every output of its row
    (0 * inf is NaN). None for anything but a plain host matrix."""
    if type(m) is not np.ndarray or m.ndim != 2:
        return None
    hit = m != 0
    counts = hit.sum(axis=1)
    width = max(int(counts.max()), 1) if m.size else 1
    cols, weights = np.zeros((m.shape[0], width), dtype=np.int64), np.zeros((m.shape[0], width))
    used = np.zeros((m.shape[0], width), dtype=bool)
    rows, found = np.nonzero(hit)  # row by row, columns ascending: the order torch's kernels add them in
    place = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    cols[rows, place], weights[rows, place], used[rows, place] = found, m[rows, found], True
    ones = bool((weights[used] == 1).all())
    return cols, None if ones else weights, used


def _sum_taps(xp, a, axis, cols, weights, used):
    """``a`` mapped along ``axis`` by a matrix given as its rows' taps (see _taps): one gather (and multiply) per
    tap place, added up from +0.0 (as torch's kernels add into zeros); a row without taps is exactly 0."""
    shape = [1] * a.ndim
    shape[axis] = -1
    out = None
    for j in range(len(cols)):
        term = xp.take(a, cols[j], axis=axis)
        if weights is not None:
            term = term * weights[j].reshape(shape)
        if used[j] is not None:  # some rows have no tap at this place
            term = xp.where(used[j].reshape(shape), term, xp.zeros((), dtype=term.dtype))
        out = term if out is None else out + term
    out += 0  # torch adds into zeros: a sum of -0.0 terms is +0.0
    return out


def _picks(m):
    """The column each row picks, when the host matrix ``m`` has one 1 per row and zeros elsewhere (padding,
    nearest): applying it is then a gather, exact where the product would give 0 * inf = NaN. None otherwise.
    Only plain host matrices are read (the constants the ops build), never an array of the step's data."""
    if type(m) is not np.ndarray or m.ndim != 2 or not m.size:
        return None
    if not (((m == 0) | (m == 1)).all() and (m.sum(axis=1) == 1).all()):
        return None
    return m.argmax(axis=1)


class SeparableMap(Function):
    """out = x mapped by a fixed matrix along each of the last dims. Saves the matrices (and x for padding).

    ``grad_mats``, when given, are the matrices the backward applies instead of the transposes: torch's nearest
    kernels pick their backward's source pixels with float32 arithmetic, which can differ from the forward's."""

    array_forward = True
    saves_input = False  # torch's reflection/replication pad backwards take the input; upsampling's do not
    # sum each row's taps (gathers) instead of a matrix product, so a NaN/inf reaches only the outputs it has a weight
    # in: for nearest's backward (a cheap sum of 1-weight taps). The other maps stay matrix products, several
    # times faster than tap sums (see tests/test_special_values.py's xfails)
    exact_taps = False

    @classmethod
    def forward(cls, ctx, a, mats, grad_mats=None):
        xp = get_array_module(a)
        picks = [_picks(m) for m in mats]  # read on the host, before the matrices go to a's device
        taps = [None if p is not None or not cls.exact_taps else _device_taps(xp, _taps(m), a.dtype)
                for m, p in zip(mats, picks)]
        ctx.host_mats = mats
        ctx.grad_mats = [m.T for m in mats] if grad_mats is None else grad_mats
        mats = [xp.asarray(m, dtype=a.dtype) for m in mats]
        ctx.mats = mats
        if cls.saves_input:
            ctx.save_for_backward(a)
        return xp.ascontiguousarray(_apply_maps(xp, a, mats, picks, taps))

    @classmethod
    def backward(cls, ctx, grad):
        nones = (None,) * (len(ctx.needs_input_grad) - 1)
        if cls.saves_input:  # (unpacking checks that the input was not modified in place since forward)
            (a,) = ctx.saved_tensors
            return (_backward_op(cls).apply(grad, a, [m.T for m in ctx.mats]),) + nones
        # the backward's own backward applies this map's matrices again (torch's double backward reruns the forward)
        return (_transposed_op(cls).apply(grad, ctx.grad_mats, ctx.host_mats),) + nones


def _device_taps(xp, taps, dtype):
    """_taps' columns, weights and use, per tap place, on the device of ``xp`` (the weights in ``dtype``; no use
    mask where every row has a tap there, no weights where all are 1)."""
    if taps is None:
        return None
    cols, weights, used = taps
    places = range(cols.shape[1])
    return ([xp.asarray(cols[:, j]) for j in places],
            None if weights is None else [xp.asarray(weights[:, j], dtype=dtype) for j in places],
            [None if used[:, j].all() else xp.asarray(used[:, j]) for j in places])


_TRANSPOSED_OPS: dict = {}


def _transposed_op(cls: type) -> type:
    """The gradient of the map ``cls``: the same maps transposed, named like torch's double-backward node
    (UpsampleBilinear2DBackwardBackward0...); its own gradient is ``cls`` again."""
    back = cls.__dict__.get("back_of")
    if back is not None:
        return back
    op = _TRANSPOSED_OPS.get(cls)
    if op is None:
        name = getattr(cls, "node_name", "")
        node = name.replace("Backward0", "BackwardBackward0") if name.endswith("Backward0") else "SeparableMapBackward"
        op = _TRANSPOSED_OPS[cls] = type(cls.__name__ + "Grad", (SeparableMap,), {
            "node_name": node, "back_of": cls, "saves_input": False,
            "exact_taps": name.startswith("UpsampleNearest")})
    return op


class _TransposedOfInput(Function):
    """out = g mapped by the transposed maps: the backward of a map whose torch backward also takes its input
    (reflection/replication pad, adaptive_avg_pool2d), so under create_graph it is a node with edges (g, input),
    torch's ``*BackwardBackward0``, whose gradient in the input is zero. Saves nothing (the input's shape)."""

    array_forward = True
    forward_op: type = SeparableMap

    @staticmethod
    def forward(ctx, g, a, mats):
        ctx.mats, ctx.a_meta = mats, (a.shape, a.dtype)
        xp = get_array_module(g)
        return xp.ascontiguousarray(_apply_maps(xp, g, mats))

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        gg = ctx._forward_cls.forward_op.apply(grad, [m.T for m in ctx.mats]) if needs[0] else None
        # torch's zeros_like(self), empty_like().zero_(): _version 1 (fuzz seed 5700308)
        ga = formula_zeros(grad, tuple(ctx.a_meta[0])) if needs[1] else None
        return gg, ga, None


_BACKWARD_OPS: dict = {}


def _backward_op(cls: type) -> type:
    """The _TransposedOfInput subclass for the map ``cls`` (named like torch's double-backward node)."""
    op = _BACKWARD_OPS.get(cls)
    if op is None:
        node = cls.node_name.replace("Backward0", "BackwardBackward0")
        op = _BACKWARD_OPS[cls] = type(cls.__name__ + "Grad", (_TransposedOfInput,),
                                       {"node_name": node, "forward_op": cls})
    return op


def _named(name: str) -> type:
    saves = name.startswith(("ReflectionPad", "ReplicationPad"))
    return type(name.replace("Backward0", ""), (SeparableMap,), {"node_name": name, "saves_input": saves})


_NODES = {}


def _node(name: str) -> type:
    if name not in _NODES:
        _NODES[name] = _named(name)
    return _NODES[name]


def _selection(src: np.ndarray, n_in: int) -> np.ndarray:
    m = np.zeros((len(src), n_in))
    m[np.arange(len(src)), src] = 1.0
    return m
