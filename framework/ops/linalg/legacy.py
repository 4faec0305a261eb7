"""torch's top-level linear-algebra functions (torch.det, inverse, cholesky, qr, svd, lu, lu_solve, ...) and their
older conventions (svd's some= and V, qr's some=), on the op classes of linalg_solve.py, linalg_decomp.py and
linalg_lu.py."""
from __future__ import annotations

import collections
import math
import warnings

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ... import creation
from ...tensor import Tensor
from ..pointwise import where
from .blas import matmul
from .._util import refuse_low_precision
from .checks import check_matrix
from .decompositions import LinalgPinv, LinalgQr, LinalgSvd
from .lu_decomposition import LinalgLuFactorEx, LinalgLuSolve
from .products import multi_dot
from .determinant import LinalgDet, LinalgSlogdet
from .solve import Cholesky, LinalgInv, LinalgMatrixExp


_slogdet = collections.namedtuple("slogdet", ["sign", "logabsdet"])


_qr = collections.namedtuple("qr", ["Q", "R"])


_svd = collections.namedtuple("svd", ["U", "S", "V"])


def det(input: Tensor) -> Tensor:
    return LinalgDet.apply(input)


def slogdet(input: Tensor):
    return _slogdet(*LinalgSlogdet.apply(input))


def logdet(input: Tensor) -> Tensor:
    """log det A: nan for a negative determinant, -inf for a zero one (as torch: a where over slogdet)."""
    refuse_low_precision(input, "logdet")
    sign, logabs = LinalgSlogdet.apply(input)
    return where(sign == -1, math.nan, logabs)


def inverse(input: Tensor) -> Tensor:
    if _amp.on and autocast_applies("inverse", input):
        return autocast_run("inverse", inverse, input)
    return LinalgInv.apply(input)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    if _amp.on and autocast_applies("pinverse", input, rcond):
        return autocast_run("pinverse", pinverse, input, rcond)
    return LinalgPinv.apply(input, None, rcond)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    if _amp.on and autocast_applies("cholesky", input, upper):
        return autocast_run("cholesky", cholesky, input, upper)
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                  "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) "
                  "inputs.", UserWarning, stacklevel=2)
    return Cholesky.apply(input, upper)


def qr(input: Tensor, some: bool = True):
    """(Q, R): torch.qr's some=True is linalg.qr's mode 'reduced', some=False 'complete'."""
    if _amp.on and autocast_applies("qr", input, some):
        return autocast_run("qr", qr, input, some)
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                  "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    return _qr(*LinalgQr.apply(input, "reduced" if some else "complete"))


def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """(U, S, V) with A = U diag(S) V^H (V, not Vh: torch.svd's convention); compute_uv=False: U, V zeros."""
    if _amp.on and autocast_applies("svd", input, some, compute_uv):
        return autocast_run("svd", svd, input, some, compute_uv)
    u, s, vh = LinalgSvd.apply(input, not some)
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return _svd(creation.zeros(batch + (m, m), dtype=input.dtype, device=input.device), s,
                    creation.zeros(batch + (n, n), dtype=input.dtype, device=input.device))
    return _svd(u, s, vh.mT)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """A^n by repeated squaring as torch's (n < 0: of the inverse; n = 0: the identity)."""
    check_matrix(input, "linalg.matrix_power", floating=False)
    a = input
    if n == 0:
        # torch's: a contiguous clone overwritten by the identity (CopyBackwards over CloneBackward0: zero grad)
        return a.clone().copy_(creation.eye(a.shape[-1], dtype=a.dtype, device=a.device).expand(*a.shape))
    if n < 0:
        a, n = LinalgInv.apply(a, "linalg.inv"), -n
    if n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def matrix_exp(input: Tensor) -> Tensor:
    return LinalgMatrixExp.apply(input)


def chain_matmul(*matrices: Tensor, out=None) -> Tensor:
    """The product of 2-D matrices (deprecated in torch for linalg.multi_dot; one matrix: a copy)."""
    if out is not None:
        raise NotImplementedError("torch.chain_matmul(out=...) is not supported "
                                  "(framework has no out= arguments; use the returned tensor)")
    if _amp.on and autocast_applies("chain_matmul", *matrices):
        return autocast_run("chain_matmul", chain_matmul, *matrices)
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False):
    """(LU, pivots) or (LU, pivots, infos) of torch.lu (deprecated: linalg.lu_factor_ex); a singular A does not
    raise."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                  "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                  "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    LU, pivots, infos = LinalgLuFactorEx.apply(A, pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """X with A X = b for A = P L U from torch.lu (deprecated: linalg.lu_solve, arguments reversed)."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                  "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                  "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
                  UserWarning, stacklevel=2)
    return LinalgLuSolve.apply(LU_data, LU_pivots, b)
