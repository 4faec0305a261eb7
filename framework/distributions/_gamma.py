"""Standard-gamma draws with a reparameterised gradient (torch._standard_gamma and its backward), the source of
Gamma, Chi2, Beta and Dirichlet's rsample."""
from __future__ import annotations

import numpy as np

from .. import backend
from ..autograd.function import Function
from ..backend import device_of, errstate, get_array_module, to_device, to_numpy
from ..random import _gen
from ..tensor import Tensor


def standard_gamma_grad_array(alpha, x):
    """d x / d alpha at fixed cdf: -(d/dalpha P(alpha, x)) / pdf(x; alpha), P the regularised lower incomplete
    gamma; nan (pdf underflow) gives 0, as torch's.

    deviation from torch: torch evaluates this with series, saddle-point and rational approximations (about 1e-3
    relative error in places); here d/dalpha P is a central difference of SciPy's (or cupyx's) gammainc, accurate
    to about 1e-7, taken on P below the mean and on Q = 1 - P above it so the tail keeps its digits."""
    xp = get_array_module(alpha)
    a, x = alpha.astype(np.float64), x.astype(np.float64)
    h = 1e-5 * a
    with errstate(xp, invalid="ignore", divide="ignore", over="ignore"):
        d_lower = backend.special("gammainc", a + h, x) - backend.special("gammainc", a - h, x)
        d_upper = backend.special("gammaincc", a - h, x) - backend.special("gammaincc", a + h, x)
        d_cdf = xp.where(x < a, d_lower, d_upper) / (2 * h)
        log_pdf = (a - 1) * xp.log(x) - x - backend.lgamma(a)
        grad = -d_cdf / xp.exp(log_pdf)
    return xp.where(xp.isnan(grad), 0.0, grad).astype(alpha.dtype)


class StandardGamma(Function):
    """out ~ Gamma(alpha, 1), drawn on the host from the framework generator (NumPy's Marsaglia-Tsang sampler),
    at least the dtype's tiny as torch clamps it. Saves alpha and out."""

    node_name, array_forward = "StandardGammaBackward0", True

    @staticmethod
    def forward(ctx, alpha):
        host = to_numpy(alpha).astype(np.float64)
        x = np.maximum(_gen(None).standard_gamma(host), np.finfo(alpha.dtype).tiny)
        out = to_device(np.asarray(x, dtype=alpha.dtype), device_of(alpha))
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, out = ctx.saved_tensors  # torch: grad * _standard_gamma_grad(self, result), itself not differentiable
        return grad * Tensor._make(standard_gamma_grad_array(alpha._array, out._array))


def standard_gamma(alpha: Tensor) -> Tensor:
    """A draw from Gamma(alpha, 1) per element, differentiable in alpha (torch._standard_gamma)."""
    return StandardGamma.apply(alpha)
