"""More of torch.Tensor's surface: unfold (sliding windows as a view), sum_to_size, ravel, fill_diagonal_, the
in-place twins of sign/reciprocal/rsqrt/cumsum/cumprod, the conjugate-transpose views (H, mH, adjoint) and the
complex-number queries a real tensor answers trivially (conj, real, is_complex...), storage_offset and friends."""
from __future__ import annotations

from .. import backend, dtypes
from ..autograd.broadcast import sum_to
from ..autograd.function import Function, OriginalSelf
from ..backend import get_array_module
from ..tensor import Tensor
from ._util import check_inplace_cast, wrap_dim
from .arithmetic import Reciprocal
from .sorting import Cumprod, Cumsum
from .unary import Rsqrt, Sign
from .unary_inplace import _inplace


class Unfold(Function):
    """out = every window of ``size`` elements, ``step`` apart, along ``dim`` (a new last dim): a view of a.
    Saves nothing."""

    node_name, array_forward, is_view = "UnfoldBackward0", True, True

    @staticmethod
    def forward(ctx, a, dim, size, step):
        ctx.conf = (a.shape, dim, size, step)
        xp = get_array_module(a)
        if a.ndim == 0:
            return xp.lib.stride_tricks.as_strided(a, (1,), (a.itemsize,))
        n = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (n,) + a.shape[dim + 1:] + (size,)
        strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + (a.strides[dim],)
        return xp.lib.stride_tricks.as_strided(a, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return UnfoldBackward.apply(grad, *ctx.conf), None, None, None


class UnfoldBackward(Function):
    """out = zeros of the input's shape with each window's gradient added back where the window was (torch's
    unfold_backward). Saves nothing; its own gradient is the unfold of the incoming one."""

    node_name, array_forward = "UnfoldBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.conf = (dim, size, step)
        xp = get_array_module(g)
        if not shape:
            return g.reshape(())
        out = xp.zeros(shape, dtype=g.dtype)
        n = g.shape[dim]
        index = [slice(None)] * len(shape)
        for k in range(size):  # window element k of every window: one strided slice of the input
            index[dim] = slice(k, k + step * (n - 1) + 1, step)
            if step >= size:  # windows apart: each element gets one value, copied (a -0.0 stays -0.0, as torch's)
                out[tuple(index)] = g[..., k]
            else:  # overlapping windows: summed from +0.0, as torch's
                out[tuple(index)] += g[..., k]
        return out

    @staticmethod
    def backward(ctx, grad):
        return Unfold.apply(grad, *ctx.conf), None, None, None, None


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: the windows of ``size`` along ``dimension``, ``step`` apart, as a view."""
    dim = wrap_dim(dimension, max(self.ndim, 1))
    length = self.shape[dim] if self.ndim else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(self, dim, int(size), int(step))


def sum_to_size(self: Tensor, *size) -> Tensor:
    """self summed down to ``size`` (which self's shape must be expandable from), as a broadcast's gradient."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = self.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(self.shape)}}}.")
    return sum_to(self, shape)


def ravel(input: Tensor) -> Tensor:
    """input flattened to 1-D: a view when it is contiguous, else a copy (torch's contiguous().view(-1))."""
    return input.contiguous().view(-1)


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


def _scalar(like: Tensor, value) -> Tensor:
    return Tensor._make(get_array_module(like._array).asarray(value, dtype=like._array.dtype))


def _matrix_view(name: str, batched: bool):
    """x.H (2-D only), x.mH and x.adjoint() (batches too): the transpose of the last two dims, a view (no complex
    dtypes here, so the conjugate changes nothing)."""

    def view(self: Tensor) -> Tensor:
        if (self.ndim != 2) if not batched else (self.ndim < 2):
            what = "matrices (2-D tensors)" if not batched else "matrices or batches of matrices"
            raise RuntimeError(f"tensor.{name} is only supported on {what}. Got {self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    return view


def imag(self: Tensor):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def storage_offset(self: Tensor) -> int:
    """Where self's first element sits in its storage, in elements."""
    root = (self._base if self._base is not None else self)._array
    if not self._array.size:
        return 0
    return (backend.data_ptr(self._array) - backend.data_ptr(root)) // self._array.itemsize


def is_nonzero(self: Tensor) -> bool:
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False):
    """A new uninitialised tensor with the given sizes and strides (in elements) over a storage of its own."""
    size, stride = tuple(size), tuple(stride)
    extent = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = self.new_empty((extent,), dtype=dtype, device=device)
    out = base.as_strided(size, stride) if extent else base.new_empty(size)
    out = out.detach()  # (a fresh tensor, no view history)
    return out.requires_grad_(requires_grad)


SignInplace = _inplace(Sign, "SignInplace")
ReciprocalInplace = _inplace(Reciprocal, "ReciprocalInplace")
RsqrtInplace = _inplace(Rsqrt, "RsqrtInplace")
CumsumInplace = _inplace(Cumsum, "CumsumInplace")


class CumprodInplace(Cumprod):
    """In-place cumprod_: saves a copy of the old a (torch's original_self) and the result (a itself now)."""

    node_name, inplace = "CumprodBackward0", True

    @staticmethod
    def forward(ctx, a, dim):
        out = Cumprod.forward(ctx, a, dim)
        if out.dtype != a.dtype:
            check_inplace_cast(out.dtype, a.dtype)
        ctx.save_for_backward(OriginalSelf(a.copy()), a)
        a[...] = out
        return a


def cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype}, but got {self.dtype} instead")
    return CumsumInplace.apply(self, wrap_dim(dim, max(self.ndim, 1)))


def cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype}, but got {self.dtype} instead")
    return CumprodInplace.apply(self, wrap_dim(dim, max(self.ndim, 1)))


def is_signed(self: Tensor) -> bool:
    return self._array.dtype.kind in "if"


CONVERSIONS = {"byte": dtypes.uint8, "char": dtypes.int8, "short": dtypes.int16}
