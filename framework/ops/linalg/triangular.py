"""Triangular solves: linalg.solve_triangular and the legacy torch.triangular_solve, as torch's (real dtypes, batch
dims broadcast). SciPy's (cupyx's on the GPU) solve_triangular runs per matrix through backend.scipy_linalg; the
backward formulas are torch's (linalg_solve_triangular_backward, triangular_solve_backward in FunctionsManual.cpp),
written with Tensor ops so that create_graph gives higher derivatives."""
from __future__ import annotations

import collections
import warnings

import numpy as np

from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ... import dtypes
from ...backend import errstate, get_array_module, scipy_linalg
from .._util import scalar_type_name
from .checks import lapack_layout


def each_matrix(xp, arrays: list, solve, out_shape: tuple, dtype):
    """``solve(*matrices)`` for each matrix of the broadcast batch of ``arrays``, stacked into ``out_shape``."""
    batch = tuple(np.broadcast_shapes(*[a.shape[:-2] for a in arrays]))
    flat = [xp.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:]) for a in arrays]
    count = flat[0].shape[0]
    if count == 0 or 0 in out_shape[-2:]:
        return xp.zeros(batch + out_shape[-2:], dtype=dtype)
    return xp.stack([solve(*[f[i] for f in flat]) for i in range(count)]).reshape(batch + out_shape[-2:])


def solve_triangular_array(a, b, upper: bool, left: bool = True, unit: bool = False, transpose: bool = False):
    """X with op(A) X = B (left) or X op(A) = B, op(A) = A or A^T (transpose), A triangular; an exactly zero
    diagonal gives inf/nan, as torch's (SciPy refuses it: then substitution by hand)."""
    xp = get_array_module(a)
    if not left:  # X op(A) = B  <=>  op(A)^T X^T = B^T
        return xp.swapaxes(solve_triangular_array(a, xp.swapaxes(b, -1, -2), upper, True, unit, not transpose), -1, -2)

    def solve(m, rhs):
        try:
            return scipy_linalg("solve_triangular", m, rhs, trans=int(transpose), lower=not upper,
                                unit_diagonal=unit, check_finite=False)
        except np.linalg.LinAlgError:  # a zero on the diagonal
            return _substitution(xp, m.T if transpose else m, rhs, upper != transpose, unit)
    return each_matrix(xp, [a, b], solve, b.shape, a.dtype)


def _substitution(xp, m, rhs, upper: bool, unit: bool):
    """m^-1 rhs by substitution, row by row (only for a singular m: its zero pivots give inf/nan, as LAPACK's)."""
    n = m.shape[-1]
    x = xp.zeros(rhs.shape, dtype=m.dtype)
    with errstate(xp, divide="ignore", invalid="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            row = rhs[i] - m[i, done] @ x[done]
            x[i] = row if unit else row / m[i, i]
    return x


def _check(a, b, fn: str, left: bool, kernel: str) -> None:
    for name, x in (("A", a), ("B", b)):
        if x.ndim < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if a.dtype.kind not in "fV" or a.dtype.itemsize < 4:  # LAPACK has no half precision
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(a.dtype)}\'')
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if (b.shape[-2] if left else b.shape[-1]) != a.shape[-1]:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")


class LinalgSolveTriangular(Function):
    """X with A X = B (left) or X A = B, A upper or lower triangular (unit diagonal if unitriangular).
    Saves A and X."""

    half_kernel = "triangular_solve_cpu"
    node_name, array_forward = "LinalgSolveTriangularBackward0", True

    @staticmethod
    def forward(ctx, a, b, upper, left=True, unitriangular=False):
        _check(a, b, "linalg.solve_triangular", left, "triangular_solve_cpu")
        ctx.conf, ctx.shapes = (upper, left, unitriangular), (a.shape, b.shape, b.dtype)
        x = lapack_layout(get_array_module(a), solve_triangular_array(a, b.astype(a.dtype, copy=False), upper, left,
                                                                      unitriangular))
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        upper, left, unit = ctx.conf
        a_shape, b_shape, b_dtype = ctx.shapes
        # torch's linalg_solve_triangular_backward: gB = A^{-H} gX (the same side), gA = -gB X^H (left) or -X^H gB,
        # restricted to A's triangle (without the diagonal for a unit one)
        gb = LinalgSolveTriangular.apply(a.mT, grad, not upper, left, unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = -gb.matmul(x.mT) if left else -x.mT.matmul(gb)
            ga = sum_to(ga.triu(int(unit)) if upper else ga.tril(-int(unit)), a_shape)
        if ctx.needs_input_grad[1]:
            gb = sum_to(gb, b_shape)
            gb = gb if gb._array.dtype == b_dtype else gb.to(dtypes.from_numpy_dtype(b_dtype))
        return ga, gb if ctx.needs_input_grad[1] else None, None, None, None


class TriangularSolve(Function):
    """torch.triangular_solve(b, A): (X with op(A) X = b, a copy of A), op(A) = A or A^T. Saves A and X."""

    half_kernel = "triangular_solve_cpu"
    node_name, array_forward = "TriangularSolveBackward0", True

    @staticmethod
    def forward(ctx, b, a, upper=True, transpose=False, unitriangular=False):
        if a.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {a.ndim} "
                               "dimensions instead")
        if b.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.ndim} "
                               "dimensions instead")
        if b.dtype != a.dtype:
            raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                               f"{scalar_type_name(b.dtype)} and A of type {scalar_type_name(a.dtype)} instead.")
        if a.shape[-1] != a.shape[-2] or b.shape[-2] != a.shape[-1]:
            raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {a.shape[-2]} by "
                               f"{a.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
        if a.dtype.kind not in "fV" or a.dtype.itemsize < 4:
            raise NotImplementedError(f'"triangular_solve_cpu" not implemented for \'{scalar_type_name(a.dtype)}\'')
        xp = get_array_module(a)
        ctx.conf, ctx.shapes = (upper, transpose, unitriangular), (b.shape, a.shape)
        x = lapack_layout(xp, solve_triangular_array(a, b, upper, True, unitriangular, transpose))
        ctx.save_for_backward(a, x)
        batch = x.shape[:-2]
        return x, lapack_layout(xp, xp.broadcast_to(a, batch + a.shape[-2:]).copy())

    @staticmethod
    def backward(ctx, grad_x, grad_m):
        a, x = ctx.saved_tensors
        upper, transpose, unit = ctx.conf
        b_shape, a_shape = ctx.shapes
        # torch's triangular_solve_backward: gb = op(A)^{-H} gX; gA = -gb X^H (or -X gb^H transposed), on A's triangle
        gb = TriangularSolve.apply(grad_x, a, upper, not transpose, unit)[0]
        ga = -x.matmul(gb.mT) if transpose else -gb.matmul(x.mT)
        ga = (ga.triu(int(unit)) if upper else ga.tril(-int(unit))) + grad_m
        return sum_to(gb, b_shape), sum_to(ga, a_shape), None, None, None


def solve_triangular(A, B, *, upper: bool | None = None, left: bool = True, unitriangular: bool = False):
    """X with A X = B (left=False: X A = B) for a triangular A (its other triangle is not read)."""
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    return LinalgSolveTriangular.apply(A, B, upper, left, unitriangular)


_DEPRECATED = ("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
               "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return "
               "a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
               "X = torch.linalg.solve_triangular(A, B).")


_warned = []


_triangular_solve = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def triangular_solve(input, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False):
    """(solution, cloned_coefficient): op(A)^-1 input and a copy of A (deprecated in torch, as here: it warns once)."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
    return _triangular_solve(*TriangularSolve.apply(input, A, upper, transpose, unitriangular))


def _cholesky_solve_array(b, factor, upper: bool):
    """X with A X = B for A = L L^T (lower factor) or U^T U (upper): two triangular solves."""
    y = solve_triangular_array(factor, b, upper, transpose=upper)
    return solve_triangular_array(factor, y, upper, transpose=not upper)


class CholeskySolve(Function):
    """out = A^-1 B from A's Cholesky factor (torch.cholesky_solve; only the factor's triangle is read).
    Saves the factor and out."""

    node_name, array_forward = "CholeskySolveBackward0", True

    @staticmethod
    def forward(ctx, b, factor, upper):
        ctx.upper, ctx.shapes = upper, (b.shape, factor.shape)
        out = _cholesky_solve_array(b, xp_triangle(factor, upper), upper)
        ctx.save_for_backward(factor, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch's cholesky_solve_backward: gB = cholesky_solve(grad, factor); the factor's from gB out^T made
        # symmetric, times the factor on the side its triangle sits
        factor, out = ctx.saved_tensors
        gb = CholeskySolve.apply(grad, factor, ctx.upper)
        common = gb @ out.mT
        common = common + common.mT
        gf = -(factor @ common) if ctx.upper else -(common @ factor)
        need = ctx.needs_input_grad
        return (sum_to(gb, ctx.shapes[0]) if need[0] else None), (sum_to(gf, ctx.shapes[1]) if need[1] else None), None


class CholeskyInverse(Function):
    """out = (L L^T)^-1 (or (U^T U)^-1) from a Cholesky factor (torch.cholesky_inverse; only its triangle is
    read). Saves the factor and out."""

    node_name, array_forward = "CholeskyInverseBackward0", True

    @staticmethod
    def forward(ctx, factor, upper):
        xp = get_array_module(factor)
        ctx.upper = upper
        eye = xp.broadcast_to(xp.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
        out = _cholesky_solve_array(eye, xp_triangle(factor, upper), upper)
        ctx.save_for_backward(factor, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        factor, out = ctx.saved_tensors  # torch's cholesky_inverse_backward: -(P (G + G^T) P) on the factor's side
        common = out @ ((grad + grad.mT) @ out)
        return (-(factor @ common) if ctx.upper else -(common @ factor)), None


def xp_triangle(a, upper: bool):
    """The factor's triangle alone (the other half is never read, as LAPACK's potrs/potri)."""
    xp = get_array_module(a)
    return xp.triu(a) if upper else xp.tril(a)


def _check_factor(name: str, a) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def cholesky_solve(B, L, upper: bool = False):
    """X with A X = B, A given by its Cholesky factor L (lower, or upper with upper=True); batch dims broadcast."""
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions instead")
    if B.dtype != L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type_name(B._array.dtype)} and A of type {scalar_type_name(L._array.dtype)} "
                           "instead.")
    return CholeskySolve.apply(B, L, bool(upper))


def cholesky_inverse(L, upper: bool = False):
    """(L L^T)^-1, or (U^T U)^-1 with upper=True: the inverse of a matrix from its Cholesky factor."""
    _check_factor("cholesky_inverse", L)
    return CholeskyInverse.apply(L, bool(upper))
