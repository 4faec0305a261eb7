"""torch.special: the functions framework has, under torch.special's names (the very objects torch.* and F.* are).

``expit`` is sigmoid, as in torch; ``round`` is round with ``decimals`` (torch's special.round always takes that
overload) (its node is SigmoidBackward0 there too). Absent, so that a script fails with an
AttributeError naming the function rather than running a different formula: erfcx, ndtr, ndtri, log_ndtr,
xlogy, xlog1py, sinc, entr, i0/i0e/i1/i1e, digamma/psi, gammaln, polygamma, multigammaln, gammainc/gammaincc,
zeta, airy_ai and the Bessel and orthogonal-polynomial families.
"""
from __future__ import annotations

from .nn.functional import log_softmax, softmax
from .ops.sorting import logsumexp
from .ops.unary import sigmoid as expit
from .ops.unary_more import erf, erfc, expm1, log1p
from .ops.unary_more import round as _round
from .ops.unary_special import erfinv, exp2, logit



def round(input, *, decimals: int = 0):
    """torch.special.round: torch.round's decimals overload always (RoundBackward1, also for decimals=0)."""
    return _round(input, decimals=decimals)


__all__ = ["erf", "erfc", "erfinv", "exp2", "expit", "expm1", "log1p", "log_softmax", "logit", "logsumexp", "round",
           "softmax"]
