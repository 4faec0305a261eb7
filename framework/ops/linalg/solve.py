"""Inverses, solves and Cholesky: linalg.inv/solve/cholesky/matrix_exp as torch's
(batched over leading dims; backward formulas from torch's FunctionsManual.cpp, written with Tensor ops so that
create_graph gives higher derivatives)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ...backend import get_array_module, input_check
from ..shape import cat
from .checks import (batch_prefix, check_matrix, check_same_dtype, lapack_layout, LinAlgError, lu_zero_pivot,
                     not_positive_definite, singular_error)


def _all_finite(xp, a) -> bool:
    with input_check():
        return bool(xp.isfinite(a).all())


def inv_array(a, fn: str | None = "linalg.inv"):
    """A^{-1} of a (batch of) square matrices, or torch's LinAlgError naming the zero pivot when one is singular
    (numpy raises on a singular matrix, cupy returns inf/nan: both are turned into torch's error). fn None: no
    error, a singular matrix's inverse holds inf/nan (torch's unchecked inverse inside backward formulas)."""
    xp = get_array_module(a)
    try:
        out = xp.linalg.inv(a)
    except Exception:  # numpy.linalg.LinAlgError: singular
        out = None
    if fn is not None and (out is None or not _all_finite(xp, out)):
        err = singular_error(a, fn)
        if err is not None:
            raise err
    if out is None:  # unchecked, and numpy refused the batch: invert matrix by matrix, nans for a singular one
        out = xp.stack([_inv_or_nan(xp, m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape) \
            if a.size else xp.full(a.shape, math.nan, dtype=a.dtype)
    return out


def _inv_or_nan(xp, m):
    """deviation from torch: a singular matrix's unchecked inverse is all nan (torch's LU leaves inf and nan)."""
    try:
        return xp.linalg.inv(m)
    except Exception:  # numpy.linalg.LinAlgError
        return xp.full(m.shape, math.nan, dtype=m.dtype)


class LinalgInv(Function):
    """out = A^{-1} (torch's linalg_inv_ex). Saves out."""

    low_precision_check = "linalg.inv"
    node_name, array_forward = "LinalgInvExBackward0", True

    @staticmethod
    def forward(ctx, a, fn="linalg.inv"):
        check_matrix(a, fn or "linalg.inv")
        out = lapack_layout(get_array_module(a), inv_array(a, fn))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (inverse,) = ctx.saved_tensors
        inv_h = inverse.mT
        return -inv_h.matmul(grad.matmul(inv_h)), None


def is_vector_rhs(a_shape: tuple, b_shape: tuple) -> bool:
    """torch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s) rather than matrices."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and tuple(b_shape) == tuple(a_shape[:-1]))


class LinalgSolve(Function):
    """X with A X = B (B a matrix or, as torch decides, a vector; batch dims broadcast). Saves A and X."""

    half_kernel = "lu_cpu"
    node_name, array_forward = "LinalgSolveExBackward0", True

    @staticmethod
    def forward(ctx, a, b, left=True):
        check_matrix(a, "linalg.solve")
        check_same_dtype("linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type "
                         "{} instead", a, b)
        xp = get_array_module(a)
        ctx.left, ctx.shapes, a_in = left, (a.shape, b.shape), a
        if not left:  # X A = B: A^T X^T = B^T
            a, b = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)
        vector = left and is_vector_rhs(a.shape, b.shape)
        bm = b[..., None] if vector else b
        if bm.shape[-2] != a.shape[-1]:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                               f"({a.shape[-2]}x{a.shape[-1]} and {bm.shape[-2]}x{bm.shape[-1]})")
        batch = tuple(np.broadcast_shapes(a.shape[:-2], bm.shape[:-2]))
        ab = xp.broadcast_to(a, batch + a.shape[-2:])
        bb = xp.broadcast_to(bm, batch + bm.shape[-2:])
        try:
            x = xp.linalg.solve(ab, bb)
        except Exception:
            x = None
        if x is None or not _all_finite(xp, x):
            found = lu_zero_pivot(ab)
            if found is not None:
                raise LinAlgError(f"torch.linalg.solve: {batch_prefix(ab.shape, found[0])}The solver failed because "
                                  "the input matrix is singular.")
        x = x[..., 0] if vector else lapack_layout(xp, x) if left else xp.ascontiguousarray(xp.swapaxes(x, -1, -2))
        ctx.vector = vector
        ctx.save_for_backward(a_in, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        # torch's linalg_solve_backward: gB = A^{-H} gX, gA = -gB X^H (left=False: gB = gX A^{-H}, gA = -X^H gB),
        # a vector right-hand side unsqueezed into a matrix first and B's gradient squeezed back (SqueezeBackward1)
        if ctx.vector:
            grad, x = grad.unsqueeze(-1), x.unsqueeze(-1)
        gb = LinalgSolve.apply(a.mT, grad, ctx.left)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = sum_to(-gb.matmul(x.mT) if ctx.left else -x.mT.matmul(gb), ctx.shapes[0])
        if not ctx.needs_input_grad[1]:
            return ga, None, None
        return ga, sum_to(gb.squeeze(-1) if ctx.vector else gb, ctx.shapes[1]), None


class LinalgCholesky(Function):
    """L (lower, or its transpose U for upper=True) with A = L L^H. Saves L."""

    half_kernel = "cholesky_cpu"
    node_name, array_forward = "LinalgCholeskyExBackward0", True
    fn = "linalg.cholesky"

    @classmethod
    def forward(cls, ctx, a, upper=False):
        check_matrix(a, cls.fn)
        xp = get_array_module(a)
        try:
            lower = xp.linalg.cholesky(a)
        except Exception:
            lower = None
        if lower is None or not _all_finite(xp, lower):
            err = not_positive_definite(a, lower, cls.fn)
            if err is not None:
                raise err
        ctx.upper = upper
        lower = lapack_layout(xp, lower)
        ctx.save_for_backward(lower)
        return xp.ascontiguousarray(xp.swapaxes(lower, -1, -2)) if upper else lower

    @staticmethod
    def backward(ctx, grad):
        (lower,) = ctx.saved_tensors
        g = grad.mT if ctx.upper else grad
        # torch's cholesky_backward: gA = L^{-H} Phi(L^H gL) L^{-1}, Phi taking the lower half with half diagonal
        phi = lower.mT.matmul(g).tril()
        phi = 0.5 * (phi + phi.tril(-1).mT)
        y = LinalgSolve.apply(lower.mT, phi)  # L^{-H} Phi
        return LinalgSolve.apply(lower.mT, y.mT).mT, None


class Cholesky(LinalgCholesky):
    """torch.cholesky (deprecated alias): the same factor, its own node and error prefix."""

    node_name = "CholeskyBackward0"
    fn = "cholesky"


def _expm_array(a):
    """exp(A) by scaling and squaring with a degree-18 Taylor polynomial (float64 accurate to a few ulps)."""
    xp = get_array_module(a)
    norm = xp.abs(a).sum(axis=-2).max(axis=-1) if a.size else xp.zeros(1)
    top = float(norm.max()) if norm.size else 0.0  # a host read: the number of squarings depends on the values
    squarings = max(0, int(math.ceil(math.log2(top / 0.25)))) if top > 0.25 and math.isfinite(top) else 0
    x = a / (2.0 ** squarings)
    eye = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    out, term = eye.copy(), eye
    for k in range(1, 19):
        term = (term @ x) / k
        out = out + term
    for _ in range(squarings):
        out = out @ out
    return out


class LinalgMatrixExp(Function):
    """out = exp(A) = sum A^k / k!. Saves A."""

    node_name, array_forward = "LinalgMatrixExpBackward0", True

    @staticmethod
    def forward(ctx, a):
        check_matrix(a, "linalg.matrix_exp")
        ctx.save_for_backward(a)
        return _expm_array(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # torch's linalg_matrix_exp_differential: the top-right block of exp([[A^H, G], [0, A^H]])
        n = a.shape[-1]
        ah = a.mT
        top = cat([ah, grad], dim=-1)
        bottom = cat([grad.new_zeros(tuple(grad.shape)), ah], dim=-1)
        big = LinalgMatrixExp.apply(cat([top, bottom], dim=-2))
        return big[..., :n, n:]
