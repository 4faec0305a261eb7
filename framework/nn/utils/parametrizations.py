"""Parametrizations of weights (torch.nn.utils.parametrizations): ``spectral_norm``, ``weight_norm`` and
``orthogonal`` (in orthogonal.py).

Spectral normalisation (Miyato et al. 2018) divides a weight by its largest singular value sigma, so the layer is
1-Lipschitz; a GAN discriminator built from such layers cannot become arbitrarily steep and overpower G.  sigma is
estimated cheaply by power iteration: the vectors ``_u`` and ``_v`` are buffers that each training-mode forward
refines by one step (under no_grad), so over many steps they track the top singular vectors as W changes.
"""
from __future__ import annotations

from ... import ops
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..functional.normalization import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose3d
from ..modules.conv import ConvTranspose2d
from ..modules.module import Module
from . import parametrize
from .orthogonal import orthogonal  # noqa: F401  (torch's home for it)
from .weight_norm import parametrized_weight_norm


class _SpectralNorm(Module):
    """weight -> weight / sigma, sigma = u . (W v) with W the weight flattened to (size of ``dim``, rest)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)  # torch draws u, then v, from the global generator
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)  # start from good estimates, as torch does

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:  # the output dimension first (ConvTranspose keeps it at 1)
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """u <- W v / |W v|, v <- W^T u / |W^T u|, written into the buffers in place (no graph: u, v are constants)."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(ops.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(ops.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the next training forward updates the buffers in place, and backward must see today's u, v
        u, v = self._u.clone(), self._v.clone()
        sigma = ops.dot(u, ops.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value  # any W is W / sigma of some W (itself, scaled): keep the value as the original


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Register spectral normalisation on ``module.<name>``: it then reads as weight / sigma(weight).

    Args:
        module: the layer (Linear, Conv2d, ConvTranspose2d, ...).
        name: the parameter to normalise.
        n_power_iterations: power-iteration steps per training-mode forward.
        eps: floor of the norms in the power iteration.
        dim: the output dimension of the weight (default 0, or 1 for ConvTranspose).

    Returns:
        The same module, parametrized: ``module.parametrizations.<name>.original`` is the trained Parameter.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Register weight normalisation on ``module.<name>``: it then reads as g * v / ||v||, with g
    (``parametrizations.<name>.original0``) and v (``original1``) new Parameters to train."""
    return parametrized_weight_norm(module, name, dim)
