"""Attach the functional ops to Tensor as methods and operators (``x.exp()``, ``a @ b``, ``x += 1``).

Floor 4, the one place that binds methods onto Tensor (as torch/_tensor.py does for its Python methods):
tensor.py (floor 2) stays the data object and never imports an op or the engine.  Every method here is a
one-liner onto ``framework.ops`` (out-of-place), an in-place op class (``*_`` methods) or
``framework.autograd`` (``backward``).
"""
from __future__ import annotations

import numpy as np

from . import dtypes, ops
from .autograd import backward as _autograd_backward
from .autograd.function import check_no_partial_overlap
from .ops import arithmetic_inplace as ar, combine, conversion, indexing, inplace, unary_inplace as un
from .ops._util import _type_name, c_type_name as _c_name, operand, refused
from .tensor import Tensor


def _to(self, *args, dtype=None, device=None, non_blocking: bool = False, copy: bool = False,
        memory_format: dtypes.memory_format | None = None) -> Tensor:
    """Cast and/or move: ``to(framework.float64)``, ``to("cuda")``, ``to(other_tensor)``; non_blocking is accepted
    (copies are synchronous here), positionally too: ``to(device, dtype, non_blocking, copy)``; memory_format=
    lays the result out as channels_last (etc.)."""
    flags = [a for a in args if isinstance(a, bool)]
    args = [a for a in args if not isinstance(a, bool)]
    if len(flags) > 1:
        copy = flags[1]
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (dtypes.dtype, type, np.dtype)) and not isinstance(a, str):
            dtype = a
        else:
            device = a
    return conversion.to(self, dtype=dtype, device=device, copy=copy, memory_format=memory_format)


def _backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
              inputs=None) -> None:
    """Accumulate the gradient of this tensor into the leaves' ``.grad`` (see autograd.backward)."""
    _autograd_backward(self, gradient, retain_graph, create_graph, inputs)


def _swap(fn):
    return lambda self, other: fn(other, self)


def _operator(fn):
    """A binary operator: NotImplemented for operands torch refuses, so Python raises its own TypeError."""
    def op(self, other):
        if other is None or refused(other):
            return NotImplemented
        return fn(self, other)

    op.__name__ = getattr(fn, "__name__", "op")
    return op


def _method(fn, name: str):
    """A method taking ``other`` (argument position 1, where the function form has it at 2)."""
    def method(self, other, *args, **kwargs):
        return fn(self, operand(other, name, 1), *args, **kwargs)

    method.__name__ = name
    return method


def _inplace_binary(cls):
    def method(self, other, *, alpha=1):
        other = ops._t(other)
        if alpha != 1:
            return cls.apply(self, other, alpha)
        return cls.apply(self, other)

    return method


def _add_(self, other, *, alpha=1):
    other = operand(other, "add_", 1)
    return ar.AddInplace.apply(self, other, alpha) if alpha != 1 else ar.AddInplace.apply(self, other)


def _sub_(self, other, *, alpha=1):
    other = operand(other, "sub_", 1)
    return ar.SubInplace.apply(self, other, alpha) if alpha != 1 else ar.SubInplace.apply(self, other)


def _mul_(self, other):
    return ar.MulInplace.apply(self, operand(other, "mul_", 1))


def _div_(self, other):
    return ar.DivInplace.apply(self, operand(other, "div_", 1))


def _pow_(self, p):
    if p is None or refused(p) or isinstance(p, (list, tuple, np.ndarray)):
        raise TypeError(f"pow_() received an invalid combination of arguments - got ({_type_name(p)}), but "
                        "expected one of:\n * (Tensor exponent)\n * (Number exponent)")
    if isinstance(p, Tensor):
        raise NotImplementedError("pow_ with a tensor exponent is not supported; use x = x ** p")
    return ar.PowScalarInplace.apply(self, p)


def _addcmul_(self, t1, t2, *, value=1):
    """self += value * t1 * t2, in place (used by optimizers under no_grad)."""
    return ar.AddcmulInplace.apply(self, ops._t(t1), ops._t(t2), value)


def _addcdiv_(self, t1, t2, *, value=1):
    """self += value * t1 / t2, in place (used by optimizers under no_grad)."""
    return ar.AddcdivInplace.apply(self, ops._t(t1), ops._t(t2), value)


def _lerp_(self, end, weight: float):
    """self += weight * (end - self), in place, with torch's two formulas (exact at both ends)."""
    end = ops._t(end)
    if end.dtype != self.dtype:
        raise RuntimeError(f"expected dtype {_c_name(self._array.dtype)} for `end` but got dtype "
                           f"{_c_name(end._array.dtype)}")
    if isinstance(weight, Tensor):  # a tensor weight (torch: LerpBackward1), here through out-of-place ops
        check_no_partial_overlap(self, end, weight)
        diff = ops.sub(end, self)
        value = ops.add(self, ops.mul(diff, weight)) if weight < 0.5 else ops.sub(end, ops.mul(diff, 1 - weight))
        return _copy_(self, value)
    return ar.LerpInplace.apply(self, ops._t(end), weight)


def _clamp_(self, min=None, max=None):
    return un.ClampInplace.apply(self, min, max)


def _fill_(self, value):
    """fill_(number): FillBackward2; fill_(0-d tensor): FillBackward3, whose gradient reaches the tensor too."""
    if isinstance(value, Tensor):
        return inplace.FillTensor.apply(self, value)
    return inplace.Fill.apply(self, value)


def _copy_(self, src, non_blocking: bool = False):
    src = operand(src, "copy_", 1)
    if src.device != self.device:
        src = src.to(device=self.device)
    return inplace.Copy.apply(self, src)


def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    return inplace.Uniform.apply(self, a, b, generator)


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    return inplace.Normal.apply(self, mean, std, generator)


def _masked_fill_(self, mask, value):
    return combine.masked_fill_(self, mask, value)


def _getitem(self, idx):
    return indexing.getitem(self, idx)


def _setitem(self, idx, value):
    indexing.setitem(self, idx, value)


def _iop(method_name):
    def op(self, other):
        if other is None or refused(other):
            return NotImplemented  # Python then tries the plain operator, which refuses it with its TypeError
        getattr(self, method_name)(other)
        return self

    return op


def _size_method(self, dim=None):
    return Tensor.size(self, dim)


METHODS = {
    # autograd and conversion
    "backward": _backward, "to": _to,
    # arithmetic and operators
    "add": _method(ops.add, "add"), "sub": _method(ops.sub, "sub"), "mul": _method(ops.mul, "mul"),
    "div": _method(ops.div, "div"), "pow": ops.pow, "neg": ops.neg,
    "subtract": _method(ops.sub, "subtract"), "multiply": _method(ops.mul, "multiply"),
    "divide": _method(ops.div, "divide"), "true_divide": _method(ops.div, "true_divide"), "negative": ops.neg,
    "__add__": _operator(ops.add), "__radd__": _operator(ops.add), "__sub__": _operator(ops.sub),
    "__rsub__": _operator(_swap(ops.sub)), "__mul__": _operator(ops.mul), "__rmul__": _operator(ops.mul),
    "__truediv__": _operator(ops.div), "__rtruediv__": _operator(_swap(ops.div)),
    "__pow__": _operator(ops.pow), "__rpow__": _operator(_swap(ops.pow)), "__neg__": ops.neg,
    "__pos__": lambda self: self, "__matmul__": _operator(ops.matmul), "__rmatmul__": _operator(_swap(ops.matmul)),
    "__abs__": ops.abs, "__eq__": _operator(ops.eq), "__ne__": _operator(ops.ne), "__lt__": _operator(ops.lt),
    "__le__": _operator(ops.le), "__gt__": _operator(ops.gt), "__ge__": _operator(ops.ge),
    "__invert__": ops.logical_not, "__and__": ops.bitwise_and, "__or__": ops.bitwise_or,
    "__xor__": ops.bitwise_xor, "logical_and": ops.logical_and, "logical_or": ops.logical_or, "__getitem__": _getitem, "__setitem__": _setitem,
    "__iadd__": _iop("add_"), "__isub__": _iop("sub_"), "__imul__": _iop("mul_"), "__itruediv__": _iop("div_"),
    "floor_divide": _method(ops.floor_divide, "floor_divide"), "remainder": _method(ops.remainder, "remainder"),
    "fmod": _method(ops.fmod, "fmod"), "__floordiv__": _operator(ops.floor_divide),
    "__rfloordiv__": _operator(_swap(ops.floor_divide)), "__mod__": _operator(ops.remainder),
    "__rmod__": _operator(_swap(ops.remainder)), "__ifloordiv__": _iop("floor_divide_"), "__imod__": _iop("remainder_"),
    "floor_divide_": ops.floor_divide_, "remainder_": ops.remainder_, "fmod_": ops.fmod_,
    "matmul": ops.matmul, "mm": ops.mm, "bmm": ops.bmm, "mv": ops.mv, "dot": ops.dot, "reciprocal": ops.reciprocal,
    # elementwise
    "abs": ops.abs, "sign": ops.sign, "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "rsqrt": ops.rsqrt,
    "sin": ops.sin, "cos": ops.cos, "tanh": ops.tanh, "sigmoid": ops.sigmoid, "relu": ops.relu,
    "clamp": ops.clamp, "clip": ops.clamp, "softmax": ops.softmax, "log_softmax": ops.log_softmax,
    "masked_fill": ops.masked_fill, "where": lambda self, cond, other: ops.where(cond, self, other),
    "atan2": _method(ops.atan2, "atan2"), "arctan2": _method(ops.atan2, "arctan2"),
    "maximum": _method(ops.maximum, "maximum"), "minimum": _method(ops.minimum, "minimum"),
    # reductions
    "sum": ops.sum, "prod": ops.prod, "mean": ops.mean, "max": ops.max, "min": ops.min, "amax": ops.amax, "amin": ops.amin,
    "var": ops.var, "std": ops.std, "argmax": ops.argmax, "argmin": ops.argmin, "any": ops.any, "all": ops.all,
    # shape and views
    "view": ops.view, "reshape": ops.reshape, "transpose": ops.transpose, "swapaxes": ops.transpose, "t": ops.t,
    "permute": ops.permute, "squeeze": ops.squeeze, "unsqueeze": ops.unsqueeze, "expand": ops.expand,
    "expand_as": ops.expand_as, "flatten": ops.flatten, "narrow": ops.narrow, "select": ops.select,
    "unbind": ops.unbind, "split": ops.split, "chunk": ops.chunk, "clone": ops.clone, "contiguous": ops.contiguous,
    "is_contiguous": conversion.is_contiguous,
    "view_as": lambda self, other: ops.view(self, tuple(other.shape)),
    "reshape_as": lambda self, other: ops.reshape(self, tuple(other.shape)),
    # comparisons and predicates
    "eq": ops.eq, "ne": ops.ne, "lt": ops.lt, "le": ops.le, "gt": ops.gt, "ge": ops.ge,
    "isfinite": ops.isfinite, "isnan": ops.isnan, "isinf": ops.isinf, "logical_not": ops.logical_not,
    "floor": ops.floor, "ceil": ops.ceil, "round": ops.round, "trunc": ops.trunc, "equal": ops.equal,
    "allclose": ops.allclose,
    # in place (a trailing underscore always means in place)
    "add_": _add_, "sub_": _sub_, "mul_": _mul_, "div_": _div_, "pow_": _pow_,
    "neg_": lambda self: ar.NegInplace.apply(self), "exp_": lambda self: un.ExpInplace.apply(self),
    "log_": lambda self: un.LogInplace.apply(self), "sqrt_": lambda self: un.SqrtInplace.apply(self),
    "sin_": lambda self: un.SinInplace.apply(self), "cos_": lambda self: un.CosInplace.apply(self),
    "tanh_": lambda self: un.TanhInplace.apply(self), "sigmoid_": lambda self: un.SigmoidInplace.apply(self),
    "relu_": lambda self: un.ReluInplace.apply(self), "abs_": lambda self: un.AbsInplace.apply(self),
    "clamp_": _clamp_, "clip_": _clamp_, "zero_": lambda self: inplace.Zero.apply(self), "fill_": _fill_,
    "copy_": _copy_, "uniform_": _uniform_, "normal_": _normal_, "masked_fill_": _masked_fill_,
    "addcmul_": _addcmul_, "addcdiv_": _addcdiv_, "lerp_": _lerp_,
}

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

# the formula of a regenerated view's AsStridedBackward0 node (framework/autograd/as_strided.py, a floor below ops)
Tensor._as_strided_backward = ops.views.as_strided_backward
Tensor.__hash__ = lambda self: id(self)  # __eq__ is elementwise, so hashing stays by identity
Tensor.T = property(lambda self: ops.permute(self, tuple(range(self.ndim - 1, -1, -1))) if self.ndim != 2
                    else ops.permute(self, (1, 0)))
Tensor.mT = property(lambda self: ops.transpose(self, -2, -1))
