"""Norms and contractions: norm (vector norms), baddbmm, einsum."""
from __future__ import annotations

import math
import string

from ..amp.state import autocast_applies, autocast_run, state as _amp
from ..autograd.function import Function
from .. import backend
from ..backend import errstate, get_array_module
from ..tensor import Tensor
from ._layout import contiguous_result
from ._util import c_type_name, grad_for, normalize_dims, scalar_type_name
from .scalar_ops import maybe_multiply


class VectorNorm(Function):
    """out = (sum |a|^p)^(1/p) over dims (p = inf: max |a|). Saves a and out."""

    node_name, array_forward = "LinalgVectorNormBackward0", True

    @staticmethod
    def forward(ctx, a, p, dims, keepdim):
        xp = get_array_module(a)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        absa = xp.abs(a)
        if p == math.inf:
            out = absa.max(axis=dims, keepdims=keepdim)
        elif p == -math.inf:
            out = absa.min(axis=dims, keepdims=keepdim)
        elif p == 0:
            out = (absa != 0).sum(axis=dims, keepdims=keepdim).astype(a.dtype)
        elif p == 1:
            out = absa.sum(axis=dims, keepdims=keepdim)
        elif p == 2:
            out = xp.sqrt((a * a).sum(axis=dims, keepdims=keepdim))
        else:
            out = (absa ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
        out = contiguous_result(xp.asarray(out))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        p = ctx.p
        if not ctx.keepdim:
            for d in ctx.dims:
                grad, out = grad.unsqueeze(d), out.unsqueeze(d)
        if p == 0:
            return a * 0, None, None, None
        if p == 1:
            return grad * a.sign(), None, None, None
        if p in (math.inf, -math.inf):
            # torch's norm_backward: sgn(a) * ((grad / count) * hit), NaNs counted as hits (a MulBackward0)
            absa = a.abs()
            hit = (absa == out).logical_or(absa.isnan())
            count = hit.sum(dim=ctx.dims, keepdim=True)
            return a.sign() * ((grad / count) * hit), None, None, None
        zero = out == 0
        # torch's norm_backward op for op: self * (grad / norm) with the zero norms' entries filled with 0 (the
        # division by a zero norm is inf before the fill; under create_graph its derivative there is NaN, as torch's)
        with errstate(get_array_module(out._array), divide="ignore", invalid="ignore"):
            return _pnorm_backward(a, out, grad, p, zero), None, None, None


def _pnorm_backward(a: Tensor, norm: Tensor, grad: Tensor, p: float, zero: Tensor) -> Tensor:
    """torch's norm_backward for a finite p other than 0 and 1, op for op (norm broadcast against a; zero: norm == 0).
    Divisions by a zero norm are inf before the fill, so under create_graph the second derivative there is NaN, as
    torch's."""
    if p == 2:
        return grad * (a / norm).masked_fill(zero, 0.0)
    if p < 1:
        scaled = a.sign() * (a.abs() ** (p - 1)).masked_fill(a == 0, 0.0)
        return scaled * grad * norm ** (1 - p)
    scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
    return scaled * (grad / norm ** (p - 1)).masked_fill(zero, 0.0)


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm for vector norms: p in {'fro', number, inf, -inf} over ``dim`` (all dims when None)."""
    if dtype is not None:
        input = input.to(dtype)
    if input._array.dtype.kind not in "fV":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(input._array.dtype)}")
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm: p={p!r} (matrix norms) is not supported; use p='fro' or a number")
    if isinstance(dim, int):
        dim = (dim,)
    return VectorNorm.apply(input, float(p), normalize_dims(dim, input.ndim), keepdim)


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
