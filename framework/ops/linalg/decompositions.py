"""Decompositions: linalg.qr, eigh, svd, pinv and lstsq as torch's (batched; backward formulas from torch's
FunctionsManual.cpp, written with Tensor ops so that create_graph gives higher derivatives)."""
from __future__ import annotations

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import scalar_type_name
from ..shape import cat, DiagEmbed
from .checks import check_matrix, check_same_dtype, lapack_layout, svd_arrays
from .solve import LinalgSolve


def _tri_solve_right(x, r):
    """x R^{-H} (TensorFlow's _TriangularSolve(x, r)) through a differentiable solve."""
    return LinalgSolve.apply(r, x.mT).mT


def _qr_grad_deep(q, r, gq, gr):
    """A = QR with m >= n: gA = Q (gR + tril(skew(Q^H gQ) + skew(R gR^H)) R^{-H}) + (gQ - Q Q^H gQ) R^{-H}."""
    qdq = q.mT.matmul(gq)
    rdr = r.matmul(gr.mT)
    lower = (qdq - qdq.mT + rdr - rdr.mT).tril()
    return q.matmul(gr + _tri_solve_right(lower, r)) + _tri_solve_right(gq - q.matmul(qdq), r)


class LinalgQr(Function):
    """(Q, R) with A = QR, Q orthonormal columns and R upper triangular (mode reduced/complete/r). Saves Q, R."""

    half_kernel = "geqrf_cpu"
    node_name, array_forward = "LinalgQrBackward0", True

    @staticmethod
    def forward(ctx, a, mode):
        check_matrix(a, "linalg.qr", square=False)
        xp = get_array_module(a)
        ctx.mode = mode
        if mode == "r":
            r = xp.linalg.qr(a, mode="r")
            q = xp.zeros((0,), dtype=a.dtype)
        else:
            q, r = xp.linalg.qr(a, mode=mode)
            q = lapack_layout(xp, q)
        r = lapack_layout(xp, r)
        ctx.set_materialize_grads(False)  # an unused output's gradient stays None, as torch's undefined grad
        ctx.save_for_backward(q, r)
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        q, r = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        m, n = q.shape[-2], r.shape[-1]
        gq = q.new_zeros(tuple(q.shape)) if gq is None else gq
        gr = r.new_zeros(tuple(r.shape)) if gr is None else gr
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if m >= n:
            return _qr_grad_deep(q, r, gq, gr), None
        # a wide A = [X Y], R = [U V]: X = QU is square, and Y = QV adds Q gV to gY and Y gV^H to gQ
        gv = gr[..., m:]
        y = q.matmul(r[..., m:])
        gx = _qr_grad_deep(q, r[..., :m], gq + y.matmul(gv.mT), gr[..., :m])
        return cat([gx, q.matmul(gv)], dim=-1), None


class LinalgEigh(Function):
    """(L, V) with A = V diag(L) V^H for a symmetric A (its ``uplo`` triangle read), L ascending. Saves L, V."""

    half_kernel = "linalg_eigh_cpu"
    node_name, array_forward = "LinalgEighBackward0", True

    @staticmethod
    def forward(ctx, a, uplo):
        if a.dtype.kind not in "fV":  # torch's kernel dispatch refuses integers before any check
            raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{scalar_type_name(a.dtype)}\'')
        check_matrix(a, "linalg.eigh")
        xp = get_array_module(a)
        values, vectors = xp.linalg.eigh(a, UPLO=uplo)
        vectors = lapack_layout(xp, vectors)
        # eigvalsh's eigenvectors get no gradient: None, not zeros, so that repeated eigenvalues (0 / 0 in the
        # eigenvector term) leave the eigenvalues' gradient finite, as torch's undefined gradients do
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(values, vectors)
        return values, vectors

    @staticmethod
    def backward(ctx, gl, gv):
        values, vectors = ctx.saved_tensors
        if gv is None:
            return vectors.matmul(gl.unsqueeze(-1) * vectors.mT), None
        # torch's linalg_eig_backward (hermitian): gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i
        gap = values.unsqueeze(-2) - values.unsqueeze(-1)
        n = values.shape[-1]
        eye = Tensor._make(get_array_module(values._array).eye(n, dtype=values._array.dtype))
        vhgv = vectors.mT.matmul(gv)
        # only the skew part of V^H gV moves V along the symmetric matrices, so the gradient is symmetric
        inner = 0.5 * (vhgv - vhgv.mT) / (gap + eye)
        inner = inner * (1 - eye)
        if gl is not None:
            inner = inner + DiagEmbed.apply(gl, 0, values.ndim - 1, values.ndim)
        return vectors.matmul(inner.matmul(vectors.mT)), None


def _skew(x):
    return x - x.mT


def svd_backward(gu, gs, gvh, u, s, vh):
    """torch's svd_backward for real A = U diag(S) V^H with k = min(m, n) singular values (U, Vh reduced)."""
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    if gu is None and gvh is None:
        return u.matmul(gs.unsqueeze(-1) * vh)
    s2 = s * s
    eye = Tensor._make(get_array_module(s._array).eye(k, dtype=s._array.dtype))
    gap = s2.unsqueeze(-2) - s2.unsqueeze(-1) + eye  # E_ij = S_j^2 - S_i^2, 1 on the diagonal
    gv = gvh.mT if gvh is not None else None
    if gu is not None and gv is not None:
        ret = (_skew(u.mT.matmul(gu)) * s.unsqueeze(-2) + s.unsqueeze(-1) * _skew(vh.matmul(gv))) / gap
    elif gu is not None:
        ret = (_skew(u.mT.matmul(gu)) / gap) * s.unsqueeze(-2)
    else:
        ret = s.unsqueeze(-1) * (_skew(vh.matmul(gv)) / gap)
    if gs is not None:
        ret = ret + DiagEmbed.apply(gs, 0, s.ndim - 1, s.ndim)
    if m > k and gu is not None:
        gu_sinv = gu / s.unsqueeze(-2)
        return (u.matmul(ret) + gu_sinv - u.matmul(u.mT.matmul(gu_sinv))).matmul(vh)
    if n > k and gv is not None:
        gv_sinv = gv / s.unsqueeze(-2)
        return u.matmul(ret.matmul(vh) + gv_sinv.mT - gv_sinv.mT.matmul(vh.mT).matmul(vh))
    return u.matmul(ret).matmul(vh)


class LinalgSvd(Function):
    """(U, S, Vh) with A = U diag(S) Vh, S descending (full_matrices: square U and Vh). Saves U, S, Vh."""

    half_kernel = "linalg_svd_cpu"
    node_name, array_forward = "LinalgSvdBackward0", True

    @staticmethod
    def forward(ctx, a, full_matrices):
        check_matrix(a, "linalg.svd", square=False)
        xp = get_array_module(a)
        u, s, vh = svd_arrays(a, full_matrices)
        u, vh = lapack_layout(xp, u), lapack_layout(xp, vh)
        ctx.set_materialize_grads(False)  # svdvals: U and Vh get None, and repeated singular values stay finite
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        # torch narrows full U and Vh to their first k columns / rows; the rest gets no gradient
        if u.shape[-1] != k:
            u, gu = u[..., :k], None if gu is None else gu[..., :k]
        if vh.shape[-2] != k:
            vh, gvh = vh[..., :k, :], None if gvh is None else gvh[..., :k, :]
        return svd_backward(gu, gs, gvh, u, s, vh), None


def pinv_array(a, atol, rtol):
    """A^+ from the SVD, singular values at or below max(atol, rtol * s_max) dropped (torch's defaults: atol 0,
    rtol eps * max(m, n))."""
    xp = get_array_module(a)
    u, s, vh = svd_arrays(a, False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else xp.finfo(a.dtype).eps * max(a.shape[-2:])
    smax = s[..., :1] if s.shape[-1] else s
    cutoff = xp.maximum(atol or 0.0, rtol * smax)
    s_inv = xp.where(s > cutoff, 1.0 / xp.where(s > cutoff, s, 1.0), 0.0).astype(a.dtype)
    return xp.swapaxes(vh, -1, -2) @ (s_inv[..., :, None] * xp.swapaxes(u, -1, -2))


def pinv_backward(grad, pinv_a, a):
    """torch's pinv_backward, in its two orders of products (the smaller matrices first)."""
    m, n = a.shape[-2], a.shape[-1]
    pinv_ah, gradh = pinv_a.mT, grad.mT
    if m <= n:
        k = gradh.matmul(pinv_a)
        k_pinv_ah = k.matmul(pinv_ah)
        return -(pinv_a.matmul(k)).mT + k_pinv_ah - (a.matmul(pinv_a)).matmul(k_pinv_ah) \
            + (pinv_ah.matmul(pinv_a)).matmul(gradh - k.matmul(a))
    k = pinv_a.matmul(gradh)
    pinv_ah_k = pinv_ah.matmul(k)
    return -(k.matmul(pinv_a)).mT + (gradh - a.matmul(k)).matmul(pinv_a).matmul(pinv_ah) + pinv_ah_k \
        - pinv_ah_k.matmul(pinv_a).matmul(a)


class LinalgPinv(Function):
    """out = A^+, the Moore-Penrose pseudo-inverse. Saves A and out."""

    node_name, array_forward = "LinalgPinvBackward0", True

    @staticmethod
    def forward(ctx, a, atol=None, rtol=None):
        if a.ndim < 2 or a.dtype.kind not in "fV":
            raise RuntimeError(f"linalg.pinv({scalar_type_name(a.dtype)}{{{list(a.shape)}}}): expected a tensor with "
                               "2 or more dimensions of float, double, cfloat or cdouble types")
        out = pinv_array(a, atol, rtol)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return pinv_backward(grad, out, a), None, None


class LinalgLstsq(Function):
    """X minimizing |A X - B| (the minimum-norm one: A^+ B). Saves A and B."""

    node_name, array_forward = "LinalgLstsqBackward0", True

    @staticmethod
    def forward(ctx, a, b, rcond=None):
        check_matrix(a, "torch.linalg.lstsq", square=False)
        check_same_dtype("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                         "{} and other's dtype {}", a, b)
        vector = b.ndim == a.ndim - 1
        bm = b[..., None] if vector else b
        if bm.shape[-2] != a.shape[-2]:
            raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
        x = pinv_array(a, None, rcond) @ bm
        ctx.vector = vector
        ctx.save_for_backward(a, b)
        return x[..., 0] if vector else x

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        pinv_a = LinalgPinv.apply(a)
        g = grad.unsqueeze(-1) if ctx.vector else grad
        bm = b.unsqueeze(-1) if ctx.vector else b
        # torch's linalg_lstsq_backward: through X = A^+ B
        ga = pinv_backward(g.matmul(bm.mT), pinv_a, a) if ctx.needs_input_grad[0] else None
        gb = pinv_a.mT.matmul(g) if ctx.needs_input_grad[1] else None
        if gb is not None and ctx.vector:
            gb = gb.squeeze(-1)
        return ga, gb, None
