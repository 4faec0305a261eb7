"""Diagonals and triangles: diagonal, diag, diag_embed, diagflat, trace, tril, triu, tril/triu_indices, fill_diagonal_."""
from __future__ import annotations

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.function import Function
from ... import dtypes
from ...backend import get_array_module, host_array_module
from ...creation import tensor as _tensor
from ...tensor import Tensor
from .._twin import inplace_twin
from .._util import wrap_dim
from ..conversion import _scalar
from .views import _no_copy_reshape


class Tril(Function):
    """out = a with the elements above the ``diagonal``-th diagonal zeroed (last two dims). Saves nothing."""

    node_name, array_forward = "TrilBackward0", True
    _upper = False

    @classmethod
    def _mask(cls, xp, shape, diagonal):
        rows, cols = shape[-2], shape[-1]
        keep = xp.tri(rows, cols, diagonal, dtype=bool)
        return ~xp.tri(rows, cols, diagonal - 1, dtype=bool) if cls._upper else keep

    @classmethod
    def forward(cls, ctx, a, diagonal=0):
        if a.ndim < 2:
            raise RuntimeError(f"{'triu' if cls._upper else 'tril'}: input tensor must have at least 2 dimensions")
        ctx.diagonal = diagonal
        xp = get_array_module(a)
        return xp.where(cls._mask(xp, a.shape, diagonal), a, xp.zeros((), a.dtype))

    @classmethod
    def backward(cls, ctx, grad):
        return cls.apply(grad, ctx.diagonal), None


class Triu(Tril):
    """out = a with the elements below the ``diagonal``-th diagonal zeroed (last two dims). Saves nothing."""

    node_name = "TriuBackward0"
    _upper = True


# tril_/triu_: torch's TrilBackward0/TriuBackward0 nodes (their backward is the out-of-place op on the gradient)
TrilInplace = inplace_twin(Tril, backward=classmethod(lambda cls, ctx, grad: (Tril.apply(grad, ctx.diagonal), None)))


TriuInplace = inplace_twin(Triu, backward=classmethod(lambda cls, ctx, grad: (Triu.apply(grad, ctx.diagonal), None)))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return Tril.apply(input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return Triu.apply(input, diagonal)


def tril_(input: Tensor, diagonal: int = 0) -> Tensor:
    return TrilInplace.apply(input, diagonal)


def triu_(input: Tensor, diagonal: int = 0) -> Tensor:
    return TriuInplace.apply(input, diagonal)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (over dims dim1, dim2 of the result) with input's last dim on their ``offset`` diagonal."""
    d1, d2 = wrap_dim(dim1, input.ndim + 1), wrap_dim(dim2, input.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, int(offset), d1, d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The matrix with input's flattened elements on its ``offset`` diagonal."""
    return DiagEmbed.apply(input.reshape(-1) if input.ndim != 1 else input, int(offset), 0, 1)


def _tri_indices(row: int, col: int, offset: int, upper: bool, dtype, device) -> Tensor:
    xp = host_array_module()
    r, c = xp.nonzero(xp.tri(row, col, offset - 1, dtype=bool) ^ True if upper else xp.tri(row, col, offset,
                                                                                               dtype=bool))
    out = xp.stack([r, c]).astype((dtype or dtypes.int64).np)
    return _tensor(out, device=device)  # on the default device when none is given, as torch's factories


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The 2 x N (row, column) indices of the lower triangle of a row x col matrix, row by row."""
    return _tri_indices(row, col, offset, False, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The 2 x N (row, column) indices of the upper triangle of a row x col matrix, row by row."""
    return _tri_indices(row, col, offset, True, dtype, device)


def _diagonal_view(xp, a, offset: int, d1: int, d2: int):
    """The writeable view of a's diagonal, as the last dim (numpy's a.diagonal() is read-only; torch's is not).

    Where dims d1, d2 merge into one without a copy (any contiguous layout), the diagonal is a basic slice of the
    merged dim, every ``n2 + 1``-th element: writeable on every backend. Otherwise a strided view.
    """
    n1, n2 = a.shape[d1], a.shape[d2]
    n = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
    rest = [i for i in range(a.ndim) if i not in (d1, d2)]
    t = xp.transpose(a, rest + [d1, d2])
    merged = _no_copy_reshape(t, t.shape[:-2] + (n1 * n2,))
    if merged is not None:
        start = offset if offset >= 0 else -offset * n2
        return merged[..., start::n2 + 1][..., :n]
    index = [slice(None)] * a.ndim
    if offset >= 0:
        index[d2] = slice(offset, None)
    else:
        index[d1] = slice(-offset, None)
    b = a[tuple(index)]
    shape = tuple(b.shape[i] for i in rest) + (n,)
    strides = tuple(b.strides[i] for i in rest) + (b.strides[d1] + b.strides[d2],)
    return xp.lib.stride_tricks.as_strided(b, shape=shape, strides=strides)


def _set_diagonal(xp, out, g, offset: int, d1: int, d2: int) -> None:
    """out's ``offset`` diagonal over d1, d2 = g (the diagonal as g's last dim), by index arrays: no view is
    written through (a strided view is read-only on some backends)."""
    n = g.shape[-1]
    rows = xp.arange(n) + (-offset if offset < 0 else 0)
    cols = xp.arange(n) + (offset if offset > 0 else 0)
    index = [slice(None)] * out.ndim
    index[d1], index[d2] = rows, cols
    # numpy's rule: the index arrays' dim takes their place when d1, d2 are adjacent, else it goes first
    position = min(d1, d2) if abs(d1 - d2) == 1 else 0
    out[tuple(index)] = xp.moveaxis(g, -1, position)


def _check_diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple:
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class Diagonal(Function):
    """out = the ``offset`` diagonal of a over dims d1, d2, as the last dim (a writeable view). Saves nothing."""

    node_name, array_forward, is_view = "DiagonalBackward0", True, True

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.shape, ctx.args = a.shape, (offset, d1, d2)
        return _diagonal_view(get_array_module(a), a, offset, d1, d2)

    @staticmethod
    def backward(ctx, grad):
        return DiagonalBackward.apply(grad, ctx.shape, *ctx.args), None, None, None


class DiagonalCopy(Diagonal):
    """torch.diag of a matrix: the diagonal as a new tensor (torch's diagonal_copy). Saves nothing."""

    node_name, is_view = "DiagonalBackward0_copy", False

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.shape, ctx.args = a.shape, (offset, d1, d2)
        return get_array_module(a).diagonal(a, offset, d1, d2).copy()


class DiagonalBackward(Function):
    """out = zeros of ``shape`` with g written on the diagonal (diagonal's backward). Saves nothing."""

    node_name, array_forward = "DiagonalBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        xp = get_array_module(g)
        out = xp.zeros(shape, dtype=g.dtype)
        _set_diagonal(xp, out, g, offset, d1, d2)
        return out

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, *ctx.args), None, None, None, None


class DiagEmbed(Function):
    """out = matrices with a's last dim on their ``offset`` diagonal over dims d1, d2, zeros elsewhere. Saves
    nothing."""

    node_name, array_forward = "DiagEmbedBackward0", True

    @staticmethod
    def forward(ctx, a, offset, d1=0, d2=1):
        ctx.offset, ctx.dims = offset, (d1, d2)
        n = a.shape[-1] + abs(offset)
        batch = list(a.shape[:-1])
        for d in sorted((d1, d2)):
            batch.insert(d, n)
        xp = get_array_module(a)
        out = xp.zeros(tuple(batch), dtype=a.dtype)
        _set_diagonal(xp, out, a, offset, d1, d2)
        return out

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, ctx.offset, *ctx.dims), None, None, None


class Trace(Function):
    """out = the sum of a matrix's diagonal (integers sum to int64). Saves nothing."""

    node_name, array_forward = "TraceBackward0", True

    @staticmethod
    def forward(ctx, a):
        if a.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
        ctx.shape = a.shape
        xp = get_array_module(a)
        total = xp.diagonal(a).sum(dtype=a.dtype if a.dtype.kind in "fV" else xp.int64)
        return xp.asarray(total)

    @staticmethod
    def backward(ctx, grad):
        # torch's trace_backward: zeros(rows * cols).index_fill_(0, diagonal positions, grad).view(sizes)
        filled = _DiagonalFill.apply(grad, ctx.shape)
        if filled._version_counter is not None:  # index_fill_ with a tensor value writes twice (its .item()'s)
            filled._version_counter.value += 2
        return filled.view(*ctx.shape)  # a view made after the writes (its grad_fn is ViewBackward0)


class _DiagonalFill(Function):
    """out = zeros(rows * cols) with the number g at a matrix's flat diagonal positions (trace's backward before
    its view; torch's index_fill_ with a tensor value). Saves nothing."""

    node_name, array_forward = "IndexFillBackward1", True

    @staticmethod
    def forward(ctx, g, shape):
        ctx.shape = shape
        rows, cols = shape
        out = get_array_module(g).zeros(rows * cols, dtype=g.dtype)
        out[0:min(rows, cols) * (cols + 1):cols + 1] = g
        return out

    @staticmethod
    def backward(ctx, grad):
        return Trace.apply(grad.view(*ctx.shape)), None  # the diagonal's sum


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _check_diagonal_dims(input.ndim, dim1, dim2)
    return Diagonal.apply(input, int(offset), d1, d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input: the matrix with it on the ``diagonal``-th diagonal; a 2-D input: that diagonal (a copy)."""
    if input.ndim == 1:
        return DiagEmbed.apply(input, int(diagonal))
    if input.ndim == 2:
        return DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def trace(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("trace", input):
        return autocast_run("trace", trace, input)
    return Trace.apply(input)


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """The main diagonal set to ``fill_value`` in place; a tall matrix with wrap=True restarts it every n+1 rows."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    if self.ndim > 2:
        index = tuple(Tensor._make(get_array_module(self._array).arange(n)) for _ in range(self.ndim))
        return self.index_put_(index, _scalar(self, fill_value))
    rows, cols = self.shape
    starts = range(0, rows, cols + 1) if wrap and rows > cols else [0]
    for r in starts:
        self[r:r + cols].diagonal().fill_(fill_value)
    return self
