"""Attach the functional ops to Tensor as methods, operators and properties (``x.exp()``, ``a @ b``, ``x += 1``).

Floor 4, the one place that binds methods onto Tensor (as torch/_tensor.py does for its Python methods):
tensor.py (floor 2) stays the data object and never imports an op or the engine.  Every method is a one-liner
onto ``framework.ops`` (out-of-place), an in-place op class (``*_`` methods) or ``framework.autograd``
(``backward``).  The table ``METHODS`` is written in three sections (the core surface; indexing, ordering,
creation and linear algebra; special functions, bitwise ops and storage queries) and binds each name once.
"""
from __future__ import annotations

import warnings

import numpy as np

from .autograd.function import check_no_partial_overlap
from .ops._util import _type_name, c_type_name as _c_name, operand, refused
from .ops.activation import hardshrink as _hardshrink
from .ops.conversion import CONVERSIONS, Copy, Fill, FillTensor, imag, is_nonzero, is_signed, Zero
from .ops.indexing import subscript as indexing
from .ops.linalg import geqrf as _geqrf, householder_product as _householder_product
from .ops.pointwise import (AbsInplace, arithmetic_inplace as ar, ClampInplace, conditional as combine, CosInplace, eq_,
                            ExpInplace, gamma as _ug, ge_, gt_, invert_operator, le_, logical_inplace, LogInplace, lt_,
                            ne_, ReciprocalInplace, ReluInplace, RsqrtInplace, SigmoidInplace, SignInplace, SinInplace,
                            SqrtInplace, TanhInplace)
from .ops.pointwise.bitwise import _int_inplace
from .ops.pointwise.floordiv import div_rounded_
from .ops.reduction import cumprod_, cumsum_, sum_to_size
from .ops.sampling import Normal, Uniform
from .ops.shape import fill_diagonal_, new_empty_strided, ravel, storage_offset, tensor_unfold, views as _views_mod
from .ops.shape.strided import _matrix_view
from . import creation, dtypes, ops
from .autograd import backward as _autograd_backward
from .ops import conversion
from .tensor import Size, Tensor
from . import accelerator
from .memory_layout import dim_order


# ---- the core surface: conversion, backward, operators, in-place arithmetic, indexing -----------------

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

def _div_(self, other, *, rounding_mode: str | None = None):
    if rounding_mode is not None:
        return div_rounded_(self, other, rounding_mode)
    return ar.DivInplace.apply(self, operand(other, "div_", 1))

def _true_divide_(self, other):
    return ar.DivInplace.apply(self, operand(other, "true_divide_", 1))

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
    return ClampInplace.apply(self, min, max)

def _fill_(self, value):
    """fill_(number): FillBackward2; fill_(0-d tensor): FillBackward3, whose gradient reaches the tensor too."""
    if isinstance(value, Tensor):
        return FillTensor.apply(self, value)
    return Fill.apply(self, value)

def _copy_(self, src, non_blocking: bool = False):
    src = operand(src, "copy_", 1)
    if src.device != self.device:
        src = src.to(device=self.device)
    return Copy.apply(self, src)

def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    return Uniform.apply(self, a, b, generator)

def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    return Normal.apply(self, mean, std, generator)

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

_CORE = {
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
    "__matmul__": _operator(ops.matmul), "__rmatmul__": _operator(_swap(ops.matmul)),
    "__abs__": ops.abs, "__eq__": _operator(ops.eq), "__ne__": _operator(ops.ne), "__lt__": _operator(ops.lt),
    "__le__": _operator(ops.le), "__gt__": _operator(ops.gt), "__ge__": _operator(ops.ge),
    "logical_and": ops.logical_and, "logical_or": ops.logical_or, "__getitem__": _getitem, "__setitem__": _setitem,
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
    "unbind": ops.unbind, "split": ops.split, "chunk": ops.chunk, "unsafe_chunk": ops.unsafe_chunk,
    "clone": ops.clone, "contiguous": ops.contiguous,
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
    "neg_": lambda self: ar.NegInplace.apply(self), "exp_": lambda self: ExpInplace.apply(self),
    "log_": lambda self: LogInplace.apply(self), "sqrt_": lambda self: SqrtInplace.apply(self),
    "sin_": lambda self: SinInplace.apply(self), "cos_": lambda self: CosInplace.apply(self),
    "tanh_": lambda self: TanhInplace.apply(self), "sigmoid_": lambda self: SigmoidInplace.apply(self),
    "relu_": lambda self: ReluInplace.apply(self), "abs_": lambda self: AbsInplace.apply(self),
    "zero_": lambda self: Zero.apply(self), "fill_": _fill_,
    "copy_": _copy_, "uniform_": _uniform_, "normal_": _normal_, "masked_fill_": _masked_fill_,
    "addcmul_": _addcmul_, "addcdiv_": _addcdiv_, "lerp_": _lerp_,
    # in place under torch's other names
    "subtract_": _sub_, "multiply_": _mul_, "divide_": _div_, "true_divide_": _true_divide_,
    "negative_": lambda self: ar.NegInplace.apply(self), "atan2_": ops.atan2_, "arctan2_": ops.arctan2_,
}

# the formula of a regenerated view's AsStridedBackward0 node (framework/autograd/as_strided.py, a floor below ops)
Tensor._as_strided_backward = _views_mod.as_strided_backward

Tensor.__hash__ = lambda self: id(self)  # __eq__ is elementwise, so hashing stays by identity

Tensor.T = property(lambda self: ops.permute(self, tuple(range(self.ndim - 1, -1, -1))) if self.ndim != 2
                    else ops.permute(self, (1, 0)))

Tensor.mT = property(lambda self: ops.transpose(self, -2, -1))

# ---- indexing, ordering, creation (new_*) and linear algebra methods ------------------------------------

def _like_factory(fn):
    """x.new_zeros(size) etc.: a fresh tensor with x's dtype and device unless told otherwise."""
    def method(self, *size, dtype=None, device=None, requires_grad: bool = False):
        return fn(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    return method

def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False):
    return creation.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)

def _new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False):
    return creation.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                           requires_grad=requires_grad)

_SCRIPTS = {
    "gather": ops.gather, "take_along_dim": ops.take_along_dim, "scatter": ops.scatter, "scatter_add": ops.scatter_add,
    "scatter_": ops.scatter_, "scatter_add_": ops.scatter_add_,
    "index_select": ops.index_select, "index_put": ops.index_put, "index_put_": ops.index_put_,
    "tril": ops.tril, "triu": ops.triu,
    "tril_": ops.tril_, "triu_": ops.triu_,
    "sort": ops.sort, "argsort": ops.argsort, "topk": ops.topk, "cumsum": ops.cumsum, "cumprod": ops.cumprod,
    "logsumexp": ops.logsumexp, "baddbmm": ops.baddbmm, "multinomial": ops.multinomial,
    "new_zeros": _like_factory(creation.zeros), "new_ones": _like_factory(creation.ones),
    "new_empty": _like_factory(creation.empty), "new_full": _new_full, "new_tensor": _new_tensor,
    # more elementwise ops (ops/pointwise/exp_log.py) and their in-place twins
    "square": ops.square, "square_": ops.square_, "absolute": ops.absolute, "absolute_": ops.absolute_,
    "log1p": ops.log1p, "log1p_": ops.log1p_, "expm1": ops.expm1, "expm1_": ops.expm1_, "log2": ops.log2,
    "log2_": ops.log2_, "log10": ops.log10, "log10_": ops.log10_, "tan": ops.tan, "tan_": ops.tan_,
    "sinh": ops.sinh, "sinh_": ops.sinh_, "cosh": ops.cosh, "cosh_": ops.cosh_, "asin": ops.asin, "asin_": ops.asin_,
    "arcsin": ops.asin, "acos": ops.acos, "acos_": ops.acos_, "arccos": ops.acos, "atan": ops.atan,
    "atan_": ops.atan_, "arctan": ops.atan, "erf": ops.erf, "erf_": ops.erf_, "erfc": ops.erfc,
    "erfc_": ops.erfc_, "floor_": ops.floor_,
    "ceil_": ops.ceil_, "round_": ops.round_, "trunc_": ops.trunc_, "fix": ops.trunc, "fix_": ops.trunc_,
    "frac": ops.frac, "frac_": ops.frac_, "nan_to_num": ops.nan_to_num, "nan_to_num_": ops.nan_to_num_,
    # more shape ops (ops/shape/rearrange.py)
    "flip": ops.flip, "fliplr": ops.fliplr, "flipud": ops.flipud, "roll": ops.roll, "repeat": ops.repeat,
    "tile": ops.tile, "broadcast_to": ops.broadcast_to, "movedim": ops.movedim, "moveaxis": ops.movedim,
    "swapdims": ops.swapdims, "unflatten": ops.unflatten, "diagonal": ops.diagonal, "diag": ops.diag,
    "trace": ops.trace, "outer": ops.outer, "ger": ops.outer,
    # fused pointwise ops and index predicates (ops/pointwise/ternary.py)
    "addcmul": ops.addcmul, "addcdiv": ops.addcdiv, "lerp": ops.lerp, "addmm": ops.addmm, "nonzero": ops.nonzero,
    "argwhere": ops.argwhere, "count_nonzero": ops.count_nonzero, "isclose": ops.isclose,
    # QR in LAPACK's compact form (ops/linalg/householder.py)
    "geqrf": _geqrf, "orgqr": _householder_product,
    # selection (ops/indexing/selection.py)
    "repeat_interleave": ops.repeat_interleave, "take": ops.take, "masked_select": ops.masked_select, "median": ops.median, "unique": ops.unique,
    "kthvalue": ops.kthvalue, "cummax": ops.cummax, "cummin": ops.cummin,
    "cross": ops.cross, "bernoulli": ops.bernoulli, "as_strided": ops.as_strided, "mode": ops.mode,
    # inverse hyperbolic functions, exp2, logit, erfinv (ops/pointwise/trigonometric.py) and hypot (ops/pointwise/conditional.py)
    "asinh": ops.asinh, "asinh_": ops.asinh_, "arcsinh": ops.asinh, "arcsinh_": ops.asinh_,
    "acosh": ops.acosh, "acosh_": ops.acosh_, "arccosh": ops.acosh, "arccosh_": ops.acosh_,
    "atanh": ops.atanh, "atanh_": ops.atanh_, "arctanh": ops.atanh, "arctanh_": ops.atanh_,
    "exp2": ops.exp2, "exp2_": ops.exp2_, "logit": ops.logit, "logit_": ops.logit_, "erfinv": ops.erfinv,
    "erfinv_": ops.erfinv_, "hypot": ops.hypot, "hypot_": ops.hypot_, "nextafter": ops.nextafter,
    "nextafter_": ops.nextafter_,
    # index writes (ops/indexing/index_write.py) and their in-place twins
    "index_add": ops.index_add, "index_add_": ops.index_add_, "index_copy": ops.index_copy,
    "index_copy_": ops.index_copy_, "index_fill": ops.index_fill, "index_fill_": ops.index_fill_, "put": ops.put,
    "put_": ops.put_, "masked_scatter": ops.masked_scatter, "masked_scatter_": ops.masked_scatter_,
    "index_reduce": ops.index_reduce, "index_reduce_": ops.index_reduce_, "scatter_reduce": ops.scatter_reduce,
    "scatter_reduce_": ops.scatter_reduce_, "diagonal_scatter": ops.diagonal_scatter,
    "select_scatter": ops.select_scatter, "slice_scatter": ops.slice_scatter,
    # searching and counting (ops/search.py) and shape helpers (ops/shape/joining.py)
    "bincount": ops.bincount, "histc": ops.histc, "histogram": ops.histogram,
    "unique_consecutive": ops.unique_consecutive, "aminmax": ops.aminmax, "msort": ops.msort,
    "tensor_split": ops.tensor_split, "hsplit": ops.hsplit, "vsplit": ops.vsplit, "dsplit": ops.dsplit,
    "rot90": ops.rot90, "diff": ops.diff,
    # linear algebra (ops/linalg/legacy.py, ops/linalg/products.py)
    "det": ops.det, "logdet": ops.logdet, "slogdet": ops.slogdet, "inverse": ops.inverse, "pinverse": ops.pinverse,
    "cholesky": ops.cholesky, "qr": ops.qr, "svd": ops.svd, "matrix_power": ops.matrix_power,
    "matrix_exp": ops.matrix_exp, "kron": ops.kron, "inner": ops.inner, "addmv": ops.addmv, "addr": ops.addr,
    "addbmm": ops.addbmm, "dist": ops.dist, "diag_embed": ops.diag_embed, "diagflat": ops.diagflat,
    # more maths (ops/pointwise/exp_log.py, ops/reduction/sums.py)
    "nansum": ops.nansum, "nanmean": ops.nanmean, "logaddexp": ops.logaddexp, "logaddexp2": ops.logaddexp2,
    "logcumsumexp": ops.logcumsumexp, "heaviside": ops.heaviside, "copysign": ops.copysign, "ldexp": ops.ldexp,
    "frexp": ops.frexp, "quantile": ops.quantile, "nanquantile": ops.nanquantile, "nanmedian": ops.nanmedian,
    "renorm": ops.renorm, "clamp_min": ops.clamp_min, "hardshrink": _hardshrink,
    "copysign_": ops.copysign_, "ldexp_": ops.ldexp_, "clamp_min_": ops.clamp_min_, "renorm_": ops.renorm_,
    # in-place view ops and resizing (ops/shape/views_inplace.py, ops/shape/views_inplace.py)
    "t_": ops.t_, "transpose_": ops.transpose_, "swapdims_": ops.swapdims_, "swapaxes_": ops.swapaxes_,
    "squeeze_": ops.squeeze_, "unsqueeze_": ops.unsqueeze_, "as_strided_": ops.as_strided_,
    "resize_": ops.resize_, "resize_as_": ops.resize_as_, "set_": ops.set_,
    "triangular_solve": ops.triangular_solve, "lu": ops.lu, "lu_solve": ops.lu_solve,
    "cholesky_inverse": ops.cholesky_inverse, "cholesky_solve": ops.cholesky_solve,
    # the products' in-place twins (ops/linalg/blas.py, ops/linalg/products.py)
    "addmm_": ops.addmm_, "addmv_": ops.addmv_, "addr_": ops.addr_, "addbmm_": ops.addbmm_, "baddbmm_": ops.baddbmm_,
    "arcsin_": ops.asin_, "arccos_": ops.acos_, "arctan_": ops.atan_,
    # splits not tracked as views, and narrow as new memory (ops/indexing/slicing.py, ops/indexing/view_copies.py)
    "unsafe_split": ops.unsafe_split, "unsafe_split_with_sizes": ops.unsafe_split_with_sizes,
    "narrow_copy": ops.narrow_copy,
}

# ---- special functions, bitwise and integer operators, clamp bounds, storage and complex queries --------

def _reflected(fn):
    return _operator(lambda self, other: fn(other, self))

def _in_place(fn, name: str):
    """x &= y and friends: x.copy_ of the result (the dtype must stay x's, as torch's out= check)."""
    method = _int_inplace(fn, name)

    def op(self, other):
        if other is None or refused(other):
            return NotImplemented
        return method(self, other)

    return op

def _polygamma(self, n: int):
    return ops.polygamma(n, self)

_MATH = {
    # the gamma family (ops/pointwise/gamma.py)
    "lgamma": ops.lgamma, "lgamma_": ops.lgamma_, "digamma": ops.digamma, "digamma_": ops.digamma_,
    "polygamma": _polygamma, "polygamma_": ops.polygamma_, "mvlgamma": ops.mvlgamma,
    "mvlgamma_": lambda self, p: self.copy_(ops.mvlgamma(self, p)), "i0": ops.i0, "i0_": ops.i0_,
    "sinc": ops.sinc, "sinc_": ops.sinc_, "xlogy": ops.xlogy, "xlogy_": ops.xlogy_,
    # clamp with tensor bounds, clamp_min / clamp_max (ops/pointwise/clamping.py)
    "clamp_": ops.clamp_, "clip_": ops.clamp_,
    "clamp_max": ops.clamp_max,
    "clamp_max_": ops.clamp_max_,
    # bitwise and integer ops (ops/pointwise/bitwise.py)
    "bitwise_and": ops.bitwise_and, "bitwise_or": ops.bitwise_or, "bitwise_xor": ops.bitwise_xor,
    "bitwise_not": ops.bitwise_not, "bitwise_left_shift": ops.bitwise_left_shift,
    "bitwise_right_shift": ops.bitwise_right_shift, "gcd": ops.gcd, "lcm": ops.lcm,
    "bitwise_and_": _int_inplace(ops.bitwise_and, "bitwise_and_"),
    "bitwise_or_": _int_inplace(ops.bitwise_or, "bitwise_or_"),
    "bitwise_xor_": _int_inplace(ops.bitwise_xor, "bitwise_xor_"),
    "bitwise_left_shift_": _int_inplace(ops.bitwise_left_shift, "bitwise_left_shift_"),
    "bitwise_right_shift_": _int_inplace(ops.bitwise_right_shift, "bitwise_right_shift_"),
    "bitwise_not_": lambda self: self.copy_(ops.bitwise_not(self)),
    "gcd_": _int_inplace(ops.gcd, "gcd_"), "lcm_": _int_inplace(ops.lcm, "lcm_"),
    "__and__": _operator(ops.bitwise_and), "__or__": _operator(ops.bitwise_or), "__xor__": _operator(ops.bitwise_xor),
    "__rand__": _reflected(ops.bitwise_and), "__ror__": _reflected(ops.bitwise_or),
    "__rxor__": _reflected(ops.bitwise_xor), "__lshift__": _operator(ops.bitwise_left_shift),
    "__rshift__": _operator(ops.bitwise_right_shift), "__rlshift__": _reflected(ops.bitwise_left_shift),
    "__rrshift__": _reflected(ops.bitwise_right_shift), "__invert__": invert_operator,
    "__iand__": _in_place(ops.bitwise_and, "__iand__"), "__ior__": _in_place(ops.bitwise_or, "__ior__"),
    "__ixor__": _in_place(ops.bitwise_xor, "__ixor__"), "__ilshift__": _in_place(ops.bitwise_left_shift, "__ilshift__"),
    "__irshift__": _in_place(ops.bitwise_right_shift, "__irshift__"),
    "__pos__": ops.positive, "positive": ops.positive,
    # more elementwise functions
    "fmax": ops.fmax, "fmin": ops.fmin, "float_power": ops.float_power, "float_power_": ops.float_power_,
    "deg2rad": ops.deg2rad, "deg2rad_": ops.deg2rad_, "rad2deg": ops.rad2deg, "rad2deg_": ops.rad2deg_,
    "sgn": ops.sgn, "sgn_": lambda self: self.sign_() if hasattr(self, "sign_") else self.copy_(ops.sgn(self)),
    "angle": ops.angle, "signbit": ops.signbit, "isneginf": ops.isneginf, "isposinf": ops.isposinf,
    "isreal": ops.isreal,
    # comparisons under their other names, and in place
    "greater": ops.gt, "greater_equal": ops.ge, "less": ops.lt, "less_equal": ops.le, "not_equal": ops.ne,
    "eq_": eq_, "ne_": ne_, "lt_": lt_, "le_": le_, "gt_": gt_, "ge_": ge_,
    "greater_": gt_, "greater_equal_": ge_, "less_": lt_, "less_equal_": le_, "not_equal_": ne_,
    "logical_and_": logical_inplace(ops.logical_and, "logical_and_"),
    "logical_or_": logical_inplace(ops.logical_or, "logical_or_"),
    "logical_xor_": logical_inplace(ops.logical_xor, "logical_xor_"),
    "logical_not_": logical_inplace(ops.logical_not, "logical_not_"),
    "logical_xor": ops.logical_xor,
}

_MATH.update({
    # sliding windows, sums, copies (ops/shape/strided.py)
    "unfold": tensor_unfold, "sum_to_size": sum_to_size, "ravel": ravel, "fill_diagonal_": fill_diagonal_,
    "split_with_sizes": lambda self, split_sizes, dim=0: ops.split(self, list(split_sizes), dim),
    "new_empty_strided": new_empty_strided, "cumsum_": cumsum_, "cumprod_": cumprod_,
    "sign_": lambda self: SignInplace.apply(self), "reciprocal_": lambda self: ReciprocalInplace.apply(self),
    "rsqrt_": lambda self: RsqrtInplace.apply(self),
    "adjoint": _matrix_view("adjoint()", batched=True),
    # random fills (ops/sampling.py)
    "exponential_": ops.exponential_, "cauchy_": ops.cauchy_, "log_normal_": ops.log_normal_,
    "geometric_": ops.geometric_, "random_": ops.random_, "bernoulli_": ops.bernoulli_,
    # statistics (ops/reduction/variance.py)
    "cov": ops.cov, "corrcoef": ops.corrcoef, "vdot": ops.vdot,
    "igamma": lambda self, other: _ug.Igamma.apply(self, other),
    "igammac": lambda self, other: _ug.Igammac.apply(self, other),
    "igamma_": ops.igamma_, "igammac_": ops.igammac_, "heaviside_": ops.heaviside_,
    # queries: storage, dtype, and the complex-number ones a real tensor answers trivially
    "storage_offset": storage_offset, "is_signed": is_signed, "is_nonzero": is_nonzero,
    "is_same_size": lambda self, other: self.shape == other.shape, "is_complex": lambda self: False,
    "is_conj": lambda self: False, "is_neg": lambda self: False, "conj": lambda self: self,
    "resolve_conj": lambda self: self, "resolve_neg": lambda self: self,
    "byte": lambda self: self.to(CONVERSIONS["byte"]), "char": lambda self: self.to(CONVERSIONS["char"]),
    "short": lambda self: self.to(CONVERSIONS["short"]),
})

# ---- legacy construction, layout and memory queries (torch's answers for dense, process-private tensors) -----

def _options(t_dtype, device) -> str:
    return (f"TensorOptions(dtype={_c_name(t_dtype)}, device={device}, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")

def _new(self, *args, **kwargs):
    """torch's legacy ``x.new(...)``: sizes (an empty tensor), a Size, data (a list: a tensor in x's dtype), or a
    tensor of x's dtype (an alias of it); ``device=`` is the one keyword."""
    device = kwargs.pop("device", None)
    if kwargs:
        names = [f"{k}={'framework.dtype' if isinstance(v, dtypes.dtype) else _type_name(v)}"
                 for k, v in kwargs.items()]
        got = ", ".join([_type_name(a) for a in args] + names)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:")
    device = self.device if device is None else device
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype:
            raise TypeError(f"expected {_options(self._array.dtype, device)} (got "
                            f"{_options(other._array.dtype, other.device)})")
        return _views_mod.Alias.apply(other)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        return creation.empty(*args, dtype=self.dtype, device=device) if args else \
            creation.empty(0, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        return creation.tensor(args[0], dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], str):
        raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")

def _dim_order(self, *, ambiguity_check: bool = False) -> tuple:
    """The dims from outermost to innermost in memory (torch's order of an elementwise result's layout)."""
    if isinstance(ambiguity_check, list):
        raise NotImplementedError("dim_order(ambiguity_check=[memory formats]) is not supported; pass a bool")
    strides = self.stride()
    if ambiguity_check and (any(a == b for a, b in zip(strides, strides[1:])) or 1 in self.shape):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    order, ambiguous = dim_order(tuple(self.shape), strides)
    if ambiguity_check and ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return order

def _is_pinned(self, device=None) -> bool:
    """False: framework never allocates page-locked host memory."""
    if device is not None:
        warnings.warn("The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this "
                      "argument.", DeprecationWarning, stacklevel=2)
    return False

def _pin_memory(self, device=None):
    """torch's error without an accelerator; with one, framework has no page-locked buffers to copy into."""
    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise NotImplementedError("pin_memory() is not supported: framework has no page-locked host memory "
                              "(copy to the GPU with .to('cuda') directly)")

def _share_memory_(self):
    """self, as Module.share_memory: there is no torch.multiprocessing here to share the storage with."""
    return self

_STORAGE = {
    "new": _new, "dim_order": _dim_order, "is_pinned": _is_pinned, "pin_memory": _pin_memory,
    "share_memory_": _share_memory_, "is_shared": lambda self: False,
    "conj_physical": conversion.conj_physical, "conj_physical_": conversion.conj_physical_,
}

PROPERTIES = {
    "itemsize": lambda self: self._array.itemsize, "nbytes": lambda self: self._array.itemsize * self._array.size,
    "real": lambda self: self, "imag": imag, "H": _matrix_view("H", batched=False),
    "mH": _matrix_view("mH", batched=True), "layout": lambda self: dtypes.strided,
    # layouts and backends framework never uses (torch's flags; is_meta, is_xpu, is_mps sit on Tensor itself)
    **{flag: (lambda self: False) for flag in ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested",
                                               "is_ipu", "is_maia", "is_mtia", "is_vulkan", "is_xla")},
}


METHODS = {**_CORE, **_SCRIPTS, **_MATH, **_STORAGE}  # each name is in exactly one section
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
for _name, _fn in PROPERTIES.items():
    setattr(Tensor, _name, property(_fn))
