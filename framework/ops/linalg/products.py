"""More products: baddbmm, einsum, tensordot, kron, inner, outer, addmv, addr, addbmm, multi_dot, block_diag, cross, vander, vdot."""
from __future__ import annotations

import string
import warnings

import numpy as np

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.broadcast import sum_to
from ...autograd.function import Function
from ... import backend, dtypes
from ...backend import get_array_module
from ...creation import empty, ones
from ...tensor import Tensor
from .._util import c_type_name, formula_zeros, grad_for, scalar_type_name, wrap_dim
from ..pointwise import arithmetic as _ar
from ..reduction import cumprod
from ..scalar_ops import maybe_multiply
from ..shape import ReshapeCopy, views as _views
from .._twin import inplace_twin
from .blas import check_inplace_size, Dot, mm
from .checks import check_same_dtype


class Baddbmm(Function):
    """out = beta * input + alpha * (batch1 @ batch2). Saves batch1 and batch2 as each other's grad needs."""

    node_name, array_forward = "BaddbmmBackward0", True

    @staticmethod
    def forward(ctx, inp, b1, b2, beta, alpha):
        if b1.ndim != 3 or b2.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor" if b1.ndim != 3 else "batch2 must be a 3D tensor")
        if inp.dtype != b1.dtype:  # torch's texts: the input against batch1 first, then the bmm kernel's
            names = ", ".join(f"{n}{c_type_name(x.dtype)}" for n, x in (("input ", inp), ("batch1: ", b1),
                                                                         ("batch2: ", b2)))
            raise RuntimeError(f"Input dtypes must be the same, got: {names}")
        if b1.dtype != b2.dtype:
            raise RuntimeError(f"expected scalar type {scalar_type_name(b1.dtype)} but found "
                               f"{scalar_type_name(b2.dtype)}")
        ctx.in_meta, ctx.beta, ctx.alpha = (inp.shape, inp.dtype), beta, alpha
        ctx.save_for_backward(b1 if ctx.needs_input_grad[2] else None, b2 if ctx.needs_input_grad[1] else None)
        prod = backend.matmul(b1, b2)
        if beta == 0:  # torch ignores input (even nan) when beta is 0
            return alpha * prod if alpha != 1 else prod
        return beta * inp + alpha * prod

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        # torch's maybe_multiply: the scaled gradients are MulBackward1 nodes under create_graph
        gi = grad_for(maybe_multiply(grad, ctx.beta), *ctx.in_meta) if need[0] else None
        g1 = maybe_multiply(grad.bmm(b2.transpose(1, 2)), ctx.alpha) if need[1] else None
        g2 = maybe_multiply(b1.transpose(1, 2).bmm(grad), ctx.alpha) if need[2] else None
        return gi, g1, g2, None, None


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _amp.on and autocast_applies("baddbmm", input, batch1, batch2):
        return autocast_run("baddbmm", baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    return Baddbmm.apply(input, batch1, batch2, beta, alpha)


def _parse_einsum(equation: str, operands) -> tuple[list[str], str]:
    """Expand '...' into letters (right-aligned across operands) and infer the output if no '->'."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                         if len(operands) > len(terms) else
                         "einsum(): fewer operands were provided than specified in the equation")
    free = [c for c in string.ascii_letters if c not in equation]
    n_ell = max([op.ndim - (len(t) - 3) for t, op in zip(terms, operands) if "..." in t] or [0])
    ell = "".join(free[:n_ell])
    expanded = []
    for term, op in zip(terms, operands):
        if "..." in term:
            n = op.ndim - (len(term) - 3)
            term = term.replace("...", ell[len(ell) - n:] if n else "")
        if len(term) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does not match "
                               f"the number of dimensions ({op.ndim}) for operand {len(expanded)}")
        if len(set(term)) != len(term):
            raise NotImplementedError("einsum(): repeated subscripts within one operand (diagonals) are not "
                                      "supported")
        expanded.append(term)
    if arrow:
        rhs = rhs.replace("...", ell)
        for c in rhs:
            if not any(c in t for t in expanded):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   "operand")
            if rhs.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        return expanded, rhs
    counts = {}
    for term in expanded:
        for c in term:
            counts[c] = counts.get(c, 0) + 1
    return expanded, ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))


def einsum(equation: str, *operands) -> Tensor:
    """Sum of products over the subscripts missing from the output, as broadcast multiply + sum.

    Each operand is permuted/unsqueezed onto one shared axis order, the broadcast product is reduced over
    the contracted subscripts, then permuted to the output order; its gradient follows from those ops.
    """
    if _amp.on and autocast_applies("einsum", *operands):
        return autocast_run("einsum", einsum, equation, *operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    terms, rhs = _parse_einsum(equation, operands)
    order = list(rhs) + sorted({c for t in terms for c in t} - set(rhs))
    product = None
    for term, op in zip(terms, operands):
        present = [c for c in order if c in term]
        x = op.permute(*[term.index(c) for c in present]) if present else op
        shape = [x.shape[present.index(c)] if c in term else 1 for c in order]
        x = x.reshape(*shape) if shape else x
        product = x if product is None else product * x
    contracted = tuple(range(len(rhs), len(order)))
    return product.sum(dim=contracted) if contracted else product


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


def trilinear_array(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """sum over ``sumdim`` of i1 * i2 * i3, each first unsqueezed at its ``expand`` dims, in torch's two steps: i1
    with i2 over the summed dims i3 lacks, then that with i3 over the rest (so an inf meets a zero where torch's
    does: bilinear is x1 @ w[k], then its dot with x2). A fresh row-major result, as torch's."""
    ndim = i1.ndim + len(expand1)
    letters = string.ascii_letters[:ndim]

    def subscript(dims):
        return "".join(letters[d] for d in dims)
    has1, has2, has3 = ([d for d in range(ndim) if d not in e] for e in (expand1, expand2, expand3))
    first = [d for d in sorted(set(has1) | set(has2)) if not (d in sumdim and d not in has3)]
    out = [d for d in range(ndim) if d not in sumdim]
    xp = get_array_module(i1)
    buf = xp.einsum(f"{subscript(has1)},{subscript(has2)}->{subscript(first)}", i1, i2, optimize=True)  # (BLAS)
    res = xp.einsum(f"{subscript(first)},{subscript(has3)}->{subscript(out)}", buf, i3, optimize=True)
    return backend.row_major(xp.asarray(res))


class Trilinear(Function):
    """out = sum over ``sumdim`` of i1 * i2 * i3, each unsqueezed at its ``expand`` dims (torch's _trilinear, the
    one node of F.bilinear). Saves each input another one's gradient needs, in torch's order."""

    node_name, array_forward = "TrilinearBackward0", True

    @staticmethod
    def forward(ctx, i1, i2, i3, expand1, expand2, expand3, sumdim):
        n = ctx.needs_input_grad
        # torch's wrap_opt_if: i1 is saved when i2's or i3's gradient is wanted, and so on
        ctx.save_for_backward(i1 if n[1] or n[2] else None, i2 if n[0] or n[2] else None,
                              i3 if n[0] or n[1] else None)
        ctx.dims = tuple(tuple(d) for d in (expand1, expand2, expand3, sumdim))
        return trilinear_array(i1, i2, i3, *ctx.dims)

    @staticmethod
    def backward(ctx, grad):
        i1, i2, i3 = ctx.saved_tensors
        e1, e2, e3, s = ctx.dims
        n = ctx.needs_input_grad
        # torch's _trilinear_backward: each input's gradient is _trilinear again, grad in its place, its expand
        # dims summed and the summed dims expanded
        g1 = Trilinear.apply(grad, i2, i3, s, e2, e3, e1) if n[0] else None
        g2 = Trilinear.apply(i1, grad, i3, e1, s, e3, e2) if n[1] else None
        g3 = Trilinear.apply(i1, i2, grad, e1, e2, s, e3) if n[2] else None
        return g1, g2, g3, None, None, None, None


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


# the in-place twins (input = beta * input + alpha * product): the node names of the out-of-place ops, as torch
BaddbmmInplace, AddmvInplace, AddrInplace, AddbmmInplace = (inplace_twin(c) for c in (Baddbmm, Addmv, Addr, Addbmm))


def baddbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if batch1.ndim == 3 and batch2.ndim == 3:
        check_inplace_size(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return BaddbmmInplace.apply(input, batch1, batch2, beta, alpha)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    if mat.ndim == 2 and vec.ndim == 1 and mat.shape[1] == vec.shape[0] and input.shape in ((mat.shape[0],), (1,), ()):
        check_inplace_size(input, (mat.shape[0],))
    return AddmvInplace.apply(input, mat, vec, beta, alpha)


def addr_(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    if tuple(input.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(input.shape)}, v1: {list(vec1.shape)}, "
                           f"v2: {list(vec2.shape)}")
    return AddrInplace.apply(input, vec1, vec2, beta, alpha)


def addbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if batch1.ndim == 3 and batch2.ndim == 3:
        check_inplace_size(input, (batch1.shape[1], batch2.shape[2]))
    return AddbmmInplace.apply(input, batch1, batch2, beta, alpha)


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
        dtype = dtypes.result_type_of(arrays) if arrays else dtypes.default_float.np
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
        # torch's block_diag_backward: each block sliced out of grad and squeezed to the input's rank; an empty 1-D
        # input gets zeros and, unlike forward, takes no row (later blocks read from one row higher, as torch's)
        out, r, c = [], 0, 0
        for *_, shape, _ in ctx.spans:
            if shape == (0,):
                out.append(formula_zeros(grad, (0,)))  # torch's at::zeros there is empty().zero_(): _version 1
                continue
            rows, cols = shape if len(shape) == 2 else (1, shape[0] if shape else 1)
            block = grad[r:r + rows, c:c + cols]
            for _ in range(2 - len(shape)):
                block = block.squeeze(-1)
            if block.shape != shape:  # a 1-D input's (1, n) row: the engine's sum_to, a new tensor (version 0)
                block = block.sum(0, keepdim=True).view(shape)
            out.append(block)
            r, c = r + rows, c + cols
        return tuple(out)


def block_diag(*tensors: Tensor) -> Tensor:
    if not tensors:  # torch's: a (1, 0) matrix of the default dtype
        return empty(1, 0)
    return BlockDiag.apply(*tensors)


class Cross(Function):
    """out = the cross product of a and b along ``dim`` (size 3). Saves b (if a needs a gradient), then a (if b
    does): torch LinalgCrossBackward0's order (other, self), which it unpacks in."""

    node_name, array_forward = "LinalgCrossBackward0", True

    @staticmethod
    def forward(ctx, a, b, dim):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(b if needs[0] else None, a if needs[1] else None)
        ctx.dim = dim
        return _cross(get_array_module(a), a, b, dim)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        needs = ctx.needs_input_grad
        ga = Cross.apply(b, grad, ctx.dim) if needs[0] else None  # torch: other.cross(grad)
        gb = Cross.apply(grad, a, ctx.dim) if needs[1] else None  # torch: grad.cross(self)
        return ga, gb, None


def _cross(xp, a, b, dim):
    a, b = xp.broadcast_arrays(a, b)
    a0, a1, a2 = (xp.take(a, xp.asarray([i]), axis=dim) for i in range(3))
    b0, b1, b2 = (xp.take(b, xp.asarray([i]), axis=dim) for i in range(3))
    return xp.concatenate([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if _amp.on and autocast_applies("cross", input, other, dim):
        return autocast_run("cross", cross, input, other, dim)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:  # torch's deprecated default: the first dim of size 3
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        sizes = [d for d in range(input.ndim) if input.shape[d] == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._array.dtype)} but found "
                           f"{scalar_type_name(other._array.dtype)}")
    return Cross.apply(input, other, d)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """input[i] * vec2[j], as torch: input.reshape(-1, 1) * vec2 (MulBackward0)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return _ar.mul(_views.reshape(input, (-1, 1)), vec2)


ger = outer


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D x: column j is x ** j (increasing) or x ** (N - 1 - j).

    deviation from torch: torch 2.13's vander(x) with N > 1 has a backward that always raises (its cumprod_out into
    a slice of the result saves a tensor its own write then changes); ours gives the gradient."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype.np.kind in "fV" else dtypes.int64  # torch: promote_types(x.dtype, long)
    result = ones(x.shape[0], n, dtype=dtype, device=x.device)
    if n > 1:  # torch's cumprod_out into result[:, 1:]: the result's node is CopySlices
        result[:, 1:] = cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1), 1)
    return result if increasing else result.flip(1)


class Vdot(Dot):
    """out = sum(conj(a) * b) for 1-D a, b (real tensors here: dot). Saves b and/or a: torch VdotBackward0's order
    (other, self; Dot's is self, other), which it unpacks in."""

    node_name = "VdotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        out = Dot.forward(ctx, a, b)
        ctx.save_for_backward(*reversed(ctx._to_save))
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    if _amp.on and autocast_applies("vdot", input, other):
        return autocast_run("vdot", vdot, input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return Vdot.apply(input, other)
