"""torch.linalg: norms, inverses, solves, decompositions and matrix functions, batched over leading dims.

The op classes live in ops/linalg/solve.py, ops/linalg/decompositions.py, ops/linalg/products.py, ops/linalg/lu_decomposition.py and
ops/linalg/triangular.py; this module gives them torch.linalg's signatures and result tuples.
"""
from __future__ import annotations

import collections
import math

from . import creation, dtypes, ops
from .backend import get_array_module
from .ops.linalg import norm as _vector_norm
from .ops.linalg import LinAlgError, check_floating, check_same_dtype, lu_infos
from .ops._util import refuse_low_precision
from .ops.linalg import LinalgEigh, LinalgLstsq, LinalgPinv, LinalgQr, LinalgSvd
from .ops.linalg import householder_product  # noqa: F401  (torch.linalg.householder_product)
from .ops.linalg import matrix_power  # noqa: F401  (torch.linalg.matrix_power)
from .ops.linalg import multi_dot  # noqa: F401  (torch.linalg.multi_dot)
from .ops.linalg import LinalgLu, LinalgLuFactorEx, LinalgLuSolve, lu_error
from .ops.linalg import LinalgCholesky, LinalgDet, LinalgInv, LinalgMatrixExp, LinalgSlogdet, LinalgSolve
from .ops.linalg import solve_triangular  # noqa: F401  (torch.linalg.solve_triangular)
from .tensor import Tensor

__all__ = ["LinAlgError", "vector_norm", "matrix_norm", "norm", "inv", "inv_ex", "det", "slogdet", "solve",
           "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_power",
           "matrix_exp", "cross", "multi_dot", "vecdot", "lstsq", "diagonal", "lu_factor", "lu_factor_ex", "lu",
           "lu_solve", "solve_triangular"]

_slogdet = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
_qr = collections.namedtuple("linalg_qr", ["Q", "R"])
_eigh = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
_svd = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
_lstsq = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_inv_ex = collections.namedtuple("linalg_inv_ex", ["inverse", "info"])
_cholesky_ex = collections.namedtuple("linalg_cholesky_ex", ["L", "info"])
_lu_factor = collections.namedtuple("linalg_lu_factor", ["LU", "pivots"])
_lu_factor_ex = collections.namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_lu = collections.namedtuple("linalg_lu", ["P", "L", "U"])


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """(sum |x|^ord)^(1/ord) over ``dim`` (all dims when None); ord inf/-inf: max/min |x|, 0: the nonzero count."""
    return _vector_norm(x, p=float(ord), dim=dim, keepdim=keepdim, dtype=dtype)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """Frobenius, nuclear, spectral (2/-2), max column sum (1/-1) or max row sum (inf/-inf) norm over ``dim``."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    check_floating(A._array, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}")
    dims = tuple(d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim)
    if ord not in ("nuc", 2, -2, 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord in (1, -1, math.inf, -math.inf):  # torch's order: the sum over one dim, then max/min over the other
        d0, d1 = dims if ord in (1, -1) else dims[::-1]
        if not keepdim and d0 < d1:
            d1 -= 1
        sums = A.abs().sum(dim=d0, keepdim=keepdim)
        return sums.amax(d1, keepdim=keepdim) if ord > 0 else sums.amin(d1, keepdim=keepdim)
    refuse_low_precision(A, "linalg.matrix_norm")
    # torch permutes the two dims to the end even when they are there already: the input's gradient then comes
    # out of a PermuteBackward0 (seen with create_graph=True)
    n = A.ndim
    perm = [i for i in range(n) if i not in dims] + list(dims)
    s = svdvals(A.permute(*perm))
    # torch: the reduction over the singular values keeps its dim, then one unsqueeze and the inverse permutation
    out = s.sum(-1, keepdim=keepdim) if ord == "nuc" else s.amax(-1, keepdim=keepdim) if ord == 2 else \
        s.amin(-1, keepdim=keepdim)
    return out.unsqueeze(-1).permute(*[perm.index(i) for i in range(n)]) if keepdim else out


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """A vector norm (1 dim, or all of them when ord and dim are None) or a matrix norm (2 dims)."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or dim is None and ord is not None and A.ndim == 2:
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if ord is not None and dim is None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def inv(A: Tensor) -> Tensor:
    """A^{-1}; a singular matrix raises LinAlgError naming the zero pivot, as torch."""
    return LinalgInv.apply(A)


def inv_ex(A: Tensor, *, check_errors: bool = False):
    """(A^{-1}, info): info is LAPACK's (0, or the position of a zero pivot); a singular matrix raises only with
    check_errors, else its inverse holds inf/nan."""
    inverse = LinalgInv.apply(A, "linalg.inv_ex" if check_errors else None)
    infos = lu_infos(A._array) if A.numel() else []
    info = creation.tensor(infos, dtype=dtypes.int32, device=A.device).reshape(tuple(A.shape[:-2]))
    return _inv_ex(inverse, info)


def det(A: Tensor) -> Tensor:
    return LinalgDet.apply(A)


def slogdet(A: Tensor):
    """(sign, log|det A|)."""
    return _slogdet(*LinalgSlogdet.apply(A))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A X = B (left=False: X A = B)."""
    return LinalgSolve.apply(A, B, left)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """L lower triangular with A = L L^H (upper: U = L^H); a matrix that is not positive-definite raises."""
    return LinalgCholesky.apply(A, upper)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    info = creation.zeros(tuple(A.shape[:-2]), dtype=dtypes.int32, device=A.device)
    return _cholesky_ex(cholesky(A, upper=upper), info)


def qr(A: Tensor, mode: str = "reduced"):
    """(Q, R) with A = QR; mode 'reduced', 'complete' or 'r' (R only, Q empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return _qr(*LinalgQr.apply(A, mode))


def eigh(A: Tensor, UPLO: str = "L"):
    """(eigenvalues ascending, eigenvectors as columns) of a symmetric matrix, read from its UPLO triangle."""
    return _eigh(*LinalgEigh.apply(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    return LinalgEigh.apply(A, UPLO)[0]


def svd(A: Tensor, full_matrices: bool = True, *, driver=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending."""
    return _svd(*LinalgSvd.apply(A, full_matrices))


def svdvals(A: Tensor, *, driver=None) -> Tensor:
    return LinalgSvd.apply(A, False)[1]


def pinv(A: Tensor, rcond=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values at or below max(atol, rtol * s_max) dropped); hermitian
    only selects torch's eigh-based path, which gives the same matrix, so the SVD serves both."""
    if rcond is not None:  # torch's older spelling of rtol
        rtol = rcond
    return LinalgPinv.apply(A, atol, rtol)


def matrix_exp(A: Tensor) -> Tensor:
    """exp(A) = sum_k A^k / k!."""
    return LinalgMatrixExp.apply(A)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    return ops.cross(input, other, dim)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """sum(x * y) over ``dim`` (real inputs: no conjugate)."""
    check_same_dtype("linalg.vecdot: Expected x and y to have the same dtype, but found x of type {} and y of type {} "
                     "instead", x._array, y._array)
    return (x * y).sum(dim)


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The minimum-norm least-squares solution of A X = B, as torch's default CPU driver (gelsy) reports it: the
    rank is computed, residuals and singular values are empty (deviation from torch: the driver is not used)."""
    solution = LinalgLstsq.apply(A, B, rcond)
    a = A._array
    xp = get_array_module(a)
    sv = xp.linalg.svd(a, compute_uv=False)
    tol = (rcond if rcond is not None else xp.finfo(a.dtype).eps * max(A.shape[-2:])) * sv[..., :1]
    rank = Tensor._make(xp.asarray((sv > tol).sum(axis=-1), dtype=xp.int64))
    return _lstsq(solution, creation.zeros(0, dtype=A.dtype, device=A.device), rank,
                  creation.zeros(0, dtype=A.dtype, device=A.device))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return ops.diagonal(A, offset, dim1, dim2)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False):
    """(LU, pivots, info): A = P L U packed as LAPACK's getrf (pivots int32, 1-based; info 0, or the 1-based position
    of an exactly-zero U[i, i]); check_errors: such a U raises."""
    return _lu_factor_ex(*LinalgLuFactorEx.apply(A, pivot, "torch.linalg.lu_factor_ex" if check_errors else None))


def lu_factor(A: Tensor, *, pivot: bool = True):
    """(LU, pivots) as lu_factor_ex's; an exactly-zero U[i, i] raises (lu_solve would divide by it)."""
    LU, pivots, info = LinalgLuFactorEx.apply(A, pivot)
    err = lu_error(info._array, "torch.linalg.lu_factor") if A.numel() else None
    if err is not None:
        raise err
    return _lu_factor(LU, pivots)


def lu(A: Tensor, *, pivot: bool = True):
    """(P, L, U) with A = P L U, L unit lower triangular (m x k), U upper triangular (k x n), k = min(m, n)."""
    return _lu(*LinalgLu.apply(A, pivot))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with A X = B (adjoint: A^H X = B; left=False: X A = B or X A^H = B) for A given by lu_factor."""
    return LinalgLuSolve.apply(LU, pivots, B, left, adjoint)
