"""LU factorization: linalg.lu_factor_ex (and lu_factor), linalg.lu, lu_unpack and linalg.lu_solve, as torch's.

Real dtypes, partial pivoting, batched over leading dims; A may be rectangular (m x n, k = min(m, n)).  LAPACK's
getrf/getrs run per matrix through backend.scipy_linalg (SciPy on the CPU, cupyx on the GPU); the pivots are int32
and 1-based, as LAPACK's and torch's.  The backward formulas are torch's (linalg_lu_backward, lu_factor_ex_backward,
linalg_lu_solve_LU, lu_unpack_backward in FunctionsManual.cpp), written with Tensor ops so that create_graph gives
higher derivatives."""
from __future__ import annotations

import collections
import math
import warnings

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ...backend import get_array_module, input_check, scipy_linalg
from .._util import scalar_type_name
from ..shape import cat
from .checks import batch_prefix, lapack_layout
from .triangular import each_matrix, LinalgSolveTriangular


def _check_factor_input(a, fn: str, pivot: bool) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: {list(a.shape)} instead")
    if a.dtype.kind not in "fV" or a.dtype.itemsize < 4:  # LAPACK has no half precision
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{scalar_type_name(a.dtype)}\'')
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


_lu_unpack = collections.namedtuple("lu_unpack", ["P", "L", "U"])


def lu_factor_arrays(a):
    """(LU packed: L's strict lower part and U, pivots int32 1-based, info int32: 0 or the 1-based position of the
    first exactly-zero diagonal element of U) for each matrix of the batch."""
    xp = get_array_module(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    count = math.prod(batch)
    if count == 0 or k == 0:
        piv = xp.broadcast_to(xp.arange(1, k + 1, dtype=np.int32), batch + (k,)).copy()
        return a.copy(), piv, xp.zeros(batch, dtype=np.int32)
    flat = a.reshape((count, m, n))
    factors, pivots = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy warns on an exactly singular matrix: info says so, as LAPACK's
        for i in range(count):
            lu, piv = scipy_linalg("lu_factor", flat[i], check_finite=False)
            factors.append(lu)
            pivots.append(piv)
    lu = xp.stack(factors).reshape(a.shape).astype(a.dtype, copy=False)
    piv = (xp.stack(pivots).astype(np.int32) + 1).reshape(batch + (k,))
    zero = xp.diagonal(lu, 0, -2, -1) == 0
    info = xp.where(zero.any(axis=-1), xp.argmax(zero, axis=-1) + 1, 0).astype(np.int32)
    return lu, piv, info


def permutation_array(piv, m: int, dtype):
    """P (m x m) with A = P L U from LAPACK's pivots: row i was swapped with row piv[i] - 1, in order."""
    xp = get_array_module(piv)
    batch, k = piv.shape[:-1], piv.shape[-1]
    count = math.prod(batch)
    perm = xp.broadcast_to(xp.arange(m), (count, m)).copy()
    swaps = piv.reshape((count, k)).astype(np.int64) - 1
    rows = xp.arange(count)
    for i in range(k):
        j = swaps[:, i]
        row_i = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = row_i
    p = xp.zeros((count, m, m), dtype=dtype)
    p[rows[:, None], perm, xp.arange(m)[None, :]] = 1  # column c of P has its one in row perm[c]
    return p.reshape(batch + (m, m))


def unpack_arrays(lu, piv, data: bool = True, pivots: bool = True) -> tuple:
    """(P, L, U) from the packed LU and the pivots; an empty array for what the flags leave out (torch's)."""
    xp = get_array_module(lu)
    m, n = lu.shape[-2:]
    k = min(m, n)
    empty = xp.zeros(0, dtype=lu.dtype)
    p = permutation_array(piv, m, lu.dtype) if pivots else empty
    if not data:
        return p, empty, empty
    lower = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    return p, lower, xp.triu(lu[..., :k, :])


def lu_error(info, fn: str) -> RuntimeError | None:
    """torch's error for a factor with an exactly-zero U[i, i] (lu_factor, lu_factor_ex with check_errors)."""
    with input_check():
        infos = [int(i) for i in info.reshape(-1).tolist()]
    for b, i in enumerate(infos):
        if i:
            return RuntimeError(f"{fn}: {batch_prefix(info.shape + (0, 0), b)}U[{i},{i}] is zero and using it on "
                                "lu_solve would result in a division by zero. If you still want to perform the "
                                "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return None


class LinalgLuFactorEx(Function):
    """(LU, pivots, info) of A = P L U (torch's linalg_lu_factor_ex). Saves LU and the pivots."""

    half_kernel = "lu_cpu"
    node_name, array_forward = "LinalgLuFactorExBackward0", True

    @staticmethod
    def forward(ctx, a, pivot=True, check=None):
        _check_factor_input(a, "torch.lu_factor", pivot)
        lu, piv, info = lu_factor_arrays(a)
        err = lu_error(info, check) if check else None
        if err is not None:
            raise err
        lu = lapack_layout(get_array_module(a), lu)
        ctx.pivot = pivot
        ctx.save_for_backward(lu, piv)
        return lu, piv, info

    @staticmethod
    def backward(ctx, grad, grad_pivots, grad_info):
        lu, piv = ctx.saved_tensors
        # torch's lu_factor_ex_backward: L's gradient is the first k columns of grad, U's its first k rows
        p, lower, upper = LuUnpack.apply(lu, piv, True, ctx.pivot)
        k = min(lu.shape[-2:])
        return lu_backward(grad[..., :, :k], grad[..., :k, :], p, lower, upper, ctx.pivot), None, None


class LinalgLu(Function):
    """(P, L, U) with A = P L U, L unit lower (m x k), U upper (k x n). Saves P, L and U; P gets no gradient."""

    half_kernel = "lu_cpu"
    node_name, array_forward = "LinalgLuBackward0", True

    @staticmethod
    def forward(ctx, a, pivot=True):
        _check_factor_input(a, "linalg.lu", pivot)
        lu, piv, _ = lu_factor_arrays(a)
        p, lower, upper = unpack_arrays(lu, piv)
        ctx.pivot = pivot
        ctx.mark_non_differentiable(p)
        ctx.save_for_backward(p, lower, upper)
        return p, lower, upper

    @staticmethod
    def backward(ctx, grad_p, grad_l, grad_u):
        p, lower, upper = ctx.saved_tensors
        return lu_backward(grad_l, grad_u, p, lower, upper, ctx.pivot), None


class LuUnpack(Function):
    """(P, L, U) unpacked from lu_factor's LU and pivots (torch.lu_unpack). Saves nothing."""

    node_name, array_forward, index_args = "LuUnpackBackward0", True, (1,)

    @staticmethod
    def forward(ctx, lu, piv, unpack_data=True, unpack_pivots=True):
        if piv.dtype != np.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
                               "\nNote: this function is intended to be used with the output produced by "
                               "torch.linalg.lu_factor")
        ctx.size, ctx.data = lu.shape[-2:], unpack_data
        out = unpack_arrays(lu, piv, unpack_data, unpack_pivots)
        ctx.mark_non_differentiable(out[0])
        return out

    @staticmethod
    def backward(ctx, grad_p, grad_l, grad_u):
        if not ctx.data:
            return None, None, None, None
        # torch's lu_unpack_backward: L's strict lower part and U's upper part, back in the packed m x n layout
        m, n = ctx.size
        k = min(m, n)
        lower, upper = grad_l.tril(-1), grad_u.triu()
        if m > k:  # tall: U's rows on top of L's k columns
            grad = cat([lower[..., :k, :] + upper, lower[..., k:, :]], dim=-2)
        elif n > k:  # wide: L's columns left of U's
            grad = cat([upper[..., :, :k] + lower, upper[..., :, k:]], dim=-1)
        else:
            grad = lower + upper
        return grad, None, None, None


def _tri_solve(a, b, upper: bool, left: bool = True, unit: bool = False):
    return LinalgSolveTriangular.apply(a, b, upper, left, unit)


def lu_backward(grad_l, grad_u, p, lower, upper, pivot: bool = True):
    """torch's linalg_lu_backward: A's gradient from those of L (m x k) and U (k x n), with P L U = A."""
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)
    if m == n:
        # gA = P L^{-H} [L^H gL o 1_L + gU U^H o 1_U] U^{-H}
        grad = lower.mT.matmul(grad_l).tril(-1) + grad_u.matmul(upper.mT).triu()
        grad = _tri_solve(upper.mT, grad, False, left=False)
        grad = _tri_solve(lower.mT, grad, True, unit=True)
    elif m < n:
        # wide: gA1 = P L^{-H} [gU1 + (L^H gL o 1_L - gU U^H o 1_U) U1^{-H}], gA2 = P L^{-H} gU2
        grad = lower.mT.matmul(grad_l) - grad_u.triu().matmul(upper.mT)
        grad = _tri_solve(upper[..., :k].mT, grad.tril(-1), False, left=False)
        grad = cat([grad + grad_u[..., :k].triu(), grad_u[..., k:]], dim=-1)
        grad = _tri_solve(lower.mT, grad, True, unit=True)
    else:
        # tall: gA1 = P [gL1 + L1^{-H} (gU U^H o 1_U - L^H gL o 1_L)] U^{-H}, gA2 = P gL2 U^{-H}
        grad = grad_u.matmul(upper.mT) - lower.mT.matmul(grad_l.tril(-1))
        grad = _tri_solve(lower[..., :k, :].mT, grad.triu(), True, unit=True)
        grad = cat([grad + grad_l[..., :k, :].tril(-1), grad_l[..., k:, :]], dim=-2)
        grad = _tri_solve(upper.mT, grad, False, left=False)
    return p.matmul(grad) if pivot else grad


def _check_solve(lu, piv, b, left: bool) -> None:
    if lu.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    if b.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if lu.dtype.kind not in "fV":
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(lu.dtype)}")
    if lu.dtype.itemsize < 4:  # LAPACK has no half precision
        raise NotImplementedError(f'"linalg.lu_solve_cpu" not implemented for \'{scalar_type_name(lu.dtype)}\'')
    if lu.shape[-1] != lu.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{lu.shape[-2]} by {lu.shape[-1]} matrices")
    if (b.shape[-2] if left else b.shape[-1]) != lu.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({lu.shape[-2]}x{lu.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    if b.dtype != lu.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{scalar_type_name(lu.dtype)} and B of type {scalar_type_name(b.dtype)} instead")
    if piv.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if piv.shape[-1:] != lu.shape[-1:]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")


class LinalgLuSolve(Function):
    """X with A X = B, A^H X = B (adjoint), X A = B or X A^H = B (left=False), A = P L U given by lu_factor.
    Saves LU, the pivots and X."""

    half_kernel = "linalg.lu_solve_cpu"
    node_name, array_forward, index_args = "LinalgLuSolveBackward0", True, (1,)

    @staticmethod
    def forward(ctx, lu, piv, b, left=True, adjoint=False):
        _check_solve(lu, piv, b, left)
        xp = get_array_module(lu)
        ctx.conf, ctx.shapes = (left, adjoint), (lu.shape, b.shape)
        # X A = B is A^T X^T = B^T: getrs solves A or A^T against columns, so the right side is transposed
        rhs = b if left else xp.swapaxes(b, -1, -2)
        trans = int(adjoint == left)
        x = each_matrix(xp, [lu, piv[..., None], rhs],
                        lambda m, p, r: scipy_linalg("lu_solve", (m, p[:, 0] - 1), r, trans=trans,
                                                     check_finite=False), rhs.shape, lu.dtype)
        x = lapack_layout(xp, x if left else xp.swapaxes(x, -1, -2))
        ctx.save_for_backward(lu, piv, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        lu, piv, x = ctx.saved_tensors
        left, adjoint = ctx.conf
        lu_shape, b_shape = ctx.shapes
        gb = sum_to(LinalgLuSolve.apply(lu, piv, grad, left, not adjoint), b_shape) \
            if ctx.needs_input_grad[2] else None
        glu = sum_to(lu_solve_lu_grad(grad, lu, piv, x, left, adjoint), lu_shape) \
            if ctx.needs_input_grad[0] else None
        return glu, None, gb, None, None


def lu_solve_lu_grad(gx, lu, piv, x, left: bool, adjoint: bool):
    """torch's linalg_lu_solve_LU: the gradient for the packed factors of lu_solve's A."""
    p, lower, upper = LuUnpack.apply(lu, piv, True, left == adjoint)
    if left != adjoint:
        # gR = U^{-H} op(-gX) op(X)^H; gL = (L^{-H} gR U^H).tril(-1); gU = gR.triu()
        gr = _tri_solve(upper.mT, -(gx if left else gx.mT).matmul(x.mT if left else x), False)
        gl = _tri_solve(lower.mT, gr.matmul(upper.mT), True, unit=True).tril(-1)
        return gl + gr.triu()
    # gR = -P^T op(X) op(gX)^H P L^{-H}; gL = gR.tril(-1); gU = (L^H gR U^{-H}).triu()
    gr = -p.mT.matmul(x if left else x.mT).matmul(gx.mT if left else gx).matmul(p)
    gr = _tri_solve(lower.mT, gr, True, left=False, unit=True)
    gu = _tri_solve(upper.mT, lower.mT.matmul(gr), False, left=False).triu()
    return gr.tril(-1) + gu


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """(P, L, U) from lu_factor's (LU, pivots), as torch.lu_unpack."""
    return _lu_unpack(*LuUnpack.apply(LU_data, LU_pivots, unpack_data, unpack_pivots))
