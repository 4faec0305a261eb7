"""Matrix products: mm, mv, dot, bmm and broadcasting matmul; each saves an input only if the other needs grad."""
from __future__ import annotations

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import c_type_name, check_device, sum_to
from .views import MatmulSqueeze


def _scalar_name(a) -> str:
    """torch's ScalarType name of an array's dtype: Float, Double, Long..."""
    return dtypes.from_numpy_dtype(a.dtype).legacy.replace("Tensor", "")




def _check_dtypes(a, b, kernel: str = "mm"):
    """Both operands must share a dtype; torch's message depends on the kernel that finds the mismatch."""
    if a.dtype == b.dtype:
        return
    if kernel == "bmm":
        raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}")
    if kernel == "mv":
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_scalar_name(b)}, "
                           f"{_scalar_name(a)}, and {_scalar_name(b)}")
    if kernel == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_scalar_name(a)} and "
                           f"{_scalar_name(b)}")
    names = [c_type_name(x.dtype) for x in (a, b)]
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")


def _save_crossed(ctx, a, b):
    need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    ctx.save_for_backward(a if need_b else None, b if need_a else None)


class Mm(Function):
    """out = a @ b for 2-D a, b. Saves a if b needs grad, b if a needs grad."""

    node_name, array_forward = "MmBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                               f"{b.shape[0]}x{b.shape[1]})")
        _check_dtypes(a, b)
        _save_crossed(ctx, a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = grad.mm(b.t()) if ctx.needs_input_grad[0] else None
        gb = a.t().mm(grad) if ctx.needs_input_grad[1] else None
        return ga, gb

    @staticmethod
    def backward_arrays(ctx, g):
        a, b = ctx.saved_arrays
        return (g @ b.T if ctx.needs_input_grad[0] else None, a.T @ g if ctx.needs_input_grad[1] else None)


class Mv(Function):
    """out = a @ v for 2-D a and 1-D v. Saves a if v needs grad, v if a needs grad."""

    node_name, array_forward = "MvBackward0", True

    @staticmethod
    def forward(ctx, a, v):
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                               f"vec ({v.shape[0]})")
        _check_dtypes(a, v, "mv")
        _save_crossed(ctx, a, v)
        return a @ v

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        ga = grad.unsqueeze(1) * v.unsqueeze(0) if ctx.needs_input_grad[0] else None
        gv = a.t().matmul(grad) if ctx.needs_input_grad[1] else None
        return ga, gv


class Dot(Function):
    """out = sum(a * b) for 1-D a, b. Saves a if b needs grad, b if a needs grad."""

    node_name, array_forward = "DotBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                               f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
                               "respectively")
        _check_dtypes(a, b, "dot")
        _save_crossed(ctx, a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Bmm(Function):
    """out[i] = a[i] @ b[i] for 3-D a, b. Saves a if b needs grad, b if a needs grad."""

    node_name, array_forward = "BmmBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 3 or b.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
        _check_dtypes(a, b, "bmm")
        _save_crossed(ctx, a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = grad.bmm(b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
        gb = a.transpose(1, 2).bmm(grad) if ctx.needs_input_grad[1] else None
        return ga, gb


class Matmul(Function):
    """out = a @ b with batch broadcasting (N-D). Saves a if b needs grad, b if a needs grad."""

    node_name, array_forward = "UnsafeViewBackward0", True

    @staticmethod
    def forward(ctx, a, b):
        if a.shape[-1] != b.shape[-2]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{b.shape[-3] if b.ndim > 2 else 1}, {a.shape[-1]}] but got: "
                               f"[{b.shape[-3] if b.ndim > 2 else 1}, {b.shape[-2]}].")
        _check_dtypes(a, b, "mm" if b.ndim == 2 else "bmm")  # torch folds a 2-D b into one mm
        _save_crossed(ctx, a, b)
        ctx.a_shape, ctx.b_shape = a.shape, b.shape
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = sum_to(grad.matmul(b.transpose(-1, -2)), ctx.a_shape) if ctx.needs_input_grad[0] else None
        gb = sum_to(a.transpose(-1, -2).matmul(grad), ctx.b_shape) if ctx.needs_input_grad[1] else None
        return ga, gb


def matmul(a, b):
    """torch.matmul's dispatch: dot, mv, mm, bmm, or broadcasting batched matmul."""
    check_device(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return Dot.apply(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return Mv.apply(a, b)
    if a.ndim == 1 and b.ndim == 2:
        return MatmulSqueeze.apply(Mm.apply(a.unsqueeze(0), b), 0)
    if a.ndim == 2 and b.ndim == 2:
        return Mm.apply(a, b)
    if b.ndim == 1:
        _check_dtypes(a._array, b._array, "mv")  # torch folds N-D @ 1-D into one mv
        return Matmul.apply(a, b.unsqueeze(-1)).squeeze(-1)
    if a.ndim == 1:
        return Matmul.apply(a.unsqueeze(0), b).squeeze(-2)
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] == b.shape[0]:
        return Bmm.apply(a, b)
    return Matmul.apply(a, b)


def mm(a, b):
    check_device(a, b)
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return Mm.apply(a, b)


def bmm(a, b):
    check_device(a, b)
    return Bmm.apply(a, b)


def mv(a, b):
    return Mv.apply(a, b)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return Dot.apply(a, b)


class Linear(Function):
    """out = x @ W.T + b in one op (nn.Linear's fast path). Saves x if W needs grad, W if x needs grad."""

    node_name, array_forward = "AddmmBackward0", True

    @staticmethod
    def forward(ctx, x, w, b=None):
        if x.shape[-1] != w.shape[1]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.size // x.shape[-1]}x{x.shape[-1]} "
                               f"and {w.shape[1]}x{w.shape[0]})")
        _check_dtypes(x, w)
        _save_crossed(ctx, x, w)
        out = x @ w.T
        if b is not None:
            out += b
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        gx = grad.matmul(w) if ctx.needs_input_grad[0] else None
        gw = gb = None
        if ctx.needs_input_grad[1]:
            g2 = grad.reshape(-1, grad.shape[-1])
            gw = g2.t().mm(x.reshape(-1, x.shape[-1]))
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = sum_to(grad, (grad.shape[-1],))
        return gx, gw, gb

    @staticmethod
    def backward_arrays(ctx, g):
        x, w = ctx.saved_arrays
        gx = g @ w if ctx.needs_input_grad[0] else None
        gw = gb = None
        if ctx.needs_input_grad[1]:
            gw = g.reshape(-1, g.shape[-1]).T @ x.reshape(-1, x.shape[-1])
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = g.reshape(-1, g.shape[-1]).sum(axis=0)
        return gx, gw, gb


class _LinearNoBias(Linear):
    node_name = "MmBackward0"


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight.T + bias, as one op (torch's addmm)."""
    if bias is None:
        return _LinearNoBias.apply(x, weight)
    return Linear.apply(x, weight, bias)
