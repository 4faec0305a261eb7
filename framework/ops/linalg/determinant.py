"""Determinants: linalg.det and linalg.slogdet as torch's (batched over leading dims; backward formulas from
torch's FunctionsManual.cpp, written with Tensor ops so that create_graph gives higher derivatives)."""
from __future__ import annotations

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...backend import get_array_module, input_check
from ...tensor import Tensor
from ..shape import cat
from .checks import check_matrix, svd_arrays
from .decompositions import LinalgSvd
from .solve import LinalgInv, LinalgSolve


def _cofactor_array(a):
    """det(A) A^{-T}, well defined for a singular A too (its SVD: det(U)det(V) U diag(prod_{j!=i} s_j) V^T)."""
    xp = get_array_module(a)
    u, s, vh = svd_arrays(a)
    n = s.shape[-1]
    others = xp.stack([xp.prod(xp.concatenate([s[..., :i], s[..., i + 1:]], axis=-1), axis=-1) for i in range(n)],
                      axis=-1)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    return sign[..., None, None] * ((u * others[..., None, :]) @ vh)


def _singular_det_backward(grad: Tensor, a: Tensor) -> Tensor:
    """torch's linalg_det_backward at a singular A: U diag(D) Vh from A's SVD, with D the products of the other
    singular values (prod_safe_zeros_backward) times det(U) det(Vh) grad."""
    u, s, vh = LinalgSvd.apply(a, False)
    alpha = (LinalgDet.apply(u) * LinalgDet.apply(vh)) * grad
    return (u * _prod_safe_zeros_backward(alpha.unsqueeze(-1), s).unsqueeze(-2)).matmul(vh)


def _prod_safe_zeros_backward(grad: Tensor, s: Tensor) -> Tensor:
    """grad times the product of the other entries of s along its last dim, without dividing (torch's: the
    exclusive cumulative products from either end)."""
    n = s.shape[-1]
    ones = Tensor._make(get_array_module(s._array).ones(tuple(s.shape[:-1]) + (1,), dtype=s._array.dtype))
    normal = cat([ones, s.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    reverse = cat([ones, s.narrow(-1, 1, n - 1).flip(-1)], -1).cumprod(-1).flip(-1)
    return grad * (normal * reverse)


class LinalgDet(Function):
    """out = det(A). Saves A and out."""

    half_kernel = "lu_cpu"
    node_name, array_forward = "LinalgDetBackward0", True

    @staticmethod
    def forward(ctx, a):
        check_matrix(a, "linalg.det")
        xp = get_array_module(a)
        out = xp.asarray(xp.linalg.det(a))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, det = ctx.saved_tensors
        with input_check():
            singular = bool((det._array == 0).any())
        if singular and is_grad_enabled() and bool((det._array == 0).all()):
            return _singular_det_backward(grad, a)  # create_graph: torch's SVD formula, differentiable
        if singular:  # torch's SVD path: the cofactor matrix
            # deviation from torch: on arrays, so create_graph gives no second derivative where a batch mixes
            # singular and regular matrices
            return grad[..., None, None] * Tensor._make(_cofactor_array(a._array))
        if is_grad_enabled():  # create_graph: torch's differentiable form, solve(A^H, diag_embed(g * det)^H)
            n = a.shape[-1]
            d = (grad * det).unsqueeze(-1).expand(*det.shape, n).diag_embed()
            return LinalgSolve.apply(a.mH, d.mH)
        # torch's linalg_det_backward: (g * det) A^{-H}; inv(A^T) rather than inv(A)^T, so that the gradient
        # has torch's column-major layout (an lu_solve's), which AccumulateGrad copies into a new .grad (_version 1)
        return (grad * det)[..., None, None] * LinalgInv.apply(a.mT)


class LinalgSlogdet(Function):
    """(sign, log|det A|). Saves A; the sign gets no gradient (real inputs)."""

    low_precision_check = "linalg.slogdet"
    node_name, array_forward = "LinalgSlogdetBackward0", True

    @staticmethod
    def forward(ctx, a):
        check_matrix(a, "linalg.slogdet")
        xp = get_array_module(a)
        sign, logabs = xp.linalg.slogdet(a)
        ctx.save_for_backward(a)
        return xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad_sign, grad_logabs):
        (a,) = ctx.saved_tensors
        # unchecked, as torch's: a singular A (log|det| = -inf) gets an inf/nan gradient, not an error
        return grad_logabs[..., None, None] * LinalgInv.apply(a, None).mT
