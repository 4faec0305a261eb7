"""More shape ops: flip, roll, repeat, tile (copies); diagonal, movedim, swapdims, unflatten, broadcast_to (views);
diag, trace, outer.

Views share their input's storage and version counter as torch's do; none of these ops saves a tensor.
"""
from __future__ import annotations

from ..amp.state import autocast_applies, autocast_run, state as _amp
from ..autograd.function import Function
from ..backend import get_array_module
from ..tensor import Tensor
from . import arithmetic as _ar
from . import views as _views
from .views import _no_copy_reshape
from ._util import shape_args, wrap_dim


def _dims(dims, ndim: int) -> tuple:
    """An int or a sequence of dims -> a tuple of non-negative dims, in the order given."""
    if isinstance(dims, int):
        dims = (dims,)
    return tuple(wrap_dim(int(d), ndim) for d in dims)


class Flip(Function):
    """out = a reversed along ``dims`` (a copy). Saves nothing."""

    node_name, array_forward = "FlipBackward0", True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        xp = get_array_module(a)
        return xp.flip(a, axis=dims).copy()  # always new memory (ascontiguousarray kept a size-1 flip's view)

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None


class Roll(Function):
    """out = a rolled by ``shifts`` along ``dims`` (all elements, flattened, when dims is None). Saves nothing."""

    node_name, array_forward = "RollBackward0", True

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return get_array_module(a).roll(a, shifts, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        back = -ctx.shifts if ctx.dims is None else tuple(-s for s in ctx.shifts)
        return Roll.apply(grad, back, ctx.dims), None, None


class Repeat(Function):
    """out = a tiled ``sizes`` times along each dim (a copy; extra leading sizes add dims). Saves nothing."""

    node_name, array_forward = "RepeatBackward0", True

    @staticmethod
    def forward(ctx, a, sizes):
        if len(sizes) < a.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                               "of tensor")
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
        ctx.shape, ctx.sizes = a.shape, sizes
        return get_array_module(a).tile(a, sizes)

    @staticmethod
    def backward(ctx, grad):
        # out dim i (of the trailing ones) is (sizes[i], shape[i]) flattened: split it and sum the repeat axis
        lead = len(ctx.sizes) - len(ctx.shape)
        split = []
        for i, r in enumerate(ctx.sizes):
            split += [r] if i < lead else [r, ctx.shape[i - lead]]
        summed = tuple(range(lead)) + tuple(lead + 2 * j for j in range(len(ctx.shape)))
        g = grad.reshape(tuple(split))
        return (g.sum(dim=summed) if summed else g), None


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
        return _DiagonalFill.apply(grad, ctx.shape).view(*ctx.shape)


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


# ---- functional API ---------------------------------------------------------------------------------

def flip(input: Tensor, *args, dims=None) -> Tensor:
    """input reversed along ``dims`` (``flip(x, [0, 1])``, ``x.flip(0, 1)`` or ``dims=``): a copy."""
    dims = _dims(shape_args(args) if dims is None else dims, input.ndim)
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(input, dims)


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    if dims is None or (isinstance(dims, (tuple, list)) and not dims):
        if not isinstance(shifts, int):
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
            shifts = shifts[0]
        return Roll.apply(input, int(shifts), None)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    dims = _dims(dims, input.ndim)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(input, shifts, dims)


def repeat(input: Tensor, *sizes) -> Tensor:
    """input tiled ``sizes`` times (Tensor.repeat: torch has no top-level torch.repeat)."""
    return Repeat.apply(input, tuple(int(s) for s in shape_args(sizes)))


def tile(input: Tensor, *args, dims=None) -> Tensor:
    dims = tuple(int(s) for s in (shape_args(args) if dims is None else dims))
    dims = (1,) * (input.ndim - len(dims)) + dims  # fewer reps than dims: the leading dims are kept as they are
    return Repeat.apply(input, dims)


def broadcast_to(input: Tensor, size) -> Tensor:
    return _views.expand(input, tuple(size))


def movedim(input: Tensor, source, destination) -> Tensor:
    """input with dims ``source`` moved to positions ``destination``, the others in order (a permute view)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
                           f"number of dims as destination ({dst} dims)")
    n = input.ndim
    s = [wrap_dim(int(d), n) for d in src]
    d = [wrap_dim(int(d), n) for d in dst]
    for name, given, wrapped in (("source", src, s), ("destination", dst, d)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [i for i in range(n) if i not in s]
    for to, frm in sorted(zip(d, s)):
        order.insert(to, frm)
    return _views.Permute.apply(input, tuple(order))


moveaxis = movedim


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _views.transpose(input, dim0, dim1)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """input with dim ``dim`` split into ``sizes`` (one may be -1): a view."""
    d = wrap_dim(dim, input.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({n}) in the input tensor")
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    shape = tuple(input.shape)
    return _views.View.apply(input, shape[:d] + sizes + shape[d + 1:])


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


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """input[i] * vec2[j], as torch: input.reshape(-1, 1) * vec2 (MulBackward0)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return _ar.mul(_views.reshape(input, (-1, 1)), vec2)


ger = outer
