"""The functional API (``framework.exp(x)``, ``framework.matmul(a, b)``...) and the Tensor methods built on it.

Each function picks the op class (``arithmetic.Mul``...) and calls ``.apply``; argument handling that
torch does in its Python/C++ bindings (scalars, dims, keyword forms) happens here, not in the ops.
"""
from __future__ import annotations

import collections

from .. import backend as _backend
from ..autograd.function import Function as _Function
from ..tensor import Tensor

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from . import activation, arithmetic as ar, combine, conversion, indexing, linalg, reduction as red, unary as un, \
    views

_Number = (int, float, bool, np.number)


def _t(x):
    """Accept numpy arrays and lists where a tensor is expected."""
    if isinstance(x, Tensor) or isinstance(x, _Number):
        return x
    from ..creation import tensor

    return tensor(x)


def _check_device(a, b) -> None:
    if _backend._cupy is None:  # no GPU in use: everything is on the CPU
        return
    if isinstance(a, Tensor) and isinstance(b, Tensor) and \
            a.ndim and b.ndim and a.device != b.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{b.device} and {a.device}!")


# ---- arithmetic -------------------------------------------------------------------------------------

def add(a, b, *, alpha=1):
    """a + alpha * b."""
    a, b = _t(a), _t(b)
    if not isinstance(a, Tensor):
        a, b = b, a
    _check_device(a, b)
    return ar.Add.apply(a, b, alpha) if alpha != 1 else ar.Add.apply(a, b)


def sub(a, b, *, alpha=1):
    """a - alpha * b."""
    a, b = _t(a), _t(b)
    if not isinstance(a, Tensor):
        return ar.Rsub.apply(b * alpha if alpha != 1 else b, a)
    _check_device(a, b)
    return ar.Sub.apply(a, b, alpha) if alpha != 1 else ar.Sub.apply(a, b)


def mul(a, b):
    a, b = _t(a), _t(b)
    if not isinstance(a, Tensor):
        a, b = b, a
    _check_device(a, b)
    return ar.Mul.apply(a, b)


def div(a, b, *, rounding_mode=None):
    a, b = _t(a), _t(b)
    if rounding_mode is not None:
        with no_grad():
            q = ar.Div.apply(a, b) if isinstance(a, Tensor) else ar.Mul.apply(reciprocal(b), a)
            return q.floor() if rounding_mode == "floor" else q.trunc()
    if not isinstance(a, Tensor):  # scalar / tensor: torch computes reciprocal(b) * a
        return ar.Mul.apply(reciprocal(b), a)
    _check_device(a, b)
    return ar.Div.apply(a, b)


true_divide = divide = div
multiply = mul
subtract = sub


def neg(a):
    return ar.Neg.apply(a)


negative = neg


def pow(a, b):
    a, b = _t(a), _t(b)
    if not isinstance(a, Tensor):
        return ar.RPow.apply(b, a)
    if isinstance(b, Tensor):
        _check_device(a, b)
        return ar.PowTensor.apply(a, b)
    return ar.PowScalar.apply(a, b)



class Reciprocal(_Function):
    """out = 1 / a. Saves out."""

    node_name, array_forward = "ReciprocalBackward0", True

    @staticmethod
    def forward(ctx, a):
        from .unary import _float

        with _backend.errstate(_backend.get_array_module(a), divide="ignore"):
            out = 1 / _float(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * out * out


def reciprocal(a):
    return Reciprocal.apply(a)


def matmul(a, b):
    _check_device(a, b)
    return linalg.matmul(a, b)


def mm(a, b):
    _check_device(a, b)
    return linalg.mm(a, b)


def bmm(a, b):
    _check_device(a, b)
    return linalg.Bmm.apply(a, b)


def mv(a, b):
    return linalg.Mv.apply(a, b)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return linalg.Dot.apply(a, b)


# ---- elementwise ------------------------------------------------------------------------------------

def abs(a):
    return un.Abs.apply(a)


def sign(a):
    return un.Sign.apply(a)


def exp(a):
    return un.Exp.apply(a)


def log(a):
    return un.Log.apply(a)


def sqrt(a):
    return un.Sqrt.apply(a)


class Rsqrt(_Function):
    """out = 1 / sqrt(a). Saves out."""

    node_name, array_forward = "RsqrtBackward0", True

    @staticmethod
    def forward(ctx, a):
        from .unary import _float

        with _backend.errstate(_backend.get_array_module(a), divide="ignore", invalid="ignore"):
            out = 1 / _backend.get_array_module(a).sqrt(_float(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out * out * out * -0.5


def rsqrt(a):
    return Rsqrt.apply(a)


def sin(a):
    return un.Sin.apply(a)


def cos(a):
    return un.Cos.apply(a)


def tanh(a):
    return un.Tanh.apply(a)


def sigmoid(a):
    return un.Sigmoid.apply(a)


def relu(a):
    return un.Relu.apply(a)


def leaky_relu(a, negative_slope: float = 0.01):
    return un.LeakyRelu.apply(a, negative_slope)


def clamp(a, min=None, max=None):
    return un.Clamp.apply(a, min, max)


clip = clamp


def softmax(a, dim: int, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return activation.Softmax.apply(a, dim)


def log_softmax(a, dim: int, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return activation.LogSoftmax.apply(a, dim)


def where(cond, a=None, b=None):
    if a is None and b is None:
        return tuple(Tensor._make(i) for i in np.nonzero(cond._array))
    return combine.Where.apply(cond, _t(a), _t(b))


def masked_fill(a, mask, value):
    return combine.MaskedFill.apply(a, mask._array, value.item() if hasattr(value, "item") else value)


# ---- reductions ------------------------------------------------------------------------------------

values_indices = collections.namedtuple("return_types", ["values", "indices"])


def sum(a, dim=None, keepdim: bool = False, *, dtype=None):
    np_dt = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    if dim is None:
        return red.SumAll.apply(a, np_dt) if np_dt is not None else red.SumAll.apply(a)
    return red.Sum.apply(a, dim, keepdim, np_dt)


def mean(a, dim=None, keepdim: bool = False, *, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    if dim is None:
        return red.MeanAll.apply(a)
    return red.Mean.apply(a, dim, keepdim)


def _max_min(a, dim, keepdim, other, all_cls, dim_cls, fn_name):
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return maximum(a, other) if fn_name == "max" else minimum(a, other)
    if dim is None:
        return all_cls.apply(a)
    v, i = dim_cls.apply(a, dim, keepdim)
    return values_indices(v, i)


def max(a, dim=None, keepdim: bool = False, other=None):
    return _max_min(a, dim, keepdim, other, red.MaxAll, red.MaxDim, "max")


def min(a, dim=None, keepdim: bool = False, other=None):
    return _max_min(a, dim, keepdim, other, red.MinAll, red.MinDim, "min")


class Maximum(_Function):
    """out = elementwise max(a, b); ties split the gradient in half, as torch. Saves a and b."""

    node_name, array_forward, _pick = "MaximumBackward0", True, "maximum"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.a_meta, ctx.b_meta = (a.shape, a.dtype), (b.shape, b.dtype)
        return getattr(_backend.get_array_module(a), ctx._forward_cls._pick)(a, b)

    @staticmethod
    def backward(ctx, grad):
        from ._util import grad_for

        a, b = ctx.saved_tensors
        a_wins = (a > b) if ctx._forward_cls._pick == "maximum" else (a < b)
        share = a_wins.float().to(grad.dtype) + (a == b).to(grad.dtype) * 0.5
        ga = grad_for(grad * share, *ctx.a_meta) if ctx.needs_input_grad[0] else None
        gb = grad_for(grad * (1 - share), *ctx.b_meta) if ctx.needs_input_grad[1] else None
        return ga, gb


class Minimum(Maximum):
    """out = elementwise min(a, b); ties split the gradient in half, as torch. Saves a and b."""

    node_name, _pick = "MinimumBackward0", "minimum"


def maximum(a, b):
    return Maximum.apply(a, b)


def minimum(a, b):
    return Minimum.apply(a, b)


def amax(a, dim=(), keepdim: bool = False):
    return red.Amax.apply(a, dim, keepdim)


def amin(a, dim=(), keepdim: bool = False):
    return red.Amin.apply(a, dim, keepdim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return red.Var.apply(a, dim, _correction(unbiased, correction), keepdim)


def std(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return red.Std.apply(a, dim, _correction(unbiased, correction), keepdim)


def argmax(a, dim=None, keepdim: bool = False):
    if dim is None:
        return Tensor._make(_backend.get_array_module(a._array).asarray(a._array.argmax()))
    return max(a.detach(), dim, keepdim).indices


def argmin(a, dim=None, keepdim: bool = False):
    if dim is None:
        return Tensor._make(_backend.get_array_module(a._array).asarray(a._array.argmin()))
    return min(a.detach(), dim, keepdim).indices


# ---- shape ----------------------------------------------------------------------------------------

def _shape_args(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def reshape(a, *shape):
    return views.reshape(a, _shape_args(shape))


def view(a, *shape):
    if len(shape) == 1 and isinstance(shape[0], (dtypes.dtype,)):
        raise NotImplementedError("view(dtype) is not supported")
    return views.View.apply(a, _shape_args(shape))


def transpose(a, dim0: int, dim1: int):
    nd = a.ndim
    return views.Transpose.apply(a, dim0 % nd if nd else 0, dim1 % nd if nd else 0)


swapaxes = transpose


def t(a):
    return views.T.apply(a)


def permute(a, *dims):
    return views.Permute.apply(a, _shape_args(dims))


def squeeze(a, dim=None):
    if dim is None:
        return views.SqueezeAll.apply(a)
    return views.Squeeze.apply(a, dim)


def unsqueeze(a, dim: int):
    return views.Unsqueeze.apply(a, dim)


def expand(a, *shape):
    return views.Expand.apply(a, _shape_args(shape))


def expand_as(a, other):
    return views.Expand.apply(a, tuple(other.shape))


def flatten(a, start_dim: int = 0, end_dim: int = -1):
    if a.ndim == 0:
        return reshape(a, 1)
    s, e = start_dim % a.ndim, end_dim % a.ndim
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a
    shape = a.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(a, tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


def narrow(a, dim: int, start: int, length: int):
    return indexing.Slice.apply(a, dim % a.ndim, slice(start, start + length))


def select(a, dim: int, index: int):
    return indexing.Select.apply(a, dim % a.ndim, index)


def unbind(a, dim: int = 0):
    return tuple(select(a, dim, i) for i in range(a.shape[dim]))


def split(a, split_size, dim: int = 0):
    n = a.shape[dim]
    sizes = [split_size] * (n // split_size) + ([n % split_size] if n % split_size else []) \
        if isinstance(split_size, int) else list(split_size)
    out, start = [], 0
    for s in sizes:
        out.append(narrow(a, dim, start, s))
        start += s
    return tuple(out)


def chunk(a, chunks: int, dim: int = 0):
    n = a.shape[dim]
    return split(a, -(-n // chunks), dim)


def cat(tensors, dim: int = 0):
    tensors = [_t(x) for x in tensors]
    return combine.Cat.apply(dim, *tensors)


concat = concatenate = cat


def stack(tensors, dim: int = 0):
    tensors = [_t(x) for x in tensors]
    return combine.Stack.apply(dim, *tensors)


def clone(a):
    return conversion.Clone.apply(a)


def contiguous(a):
    return a if a._array.flags.c_contiguous else clone(a)


# ---- comparisons and predicates (no graph: their results are bool tensors) --------------------------

def _cmp(np_fn):
    def op(a, b):
        bb = b._array if isinstance(b, Tensor) else b
        with no_grad():
            return Tensor._make(np.asarray(np_fn(a._array, bb)) if not hasattr(a._array, "device")
                                else np_fn(a._array, bb))

    return op


eq, ne, lt, le, gt, ge = (_cmp(f) for f in (np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                                             np.greater_equal))
logical_and, logical_or, logical_xor = (_cmp(f) for f in (np.logical_and, np.logical_or, np.logical_xor))
bitwise_and, bitwise_or, bitwise_xor = (_cmp(f) for f in (np.bitwise_and, np.bitwise_or, np.bitwise_xor))
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne


def _pred(fn):
    def op(a, *args, **kwargs):
        return Tensor._make(np.asarray(fn(a._array, *args, **kwargs)))

    return op


isfinite = _pred(np.isfinite)
isnan = _pred(np.isnan)
isinf = _pred(np.isinf)
logical_not = _pred(np.logical_not)
floor = _pred(np.floor)
ceil = _pred(np.ceil)
round = _pred(np.round)
trunc = _pred(np.trunc)


def any(a, dim=None, keepdim: bool = False):
    return Tensor._make(_backend.get_array_module(a._array).asarray(a._array.any(axis=dim, keepdims=keepdim)))


def all(a, dim=None, keepdim: bool = False):
    return Tensor._make(_backend.get_array_module(a._array).asarray(a._array.all(axis=dim, keepdims=keepdim)))


def equal(a, b) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a._array, b._array))


def allclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    return bool(np.allclose(a._array, b._array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def numel(a) -> int:
    return a.numel()


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)
