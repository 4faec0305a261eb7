"""Cholesky factor and triangular solve for MultivariateNormal, as torch.linalg.cholesky / solve_triangular.

Both run on arrays from any backend (a loop over the n columns of batched xp ops: no xp.linalg, which the strict
stand-in and some backends lack); their backwards are torch's formulas built from these ops, so they nest.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..backend import errstate, get_array_module, to_numpy
from ..ops.linalg import cholesky_inverse  # noqa: F401  (torch.cholesky_inverse, for MultivariateNormal)
from ..tensor import Tensor


def cholesky_array(a):
    """Lower L with L @ L.T = a over the leading batch dims; a non-positive pivot leaves nan in L."""
    xp = get_array_module(a)
    n = a.shape[-1]
    L = xp.zeros_like(a)
    with errstate(xp, invalid="ignore", divide="ignore"):
        for j in range(n):
            pivot = a[..., j, j] - (L[..., j, :j] * L[..., j, :j]).sum(-1)
            d = xp.sqrt(xp.where(pivot > 0, pivot, xp.nan))
            L[..., j, j] = d
            if j + 1 < n:
                dots = (L[..., j + 1:, :j] * L[..., j:j + 1, :j]).sum(-1)
                L[..., j + 1:, j] = (a[..., j + 1:, j] - dots) / d[..., None]
    return L


def _not_positive_definite(L) -> str | None:
    """torch's message when a pivot failed: the first batch element and the order of its failing minor."""
    diag = to_numpy(get_array_module(L).diagonal(L, 0, -2, -1))
    bad = ~(diag > 0)
    if not bad.any():
        return None
    flat = bad.reshape(-1, bad.shape[-1])
    b = int(np.argmax(flat.any(-1)))
    order = int(np.argmax(flat[b])) + 1
    batch = f"(Batch element {b}): " if L.ndim > 2 else ""
    return (f"linalg.cholesky: {batch}The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {order} is not positive-definite).")


def solve_triangular_array(A, B, upper: bool):
    """X with A @ X = B (A triangular, left side), broadcasting the batch dims, by substitution row by row."""
    xp = get_array_module(A)
    n = A.shape[-1]
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    X = xp.zeros(batch + B.shape[-2:], dtype=np.result_type(A.dtype, B.dtype))
    rows = range(n - 1, -1, -1) if upper else range(n)
    for i in rows:
        done = slice(i + 1, n) if upper else slice(0, i)
        rhs = B[..., i, :] - (A[..., i, done, None] * X[..., done, :]).sum(-2)
        X[..., i, :] = rhs / A[..., i, i, None]
    return X


def _sum_to(t: Tensor, shape) -> Tensor:
    """Sum a broadcast gradient back to the batch shape of its input."""
    shape = tuple(shape)
    lead = t.dim() - len(shape)
    if lead:
        t = t.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and t.shape[i] != 1)
    return t.sum(dims, keepdim=True) if dims else t


class SolveTriangular(Function):
    """out = A^-1 B for triangular A (torch.linalg.solve_triangular, left=True). Saves A and out."""

    node_name, array_forward = "LinalgSolveTriangularBackward0", True

    @staticmethod
    def forward(ctx, A, B, upper):
        out = solve_triangular_array(A, B, upper)
        ctx.upper, ctx.a_shape, ctx.b_shape = upper, A.shape, B.shape
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, out = ctx.saved_tensors
        upper = ctx.upper
        grad_B = SolveTriangular.apply(A.mT, grad, not upper)  # torch: A^-H grad
        grad_A = None
        if ctx.needs_input_grad[0]:
            grad_A = -(grad_B @ out.mT)
            grad_A = _sum_to(grad_A.triu() if upper else grad_A.tril(), ctx.a_shape)
        return grad_A, _sum_to(grad_B, ctx.b_shape) if ctx.needs_input_grad[1] else None, None


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True) -> Tensor:
    """A^-1 B (left) or B A^-1 (right) for triangular A, as torch.linalg.solve_triangular."""
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return solve_triangular(A.mT, B.mT, upper=not upper).mT
    return SolveTriangular.apply(A, B, upper)


class Cholesky(Function):
    """out = L, lower, with L L^T = a (torch.linalg.cholesky). Saves out."""

    node_name, array_forward = "LinalgCholeskyExBackward0", True

    @staticmethod
    def forward(ctx, a):
        L = cholesky_array(a)
        message = _not_positive_definite(L)
        if message is not None:
            raise RuntimeError(message)
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx, grad):
        (L,) = ctx.saved_tensors
        # torch's cholesky_backward: gA = L^-H Phi(L^H gL) L^-1, with Phi symmetrising the lower triangle
        g = (L.mT @ grad).tril()
        g = 0.5 * (g + g.tril(-1).mT)
        g = solve_triangular(L.mT, g, upper=True)
        return solve_triangular(L, g, upper=False, left=False)


def cholesky(a: Tensor) -> Tensor:
    return Cholesky.apply(a)
