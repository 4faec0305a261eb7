"""Standard-gamma and Dirichlet draws with reparameterised gradients (torch._standard_gamma and torch's _Dirichlet
Function, with their backwards), the source of Gamma, Chi2, StudentT, Beta and Dirichlet's rsample."""
from __future__ import annotations

import ml_dtypes
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
        x = np.maximum(_gen(None).standard_gamma(host), ml_dtypes.finfo(alpha.dtype).tiny)
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


def dirichlet_grad_array(x, alpha, total):
    """torch's _dirichlet_grad: -(d/dalpha I_x(alpha, beta)) / beta_pdf(x) / (1 - x) with beta = total - alpha
    held fixed, I the regularised incomplete beta.

    deviation from torch: as standard_gamma_grad_array, a central difference of SciPy's (or cupyx's) betainc
    (on I below the mean, on 1 - I = I_(1-x)(beta, alpha) above it) where torch uses series and rational
    approximations."""
    xp = get_array_module(alpha)
    x, a, t = x.astype(np.float64), alpha.astype(np.float64), total.astype(np.float64)
    b = t - a
    h = 1e-5 * a
    with errstate(xp, invalid="ignore", divide="ignore", over="ignore"):
        d_lower = backend.special("betainc", a + h, b, x) - backend.special("betainc", a - h, b, x)
        d_upper = backend.special("betainc", b, a - h, 1 - x) - backend.special("betainc", b, a + h, 1 - x)
        d_cdf = xp.where(x < a / t, d_lower, d_upper) / (2 * h)
        log_pdf = ((a - 1) * xp.log(x) + (b - 1) * xp.log1p(-x)
                   - (backend.lgamma(a) + backend.lgamma(b) - backend.lgamma(t)))
        grad = -d_cdf / xp.exp(log_pdf) / (1 - x)
    return xp.where(xp.isnan(grad), 0.0, grad).astype(alpha.dtype)


class Dirichlet(Function):
    """out ~ Dirichlet(alpha) over the last dim: standard gammas normalised to sum 1, drawn on the host from the
    framework generator (torch's _sample_dirichlet, clamped inside (0, 1) as it is). Saves alpha and out."""

    node_name = "DirichletBackward"  # torch: a Python Function (torch.distributions.dirichlet._Dirichlet)
    array_forward = True

    @staticmethod
    def forward(ctx, alpha):
        info = ml_dtypes.finfo(alpha.dtype)
        g = np.maximum(_gen(None).standard_gamma(to_numpy(alpha).astype(np.float64)), info.tiny)
        x = np.clip(g / g.sum(-1, keepdims=True), info.tiny, 1 - info.eps)
        out = to_device(np.asarray(x, dtype=alpha.dtype), device_of(alpha))
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors  # torch's _Dirichlet_backward
        total = alpha._array.sum(-1, keepdims=True) + get_array_module(alpha._array).zeros_like(alpha._array)
        d = Tensor._make(dirichlet_grad_array(x._array, alpha._array, total))
        return d * (grad - (x * grad).sum(-1, keepdim=True))


def dirichlet(alpha: Tensor) -> Tensor:
    """A draw from Dirichlet(alpha) over the last dim, differentiable in alpha (torch's _Dirichlet.apply)."""
    return Dirichlet.apply(alpha)
