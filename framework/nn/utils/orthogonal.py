"""parametrizations.orthogonal: a weight kept orthogonal (orthonormal columns, or rows when it is wide) by
computing it from an unconstrained tensor on every access (torch.nn.utils.parametrizations.orthogonal).

Three maps from the unconstrained tensor X to Q: ``matrix_exp`` and ``cayley`` take the skew-symmetric
A = tril(X) - tril(X)^H and give exp(A) or (I - A/2)^{-1} (I + A/2); ``householder`` reads X as Householder
reflectors (linalg.householder_product).  With ``use_trivialization`` (the default) Q is ``base @ map(X)``: the
buffer ``base`` holds the orthogonal weight the module was given, and X starts at -I (map(-I) = I), so training
moves away from ``base`` (Lezcano-Casado 2019's dynamic trivialization).
"""
from __future__ import annotations

from enum import Enum, auto

import ml_dtypes
import numpy as np

from ... import creation
from ...autograd.grad_mode import no_grad
from ...ops.pointwise import add
from ...ops.shape import cat
from ...ops.linalg import geqrf, householder_product
from ...ops.linalg import matrix_exp
from ...ops.linalg import LinalgSolve
from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize


def _is_orthogonal(Q: Tensor) -> bool:
    """Q^H Q = I to within 10 n eps."""
    n, k = Q.size(-2), Q.size(-1)
    Id = creation.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * float(ml_dtypes.finfo(Q._array.dtype).eps)
    return bool((Q.mH @ Q).allclose(Id, atol=eps))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A = QR (A tall) with diag(R) real and non-negative."""
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """X -> Q orthogonal, by the chosen map (times ``base`` with the trivialization)."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:  # a wide matrix: orthonormal rows, computed as the tall one's columns
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # complete to a square matrix with zero columns
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = creation.eye(n, dtype=A.dtype, device=A.device)
                Q = LinalgSolve.apply(add(Id, A, alpha=-0.5), add(Id, A, alpha=0.5), True)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))  # the scale that makes each reflector orthogonal
            Q = householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # the signs kept on X's diagonal
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q: Tensor) -> Tensor:
        """The X this parametrization maps to Q (with the trivialization: base = Q made orthogonal, X = -I)."""
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # householder: Q's reflectors, with the signs of R's diagonal on the diagonal
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete the tall matrix to a square one with random columns, then orthogonalize
            N = creation.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = creation.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Register an orthogonal parametrization on ``module.<name>`` (a matrix or a batch of matrices).

    Args:
        module: the layer.
        name: the tensor to keep orthogonal.
        orthogonal_map: "matrix_exp", "cayley" or "householder"; default "matrix_exp" for square or complex
            matrices, "householder" otherwise.
        use_trivialization: keep the initial orthogonal matrix in ``parametrizations.<name>[0].base`` and
            parametrize the change from it.

    Returns:
        The same module, parametrized.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
