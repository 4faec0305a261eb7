"""QR in LAPACK's compact form and back: ``geqrf`` (Householder reflectors below the diagonal, R on and above it,
and their scales tau) and ``linalg.householder_product`` (the first n columns of H_1 ... H_k, LAPACK's orgqr).

householder_product is written with differentiable Tensor ops (one rank-one update per reflector), so its
gradients with respect to both the reflectors and tau come from autograd (and create_graph gives higher ones);
its result's grad_fn is therefore the last of those ops, not torch's LinalgHouseholderProductBackward0.
geqrf records no graph, as torch's is not differentiable either.
"""
from __future__ import annotations

import collections

from ..backend import get_array_module
from ..tensor import Tensor
from .linalg import matmul
from .linalg_checks import lapack_layout
from ._util import scalar_type_name

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


def householder_product(input: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T, v_i = (0, ..., 0, 1, input[i+1:, i])."""
    a = input._array
    _check_householder(a, tau._array)
    xp = get_array_module(a)
    m, n = a.shape[-2], a.shape[-1]
    batch = tuple(a.shape[:-2])
    q = Tensor._make(xp.broadcast_to(xp.eye(m, dtype=a.dtype), batch + (m, m)).copy())
    rows = xp.arange(m)
    for i in range(tau.shape[-1]):
        # the reflector's vector: the column's entries below the diagonal, a 1 on it (the rest are R's, ignored)
        below = Tensor._make((rows > i).astype(a.dtype))
        unit = Tensor._make((rows == i).astype(a.dtype))
        v = input[..., :, i] * below + unit
        scale = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        q = q - (scale * matmul(q, v.unsqueeze(-1))) * v.unsqueeze(-2)  # Q H_i = Q - tau_i (Q v) v^T
    return q[..., :, :n]


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
