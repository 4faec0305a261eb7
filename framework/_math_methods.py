"""Tensor methods and operators for the gamma family, clamp bounds, bitwise ops, in-place comparisons and the
other elementwise functions of ops/unary_gamma.py, clamp_more.py and pointwise_extra.py; and the rest of
torch.Tensor's everyday surface from ops/tensor_more.py, random_fill.py and stats_more.py (unfold, random fills,
storage_offset, H/mH, the complex-number queries a real tensor answers, ...)."""
from __future__ import annotations

from . import ops
from .ops import pointwise_extra as _px
from .ops import tensor_more as _tm
from .ops import unary_gamma as _ug
from .ops._util import refused
from .tensor import Tensor


def _operator(fn):
    """A binary operator: NotImplemented for operands torch refuses, so Python raises its own TypeError."""
    def op(self, other):
        if other is None or refused(other):
            return NotImplemented
        return fn(self, other)

    return op


def _reflected(fn):
    return _operator(lambda self, other: fn(other, self))


def _in_place(fn, name: str):
    """x &= y and friends: x.copy_ of the result (the dtype must stay x's, as torch's out= check)."""
    method = _px._int_inplace(fn, name)

    def op(self, other):
        if other is None or refused(other):
            return NotImplemented
        return method(self, other)

    return op


def _polygamma(self, n: int):
    return ops.polygamma(n, self)


METHODS = {
    # the gamma family (ops/unary_gamma.py)
    "lgamma": ops.lgamma, "lgamma_": ops.lgamma_, "digamma": ops.digamma, "digamma_": ops.digamma_,
    "polygamma": _polygamma, "polygamma_": ops.polygamma_, "mvlgamma": ops.mvlgamma,
    "mvlgamma_": lambda self, p: self.copy_(ops.mvlgamma(self, p)), "i0": ops.i0, "i0_": ops.i0_,
    "sinc": ops.sinc, "sinc_": ops.sinc_, "xlogy": ops.xlogy, "xlogy_": ops.xlogy_,
    # clamp with tensor bounds, clamp_min / clamp_max (ops/clamp_more.py)
    "clamp": ops.clamp, "clip": ops.clamp, "clamp_": ops.clamp_, "clip_": ops.clamp_,
    "clamp_min": ops.clamp_min, "clamp_min_": ops.clamp_min_, "clamp_max": ops.clamp_max,
    "clamp_max_": ops.clamp_max_,
    # bitwise and integer ops (ops/pointwise_extra.py)
    "bitwise_and": ops.bitwise_and, "bitwise_or": ops.bitwise_or, "bitwise_xor": ops.bitwise_xor,
    "bitwise_not": ops.bitwise_not, "bitwise_left_shift": ops.bitwise_left_shift,
    "bitwise_right_shift": ops.bitwise_right_shift, "gcd": ops.gcd, "lcm": ops.lcm,
    "bitwise_and_": _px._int_inplace(ops.bitwise_and, "bitwise_and_"),
    "bitwise_or_": _px._int_inplace(ops.bitwise_or, "bitwise_or_"),
    "bitwise_xor_": _px._int_inplace(ops.bitwise_xor, "bitwise_xor_"),
    "bitwise_left_shift_": _px._int_inplace(ops.bitwise_left_shift, "bitwise_left_shift_"),
    "bitwise_right_shift_": _px._int_inplace(ops.bitwise_right_shift, "bitwise_right_shift_"),
    "bitwise_not_": lambda self: self.copy_(ops.bitwise_not(self)),
    "gcd_": _px._int_inplace(ops.gcd, "gcd_"), "lcm_": _px._int_inplace(ops.lcm, "lcm_"),
    "__and__": _operator(ops.bitwise_and), "__or__": _operator(ops.bitwise_or), "__xor__": _operator(ops.bitwise_xor),
    "__rand__": _reflected(ops.bitwise_and), "__ror__": _reflected(ops.bitwise_or),
    "__rxor__": _reflected(ops.bitwise_xor), "__lshift__": _operator(ops.bitwise_left_shift),
    "__rshift__": _operator(ops.bitwise_right_shift), "__rlshift__": _reflected(ops.bitwise_left_shift),
    "__rrshift__": _reflected(ops.bitwise_right_shift), "__invert__": _px.invert_operator,
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
    "eq_": _px.eq_, "ne_": _px.ne_, "lt_": _px.lt_, "le_": _px.le_, "gt_": _px.gt_, "ge_": _px.ge_,
    "greater_": _px.gt_, "greater_equal_": _px.ge_, "less_": _px.lt_, "less_equal_": _px.le_, "not_equal_": _px.ne_,
    "logical_and_": _px.logical_inplace(ops.logical_and, "logical_and_"),
    "logical_or_": _px.logical_inplace(ops.logical_or, "logical_or_"),
    "logical_xor_": _px.logical_inplace(ops.logical_xor, "logical_xor_"),
    "logical_not_": _px.logical_inplace(ops.logical_not, "logical_not_"),
    "logical_xor": ops.logical_xor,
}

METHODS.update({
    # sliding windows, sums, copies (ops/tensor_more.py)
    "unfold": _tm.unfold, "sum_to_size": _tm.sum_to_size, "ravel": _tm.ravel, "fill_diagonal_": _tm.fill_diagonal_,
    "split_with_sizes": lambda self, split_sizes, dim=0: ops.split(self, list(split_sizes), dim),
    "new_empty_strided": _tm.new_empty_strided, "cumsum_": _tm.cumsum_, "cumprod_": _tm.cumprod_,
    "sign_": lambda self: _tm.SignInplace.apply(self), "reciprocal_": lambda self: _tm.ReciprocalInplace.apply(self),
    "rsqrt_": lambda self: _tm.RsqrtInplace.apply(self),
    "adjoint": _tm._matrix_view("adjoint()", batched=True),
    # random fills (ops/random_fill.py)
    "exponential_": ops.exponential_, "cauchy_": ops.cauchy_, "log_normal_": ops.log_normal_,
    "geometric_": ops.geometric_, "random_": ops.random_, "bernoulli_": ops.bernoulli_,
    # statistics (ops/stats_more.py)
    "cov": ops.cov, "corrcoef": ops.corrcoef, "vdot": ops.vdot,
    "igamma": lambda self, other: _ug.Igamma.apply(self, other),
    "igammac": lambda self, other: _ug.Igammac.apply(self, other),
    # queries: storage, dtype, and the complex-number ones a real tensor answers trivially
    "storage_offset": _tm.storage_offset, "is_signed": _tm.is_signed, "is_nonzero": _tm.is_nonzero,
    "is_same_size": lambda self, other: self.shape == other.shape, "is_complex": lambda self: False,
    "is_conj": lambda self: False, "is_neg": lambda self: False, "conj": lambda self: self,
    "resolve_conj": lambda self: self, "resolve_neg": lambda self: self,
    "byte": lambda self: self.to(_tm.CONVERSIONS["byte"]), "char": lambda self: self.to(_tm.CONVERSIONS["char"]),
    "short": lambda self: self.to(_tm.CONVERSIONS["short"]),
})
PROPERTIES = {
    "itemsize": lambda self: self._array.itemsize, "nbytes": lambda self: self._array.itemsize * self._array.size,
    "real": lambda self: self, "imag": _tm.imag, "H": _tm._matrix_view("H", batched=False),
    "mH": _tm._matrix_view("mH", batched=True),
}


for _name, _fn in PROPERTIES.items():
    setattr(Tensor, _name, property(_fn))

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)  # these replace the first wave's clamp/operators (tensor bounds, integer ~)
