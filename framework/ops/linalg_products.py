"""More products and distances: tensordot, kron, inner, addmv, addr, addbmm, multi_dot, dist, cdist, diag_embed,
diagflat, block_diag, as torch's (composites where torch's are, so their grad_fn names match)."""
from __future__ import annotations

import math

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..autograd.broadcast import sum_to
from ..autograd.function import Function
from ..backend import errstate, get_array_module
from .contract import _pnorm_backward
from ..creation import empty
from ..tensor import Tensor
from ._util import wrap_dim
from ._util import c_type_name
from .linalg import mm
from .linalg_checks import check_floating, check_same_dtype
from .scalar_ops import maybe_multiply
from .shape_more import DiagEmbed
from .views import ReshapeCopy


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Sum over a's ``dims`` last (or listed) dims and b's first (or listed) ones: permute, reshape, one mm."""
    if out is not None:
        raise NotImplementedError("torch.tensordot(out=...) is not supported "
                                  "(framework has no out= arguments; use the returned tensor)")
    if _amp.on and autocast_applies("tensordot", a, b, dims):
        return autocast_run("tensordot", tensordot, a, b, dims)
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    for x, y in zip(da, db):  # (the message names the dims as given)
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    da, db = [wrap_dim(d, a.ndim) for d in da], [wrap_dim(d, b.ndim) for d in db]
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    size = int(np.prod([a.shape[d] for d in da]))
    rows = int(np.prod([a.shape[d] for d in free_a]))
    cols = int(np.prod([b.shape[d] for d in free_b]))
    t1 = a.permute(*(free_a + da)).reshape(rows, size)
    t2 = b.permute(*(db + free_b)).reshape(size, cols)
    return mm(t1, t2).reshape(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])


def kron(a: Tensor, b: Tensor) -> Tensor:
    """Kronecker product: a's (i, j, ...) block is a[i, j, ...] * b (a broadcast multiply, then one reshape)."""
    n = max(a.ndim, b.ndim)
    sa, sb = (1,) * (n - a.ndim) + tuple(a.shape), (1,) * (n - b.ndim) + tuple(b.shape)
    ea = tuple(s for d in sa for s in (d, 1))
    eb = tuple(s for d in sb for s in (1, d))
    out_shape = tuple(x * y for x, y in zip(sa, sb))
    # torch's _unsafe_view of each input: the product saves no view of them (changing one later is no error)
    return ReshapeCopy.apply(ReshapeCopy.apply(a, ea) * ReshapeCopy.apply(b, eb), out_shape)


def inner(a: Tensor, b: Tensor) -> Tensor:
    """Sum over the last dims of a and b (a number times the other when one is 0-D)."""
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(a.shape)} and {list(b.shape)}")
    return tensordot(a, b, ([-1], [-1]))


class Addmv(Function):
    """out = beta * input + alpha * (mat @ vec). Saves mat and vec as each other's grad needs."""

    node_name, array_forward = "AddmvBackward0", True

    @staticmethod
    def forward(ctx, inp, mat, vec, beta, alpha):
        if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0] or inp.shape not in ((mat.shape[0],),
                                                                                                (1,), ()):
            raise RuntimeError(f"size mismatch, got input ({inp.shape[0] if inp.ndim else 1}), mat "
                               f"({mat.shape[0]}x{mat.shape[-1]}), vec ({vec.shape[0]})")
        check_same_dtype("addmv input tensors must have the same dtype, but got {}, {}, and {}", inp, mat, vec)
        ctx.shape, ctx.beta, ctx.alpha = inp.shape, beta, alpha
        ctx.save_for_backward(mat if ctx.needs_input_grad[2] else None, vec if ctx.needs_input_grad[1] else None)
        prod = mat @ vec
        return prod * alpha if beta == 0 else beta * inp + alpha * prod

    @staticmethod
    def backward(ctx, grad):
        mat, vec = ctx.saved_tensors
        need = ctx.needs_input_grad
        gi = sum_to(maybe_multiply(grad, ctx.beta), ctx.shape) if need[0] else None
        gm = maybe_multiply(grad.unsqueeze(1) * vec.unsqueeze(0), ctx.alpha) if need[1] else None
        gv = maybe_multiply(mat.t().matmul(grad), ctx.alpha) if need[2] else None
        return gi, gm, gv, None, None


class Addr(Function):
    """out = beta * input + alpha * outer(v1, v2). Saves v1 and v2 as each other's grad needs."""

    node_name, array_forward = "AddrBackward0", True

    @staticmethod
    def forward(ctx, inp, v1, v2, beta, alpha):
        ctx.shape, ctx.beta, ctx.alpha = inp.shape, beta, alpha
        ctx.save_for_backward(v1 if ctx.needs_input_grad[2] else None, v2 if ctx.needs_input_grad[1] else None)
        prod = v1[:, None] * v2[None, :]
        return prod * alpha if beta == 0 else beta * inp + alpha * prod

    @staticmethod
    def backward(ctx, grad):
        v1, v2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        gi = sum_to(maybe_multiply(grad, ctx.beta), ctx.shape) if need[0] else None
        g1 = maybe_multiply(grad.mv(v2), ctx.alpha) if need[1] else None
        g2 = maybe_multiply(grad.t().mv(v1), ctx.alpha) if need[2] else None
        return gi, g1, g2, None, None


class Addbmm(Function):
    """out = beta * input + alpha * sum_i b1[i] @ b2[i]. Saves b1 and b2 as each other's grad needs."""

    node_name, array_forward = "AddbmmBackward0", True

    @staticmethod
    def forward(ctx, inp, b1, b2, beta, alpha):
        if b1.ndim != 3 or b2.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor" if b1.ndim != 3 else "batch2 must be a 3D tensor")
        if b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                               f"{b2.shape[1]}x{b2.shape[2]})")
        # torch's order: self against batch2 first, then batch1 against batch2
        check_same_dtype("self and mat2 must have the same dtype, but got {} and {}", inp, b2)
        check_same_dtype("mat1 and mat2 must have the same dtype, but got {} and {}", b1, b2)
        ctx.shape, ctx.beta, ctx.alpha, ctx.count = inp.shape, beta, alpha, b1.shape[0]
        ctx.save_for_backward(b1 if ctx.needs_input_grad[2] else None, b2 if ctx.needs_input_grad[1] else None)
        prod = (b1 @ b2).sum(axis=0)
        return prod * alpha if beta == 0 else beta * inp + alpha * prod

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        gi = sum_to(maybe_multiply(grad, ctx.beta), ctx.shape) if need[0] else None
        g = grad.unsqueeze(0).expand(ctx.count, *grad.shape)
        g1 = maybe_multiply(g.bmm(b2.transpose(1, 2)), ctx.alpha) if need[1] else None
        g2 = maybe_multiply(b1.transpose(1, 2).bmm(g), ctx.alpha) if need[2] else None
        return gi, g1, g2, None, None


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _amp.on and autocast_applies("addmv", input, mat, vec):
        return autocast_run("addmv", addmv, input, mat, vec, beta=beta, alpha=alpha)
    return Addmv.apply(input, mat, vec, beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _amp.on and autocast_applies("addr", input, vec1, vec2):
        return autocast_run("addr", addr, input, vec1, vec2, beta=beta, alpha=alpha)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    input.expand(vec1.shape[0], vec2.shape[0])  # torch's expand error when input does not broadcast
    return Addr.apply(input, vec1, vec2, beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _amp.on and autocast_applies("addbmm", input, batch1, batch2):
        return autocast_run("addbmm", addbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    return Addbmm.apply(input, batch1, batch2, beta, alpha)


def _chain_order(mats) -> list:
    """The cheapest parenthesization (the classic matrix-chain dynamic program, as torch's multi_dot):
    order[i][j] is where the product of mats i..j splits."""
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    order = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], order[i][j] = c, k
    return order


def _chain(mats, order, i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = order[i][j]
    return mm(_chain(mats, order, i, k), _chain(mats, order, k + 1, j))


def multi_dot(tensors) -> Tensor:
    """A chain of matrix products (the first may be a row vector, the last a column), in the cheapest order."""
    if _amp.on and autocast_applies("multi_dot", tensors):
        return autocast_run("multi_dot", multi_dot, tensors)
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{c_type_name(tensors[0]._array.dtype)} and tensor {i} {c_type_name(t._array.dtype)}")
    first_1d, last_1d = tensors[0].ndim == 1, tensors[-1].ndim == 1
    mats = [tensors[0].unsqueeze(0) if first_1d else tensors[0]] + tensors[1:-1] + \
        [tensors[-1].unsqueeze(-1) if last_1d else tensors[-1]]
    for i in range(len(mats) - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                               f"{list(mats[i + 1].shape)} cannot be multiplied")
    if len(mats) == 3:  # torch's rule: the cheaper of (AB)C and A(BC)
        (a, b), c, d = mats[0].shape, mats[1].shape[1], mats[2].shape[1]
        out = mm(mats[0], mm(mats[1], mats[2])) if a * c * (b + d) > b * d * (a + c) else \
            mm(mm(mats[0], mats[1]), mats[2])
    elif len(mats) == 2:
        out = mm(mats[0], mats[1])
    else:
        out = _chain(mats, _chain_order(mats), 0, len(mats) - 1)
    shape = ([] if first_1d else [out.shape[0]]) + ([] if last_1d else [out.shape[1]])
    return out.view(*shape)


def _norm_grad(diff: Tensor, dist: Tensor, grad: Tensor, p: float) -> Tensor:
    """d|diff|_p / d diff times grad, with dist = |diff|_p broadcast against diff (torch's norm_backward)."""
    if p == 0:
        return diff * 0
    if p == 1:
        return grad * diff.sign()
    if p == math.inf:
        hit = diff.abs() == dist
        return diff.sign() * (grad / hit.sum(dim=-1, keepdim=True)) * hit
    zero = dist == 0
    # op for op as torch's norm_backward: (grad / dist) is inf at a zero distance before the fill, so under
    # create_graph the second derivative there is NaN, as torch's
    with errstate(get_array_module(dist._array), divide="ignore", invalid="ignore"):
        return _pnorm_backward(diff, dist, grad, p, zero)


def _pnorm(xp, diff, p: float, axis):
    absd = xp.abs(diff)
    if p == math.inf:
        return absd.max(axis=axis)
    if p == 0:
        return (absd != 0).sum(axis=axis).astype(diff.dtype)
    if p == 1:
        return absd.sum(axis=axis)
    if p == 2:
        return xp.sqrt((diff * diff).sum(axis=axis))
    return (absd ** p).sum(axis=axis) ** (1.0 / p)


class Dist(Function):
    """out = |a - b|_p over all elements (a, b broadcast). Saves a, b and out."""

    node_name, array_forward = "DistBackward0", True

    @staticmethod
    def forward(ctx, a, b, p):
        for x in (a, b):
            check_floating(x, "norm(): input dtype should be either floating point or complex. Got {} instead.")
        xp = get_array_module(a)
        ctx.p, ctx.shapes = p, (a.shape, b.shape)
        out = xp.asarray(_pnorm(xp, (a - b).reshape(-1), p, None))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        g = _norm_grad(a - b, out, grad, ctx.p) if ctx.p != math.inf else \
            _norm_grad((a - b).reshape(-1), out, grad, ctx.p).reshape(*(a - b).shape)
        return sum_to(g, ctx.shapes[0]), sum_to(-g, ctx.shapes[1]), None


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    if _amp.on and autocast_applies("dist", input, other, p):
        return autocast_run("dist", dist, input, other, p)
    return Dist.apply(input, other, float(p))


class Cdist(Function):
    """out[..., i, j] = |x1[..., i, :] - x2[..., j, :]|_p. Saves x1, x2 and out."""

    node_name, array_forward = "CdistBackward0", True

    @staticmethod
    def forward(ctx, x1, x2, p):
        xp = get_array_module(x1)
        ctx.p, ctx.shapes = p, (x1.shape, x2.shape)
        out = _pnorm(xp, x1[..., :, None, :] - x2[..., None, :, :], p, -1)
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # torch: x1's gradient is _cdist_backward(grad, x1, x2, p, out), x2's the same kernel with the roles
        # swapped (grad and out transposed); that kernel has no derivative
        x1, x2, out = ctx.saved_tensors
        need1, need2 = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        g1 = CdistBackward.apply(grad.contiguous(), x1, x2, ctx.p, out) if need1 else None
        g2 = CdistBackward.apply(grad.mT.contiguous(), x2, x1, ctx.p, out.mT.contiguous()) if need2 else None
        # torch expands both inputs to the broadcast batch shape first: an expanded one's gradient is summed back
        return (None if g1 is None else sum_to(g1, ctx.shapes[0])), \
            (None if g2 is None else sum_to(g2, ctx.shapes[1])), None


class CdistBackward(Function):
    """out = d cdist(x1, x2) / d x1 times g (torch's _cdist_backward), from the distances ``dist``, over the batch
    dims of x1 and x2 broadcast. torch has no derivative for it: under create_graph its node,
    CdistBackwardBackward0, raises if differentiated. Saves nothing."""

    node_name, array_forward = "CdistBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x1, x2, p, dist):
        x1_, x2_ = Tensor._make(x1), Tensor._make(x2)
        diff = x1_.unsqueeze(-2) - x2_.unsqueeze(-3)
        grad = _norm_grad(diff, Tensor._make(dist).unsqueeze(-1), Tensor._make(g).unsqueeze(-1), p)
        return grad.sum(dim=-2)._array

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Pairwise p-norm distances between the rows of x1 and of x2 (batch dims broadcast).

    deviation from torch: compute_mode is ignored, distances are always summed term by term (torch's matmul form
    for p=2 and more than 25 rows agrees to rounding, not bit for bit).
    """
    if _amp.on and autocast_applies("cdist", x1, x2, p, compute_mode):
        return autocast_run("cdist", cdist, x1, x2, p, compute_mode)
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.ndim < 2 else 2} got: "
                           f"{min(x1.ndim, x2.ndim) if x1.ndim < 2 else x2.ndim}D")
    for i, x in ((1, x1), (2, x2)):
        check_floating(x._array, f"cdist only supports floating-point dtypes, X{i} got: {{}}")
    if x1.dtype != x2.dtype:
        check_same_dtype("expected scalar type {} but found {}", x1._array, x2._array)
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return Cdist.apply(x1, x2, float(p))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (over dims dim1, dim2 of the result) with input's last dim on their ``offset`` diagonal."""
    d1, d2 = wrap_dim(dim1, input.ndim + 1), wrap_dim(dim2, input.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, int(offset), d1, d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The matrix with input's flattened elements on its ``offset`` diagonal."""
    return DiagEmbed.apply(input.reshape(-1) if input.ndim != 1 else input, int(offset), 0, 1)


class BlockDiag(Function):
    """out = the inputs (0-D as 1x1, 1-D as one row) along the diagonal of a zero matrix. Saves their shapes."""

    node_name, array_forward = "BlockDiagBackward0", True

    @staticmethod
    def forward(ctx, *arrays):
        for i, a in enumerate(arrays):
            if a.ndim > 2:
                raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                                   f"{a.ndim} dimensions")
        xp = get_array_module(arrays[0]) if arrays else np
        mats = [a.reshape(1, -1) if a.ndim == 1 else a.reshape(1, 1) if a.ndim == 0 else a for a in arrays]
        dtype = np.result_type(*[a.dtype for a in arrays]) if arrays else dtypes.default_float.np
        out = xp.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)), dtype=dtype)
        r = c = 0
        ctx.spans = []
        for a, m in zip(arrays, mats):
            out[r:r + m.shape[0], c:c + m.shape[1]] = m
            ctx.spans.append((r, c, m.shape, a.shape, a.dtype))
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad[r:r + m[0], c:c + m[1]].reshape(*shape) for r, c, m, shape, _ in ctx.spans)


def block_diag(*tensors: Tensor) -> Tensor:
    if not tensors:  # torch's: a (1, 0) matrix of the default dtype
        return empty(1, 0)
    return BlockDiag.apply(*tensors)
