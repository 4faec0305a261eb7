"""Input checks and error texts shared by the linear-algebra ops (torch's linalg checks, word for word)."""
from __future__ import annotations

from ...backend import get_array_module, input_check
from .._util import scalar_type_name


class LinAlgError(RuntimeError):
    """A matrix that the algorithm cannot handle (singular, not positive-definite): torch._C._LinAlgError."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"  # the class name torch's errors print


def svd_arrays(a, full_matrices: bool = True):
    """xp.linalg.svd(a) with torch's handling of non-finite entries, checked first (LAPACK's gesdd never returns
    on an inf: NumPy's call hangs): a NaN anywhere is linalg.svd's error, which every op built on the SVD reports
    (matrix_norm('nuc'), pinv, ...; fuzz seed 6002504); a matrix with an inf gets NaN factors (torch's singular
    values are NaN there; its U and Vh are whatever LAPACK left)."""
    xp = get_array_module(a)
    with input_check():
        finite = xp.isfinite(a).all(axis=(-2, -1)) if a.size else xp.asarray(True)
        bad = not bool(finite.all())
        if bad and bool(xp.isnan(a).any()):
            raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained "
                              "non-finite values.")
    if not bad:
        return xp.linalg.svd(a, full_matrices=full_matrices)
    u, s, vh = xp.linalg.svd(xp.where(finite[..., None, None], a, 0), full_matrices=full_matrices)
    return tuple(xp.where(finite[..., None, None] if x.ndim == a.ndim else finite[..., None], x, xp.nan).astype(
        x.dtype, copy=False) for x in (u, s, vh))


def check_matrix(a, fn: str, square: bool = True, floating: bool = True) -> None:
    """(…, n, n) floating input, or torch's error for ``fn`` (the name it prints, e.g. 'linalg.inv')."""
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if floating and a.dtype.kind not in "fV":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(a.dtype)}")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def batch_prefix(shape: tuple, flat_index: int) -> str:
    return f"(Batch element {flat_index}): " if len(shape) > 2 else ""


def lu_infos(a) -> list:
    """Per matrix of the batch, the 1-based position of the first exactly-zero pivot of LU with partial pivoting,
    or 0 (LAPACK getrf's info): torch names that diagonal element when it refuses to invert a singular matrix."""
    xp = get_array_module(a)
    n = a.shape[-1]
    u = a.reshape((-1, n, n)).astype(a.dtype, copy=True)
    rows = xp.arange(u.shape[0])
    first = [0] * u.shape[0]
    for k in range(n):
        col = xp.abs(u[:, k:, k])
        p = xp.argmax(col, axis=1) + k
        pivot_rows = u[rows, p].copy()
        u[rows, p] = u[:, k]
        u[:, k] = pivot_rows
        piv = u[:, k, k]
        zero = piv == 0
        with input_check():
            zero_host = [bool(z) for z in zero.tolist()]
        for b, z in enumerate(zero_host):
            if z and not first[b]:
                first[b] = k + 1
        safe = xp.where(zero, 1, piv)
        factors = xp.where(zero[:, None], 0, u[:, k + 1:, k] / safe[:, None])
        u[:, k + 1:, k:] -= factors[:, :, None] * u[:, k:k + 1, k:]
    return first


def lu_zero_pivot(a) -> tuple[int, int] | None:
    """(batch element, info) of the first singular matrix of the batch (see lu_infos), or None."""
    for b, k in enumerate(lu_infos(a)):
        if k:
            return b, k
    return None


def singular_error(a, fn: str = "linalg.inv") -> LinAlgError | None:
    """torch's error for inverting a singular (batch of) matrices, or None when no pivot is exactly zero."""
    found = lu_zero_pivot(a)
    if found is None:
        return None
    b, k = found
    return LinAlgError(f"{fn}: {batch_prefix(a.shape, b)}The diagonal element {k} is zero, the inversion could "
                       "not be completed because the input matrix is singular.")


def not_positive_definite(a, l_factor, fn: str = "linalg.cholesky") -> LinAlgError | None:
    """torch's error when the Cholesky factorization breaks down: the first leading minor that is not positive."""
    xp = get_array_module(a)
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    with input_check():
        for b in range(flat.shape[0]):
            for k in range(1, n + 1):  # the leading minors' Cholesky: the first that fails names the order
                try:
                    ok = bool(xp.isfinite(xp.linalg.cholesky(flat[b, :k, :k])).all())
                except Exception:  # numpy's LinAlgError
                    ok = False
                if not ok:
                    return LinAlgError(f"{fn}: {batch_prefix(a.shape, b)}The factorization could not be completed "
                                       "because the input is not positive-definite (the leading minor of order "
                                       f"{k} is not positive-definite).")
    return None


def check_same_dtype(message: str, *arrays) -> None:
    """Raise RuntimeError(message.format(Float, Double, ...)) when the arrays' dtypes differ (torch's ScalarType
    names)."""
    if any(a.dtype != arrays[0].dtype for a in arrays[1:]):
        raise RuntimeError(message.format(*[scalar_type_name(a.dtype) for a in arrays]))


def check_floating(a, message: str) -> None:
    """Raise RuntimeError(message.format(Long)) for an integer or bool input."""
    if a.dtype.kind not in "fV":
        raise RuntimeError(message.format(scalar_type_name(a.dtype)))


def lapack_layout(xp, a):
    """a's values with the last two dims column-major, as LAPACK leaves its results (torch's inv, cholesky,
    solve, qr, svd and eigh outputs have these strides; a later .view() or reshape sees them)."""
    if a.ndim < 2:
        return a
    return xp.swapaxes(xp.ascontiguousarray(xp.swapaxes(a, -1, -2)), -1, -2)
