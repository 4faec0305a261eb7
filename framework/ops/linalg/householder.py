"""QR in LAPACK's compact form and back: ``geqrf`` (Householder reflectors below the diagonal, R on and above it,
and their scales tau) and ``linalg.householder_product`` (the first n columns of H_1 ... H_k, LAPACK's orgqr).

householder_product's node is torch's LinalgHouseholderProductBackward0; its backward is written with Tensor ops
(create_graph gives higher derivatives).  geqrf records no graph (torch's derivative of geqrf is not implemented)."""
from __future__ import annotations

import collections

from ...autograd.function import Function
from ...backend import get_array_module
from ...tensor import Tensor
from .._util import scalar_type_name
from ..shape import cat, stack
from .blas import matmul
from .checks import lapack_layout


_geqrf = collections.namedtuple("geqrf", ["a", "tau"])


_HP = "torch.linalg.householder_product"


def _check_householder(a, tau) -> None:
    """torch's checks of householder_product's arguments, in its order."""
    if a.ndim < 2:
        raise RuntimeError(f"{_HP}: input must have at least 2 dimensions.")
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{_HP}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if a.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{_HP}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if a.ndim - tau.ndim != 1:
        raise RuntimeError(f"{_HP}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim > 2 and tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
        raise RuntimeError(f"{_HP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != a.dtype:
        raise RuntimeError(f"{_HP}: tau dtype {scalar_type_name(tau.dtype)} does not match input dtype "
                           f"{scalar_type_name(a.dtype)}")
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")


def _householder_array(a, tau):
    """The first n columns of H_1 ... H_k on arrays, one rank-one update per reflector: Q H_i = Q - tau_i (Q v) v^T."""
    xp = get_array_module(a)
    m, n = a.shape[-2], a.shape[-1]
    q = xp.broadcast_to(xp.eye(m, dtype=a.dtype), a.shape[:-2] + (m, m)).copy()
    rows = xp.arange(m)
    for i in range(tau.shape[-1]):
        # the reflector's vector: the column's entries below the diagonal, a 1 on it (the rest are R's, ignored)
        v = a[..., :, i] * (rows > i).astype(a.dtype) + (rows == i).astype(a.dtype)
        qv = xp.matmul(q, v[..., :, None])
        q = q - (tau[..., i][..., None, None] * qv) * v[..., None, :]
    return q[..., :, :n]


class LinalgHouseholderProduct(Function):
    """out = the first n columns of H_1 ... H_k (LAPACK's orgqr). Saves input and tau.

    The backward walks the reflectors in reverse with Tensor ops (so create_graph gives double backward): for
    Q' = Q H, H = I - tau v v^T, the gradients are dQ = G H, dtau = -(Q v).(G v), dv = -tau (Q^T G + G^T Q) v,
    of which the input's column takes the entries below the diagonal.
    """

    node_name, array_forward = "LinalgHouseholderProductBackward0", True

    @staticmethod
    def forward(ctx, a, tau):
        _check_householder(a, tau)
        ctx.save_for_backward(a, tau)
        return _householder_array(a, tau)

    @staticmethod
    def backward(ctx, grad):
        a, tau = ctx.saved_tensors
        m, n, k = a.shape[-2], a.shape[-1], tau.shape[-1]
        if k == 0:  # Q = I whatever the input: torch leaves both gradients undefined (None)
            return None, None
        xp = get_array_module(a._array)
        rows = xp.arange(m)
        below = [Tensor._make((rows > i).astype(a._array.dtype)) for i in range(k)]
        vs = [a[..., :, i] * below[i] + Tensor._make((rows == i).astype(a._array.dtype)) for i in range(k)]
        qs = [Tensor._make(xp.broadcast_to(xp.eye(m, dtype=a._array.dtype), tuple(a.shape[:-2]) + (m, m)).copy())]
        for i in range(k - 1):  # the products before each reflector (the last one's is not needed)
            v = vs[i].unsqueeze(-1)
            qs.append(qs[-1] - (tau[..., i].unsqueeze(-1).unsqueeze(-1) * matmul(qs[-1], v)) * v.mT)
        g = grad if m == n else cat([grad, grad.new_zeros(tuple(grad.shape[:-1]) + (m - n,))], dim=-1)
        grad_cols, grad_tau = [None] * k, [None] * k
        for i in reversed(range(k)):
            v, t = vs[i].unsqueeze(-1), tau[..., i].unsqueeze(-1).unsqueeze(-1)
            gv, qv = matmul(g, v), matmul(qs[i], v)
            grad_tau[i] = -(qv * gv).sum((-2, -1))
            grad_cols[i] = (-t * (matmul(qs[i].mT, gv) + matmul(g.mT, qv))).squeeze(-1) * below[i]
            g = g - (t * gv) * v.mT
        grad_a = grad_t = None
        if ctx.needs_input_grad[0]:
            zero_col = a.new_zeros(tuple(a.shape[:-1]))
            grad_a = stack(grad_cols + [zero_col] * (n - k), dim=-1)
        if ctx.needs_input_grad[1]:
            grad_t = stack(grad_tau, dim=-1)
        return grad_a, grad_t


def householder_product(input: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T, v_i = (0, ..., 0, 1, input[i+1:, i])."""
    return LinalgHouseholderProduct.apply(input, tau)


def geqrf(input: Tensor):
    """(a, tau): the QR factorization in LAPACK's compact form (R on and above a's diagonal, the Householder
    vectors below it); no graph is recorded."""
    a = input._array
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    xp = get_array_module(a)
    # matrix by matrix: mode="raw" is 2-D only in CuPy (and in NumPy before 2.0)
    flat = a.reshape((-1,) + a.shape[-2:])
    pairs = [xp.linalg.qr(m, mode="raw") for m in flat]  # h is LAPACK's array transposed (the reflectors as rows)
    k = min(a.shape[-2:])
    h = xp.stack([p[0] for p in pairs]) if pairs else xp.zeros(flat.shape[:1] + a.shape[-1:] + a.shape[-2:-1])
    tau = xp.stack([p[1] for p in pairs]) if pairs else xp.zeros(flat.shape[:1] + (k,))
    h = xp.swapaxes(h, -1, -2).reshape(a.shape).astype(a.dtype)
    return _geqrf(Tensor._make(lapack_layout(xp, h)),
                  Tensor._make(xp.ascontiguousarray(tau.reshape(a.shape[:-2] + (k,)).astype(a.dtype))))
