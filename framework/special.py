"""torch.special: the functions framework has, under torch.special's names (the very objects torch.* and F.* are).

``expit`` is sigmoid, as in torch; ``round`` is round with ``decimals`` (torch's special.round always takes that
overload) (its node is SigmoidBackward0 there too). The gamma family, the Bessel functions of order 0 and 1,
entr, ndtr/ndtri/log_ndtr, xlogy/xlog1py, zeta and gammainc/gammaincc come from ops/pointwise/gamma.py (SciPy's
kernels). Absent, so that a script fails with an AttributeError naming the function rather than running a
different formula: erfcx, airy_ai, the other Bessel functions and the orthogonal-polynomial families."""
from __future__ import annotations

from .nn.functional.activation import log_softmax, softmax
from .ops.pointwise import (digamma, erf, erfc, erfinv, exp2, expm1, i0, Igamma, Igammac, lgamma as gammaln, log1p,
                            logit, mvlgamma as multigammaln, polygamma, round as _round, sigmoid as expit, sinc,
                            SpecialEntr, SpecialI0e, SpecialI1, SpecialI1e, SpecialLogNdtr, SpecialNdtri,
                            SpecialXlog1py, SpecialZeta, xlogy)
from .ops.reduction import logsumexp
from .ops.scalar_ops import AddScalar as _AddScalar, MulScalar as _MulScalar
from .backend import get_array_module
from .tensor import Tensor as _Tensor


psi = digamma


def i0e(input):
    """exp(-|x|) i0(x)."""
    return SpecialI0e.apply(input)


def i1(input):
    """The modified Bessel function of the first kind, order 1."""
    return SpecialI1.apply(input)


def i1e(input):
    """exp(-|x|) i1(x)."""
    return SpecialI1e.apply(input)


def entr(input):
    """-x ln x elementwise (0 at 0, -inf for negative x)."""
    return SpecialEntr.apply(input)


def ndtri(input):
    """The inverse of the standard normal CDF."""
    return SpecialNdtri.apply(input)


def log_ndtr(input):
    """ln of the standard normal CDF, accurate far into the left tail."""
    return SpecialLogNdtr.apply(input)


def ndtr(input):
    """The standard normal CDF, as torch composes it: (1 + erf(x / sqrt 2)) * 0.5 (its node is MulBackward1)."""
    x = input if input._array.dtype.kind in "fV" else input.float()
    return _MulScalar.apply(_AddScalar.apply(erf(_MulScalar.apply(x, 0.7071067811865476)), 1.0), 0.5)


def _full_like(like, value):
    """A Python number as a 0-d tensor in like's floating dtype and device (torch's Scalar overloads; their nodes
    are named ...Backward1/2 in torch, ...Backward0 here)."""
    xp = get_array_module(like._array)
    return _Tensor._make(xp.asarray(value, dtype=like._array.dtype if like._array.dtype.kind in "fV" else None))


def xlog1py(input, other):
    """input * ln(1 + other), 0 where input == 0."""
    input = input if isinstance(input, _Tensor) else _full_like(other, input)
    other = other if isinstance(other, _Tensor) else _full_like(input, other)
    return SpecialXlog1py.apply(input, other)


def zeta(input, other):
    """The Hurwitz zeta function sum_k (other + k) ** -input."""
    input = input if isinstance(input, _Tensor) else _full_like(other, input)
    other = other if isinstance(other, _Tensor) else _full_like(input, other)
    return SpecialZeta.apply(input, other)


def gammainc(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    return Igamma.apply(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(input, other)."""
    return Igammac.apply(input, other)


def round(input, *, decimals: int = 0):
    """torch.special.round: torch.round's decimals overload always (RoundBackward1, also for decimals=0)."""
    return _round(input, decimals=decimals)


__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta"]
