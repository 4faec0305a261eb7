"""Sparse functions (torch's heading): embedding, embedding_bag and one_hot."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from .. import backend
from ..backend import get_array_module
from ..tensor import Tensor
from .indexing import EmbeddingGrad
from .loss import GradOnly


def _layout(offsets: np.ndarray, n: int, include_last_offset: bool):
    """(positions, valid): for bag b, positions[b, :len_b] index the bag's entries in the flat input."""
    ends = list(offsets[1:]) + ([] if include_last_offset else [n])
    starts = list(offsets[:len(ends)])
    longest = max([e - s for s, e in zip(starts, ends)] + [1])
    pos = np.zeros((len(starts), longest), dtype=np.int64)
    valid = np.zeros((len(starts), longest), dtype=bool)
    for b, (s, e) in enumerate(zip(starts, ends)):
        if e > s:
            pos[b, :e - s] = np.arange(s, e)
            valid[b, :e - s] = True
    return pos, valid


class _EmbeddingBagGrad(GradOnly):
    """embedding_bag's gradient (torch's _embedding_bag_backward): a node that refuses a second backward."""

    node_name = "EmbeddingBagBackwardBackward0"


class EmbeddingBag(Function):
    """out[b] = reduce over the bag's indices i of weight[i] (times its per-sample weight for 'sum').
    Saves weight, the indices and the per-sample weights; the layout and (max) the winning rows in ctx."""

    node_name, array_forward = "EmbeddingBagBackward0", True

    @staticmethod
    def forward(ctx, weight, indices, psw, pos, valid, mode, padding_idx):
        xp = get_array_module(weight)
        device = backend.device_of(weight)
        pos, valid = backend.to_device(pos, device), backend.to_device(valid, device)
        ids = indices.reshape(-1)[pos] if indices.size else xp.zeros(pos.shape, dtype=np.int64)
        if padding_idx is not None:
            valid = valid & (ids != padding_idx)
        ctx.save_for_backward(weight, psw)
        ctx.ids, ctx.valid, ctx.pos, ctx.mode, ctx.n = ids, valid, pos, mode, indices.size
        rows = weight[ids]  # (bags, longest, dim)
        if mode == "max":
            masked = xp.where(valid[..., None], rows, xp.asarray(-np.inf, dtype=weight.dtype))
            arg = masked.argmax(axis=1)  # (bags, dim): the winning slot of each feature
            ctx.arg = arg
            out = xp.take_along_axis(masked, arg[:, None, :], axis=1)[:, 0, :]
            return xp.where(valid.any(axis=1)[:, None], out, xp.zeros((), weight.dtype)).astype(weight.dtype)
        coef = valid.astype(weight.dtype)
        if psw is not None:
            coef = coef * psw.reshape(-1)[pos]
        if mode == "mean":
            coef = coef / xp.maximum(valid.sum(axis=1, keepdims=True), 1).astype(weight.dtype)
        ctx.coef = coef
        return (rows * coef[..., None]).sum(axis=1).astype(weight.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        weight, psw = ctx.saved_tensors
        needs = ctx.needs_input_grad
        shape, n, w = tuple(weight.shape), ctx.n, weight._array
        error = NotImplementedError("the derivative for '_embedding_bag_backward' is not implemented.")

        def weight_grad(g):  # each bag's gradient, scattered to the rows it was made of
            xp = get_array_module(g)
            out = xp.zeros(shape, dtype=g.dtype)
            if ctx.mode == "max":
                winner = xp.take_along_axis(ctx.ids, ctx.arg, axis=1)  # (bags, dim): each feature's row
                keep = ctx.valid.any(axis=1)[:, None]
                cols = xp.broadcast_to(xp.arange(shape[1])[None, :], winner.shape)
                backend.scatter_add(out, (winner, cols), g * keep.astype(g.dtype))  # an empty bag adds 0
                return out
            contrib = g[:, None, :] * ctx.coef[..., None]  # (bags, longest, dim)
            backend.scatter_add(out, ctx.ids.reshape(-1), contrib.reshape(-1, shape[1]))
            return out

        def psw_grad(g):  # d out[b] / d psw[k] = weight[ids[k]]: the bag's gradient dotted with the row
            xp = get_array_module(g)
            per = (g[:, None, :] * w[ctx.ids]).sum(-1) * ctx.valid.astype(g.dtype)
            out = xp.zeros(n, dtype=g.dtype)
            backend.scatter_add(out, ctx.pos.reshape(-1), per.reshape(-1))
            return out.reshape(tuple(psw.shape))

        gw = _EmbeddingBagGrad.apply(grad, weight_grad, error) if needs[0] else None
        psw_error = RuntimeError("derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented")
        gp = GradOnly.apply(grad, psw_grad, psw_error) if psw is not None and needs[2] else None
        return gw, None, gp, None, None, None, None


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm=None, norm_type=2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sum, mean or max of weight's rows over each bag: 2-D input (one bag per row) or 1-D input + offsets."""
    if input._array.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding_bag)")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"<class '{'framework.Tensor' if isinstance(offsets, Tensor) else type(offsets).__name__}'>")
        offs = np.arange(0, input.numel(), max(input.shape[1], 1), dtype=np.int64)[:input.shape[0]]
        include_last_offset = False
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = backend.to_numpy(offsets._array).astype(np.int64)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: max_norm, scale_grad_by_freq and sparse are not supported")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                             f"then it must have the same shape as the input ({input.shape})")
    if len(offs) and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}")
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= weight.shape[0]
    with backend.input_check():
        flat = input._array.reshape(-1)
        bad = (flat < 0) | (flat >= weight.shape[0])
        if flat.size and bool(bad.any()):
            at = int(get_array_module(flat).argmax(bad))
            raise RuntimeError(f"Index {at} of input takes value {int(flat[at])} which is not in the valid range "
                               f"[0, {weight.shape[0]})")
    pos, valid = _layout(offs, input.numel(), include_last_offset)
    return EmbeddingBag.apply(weight, input._array, per_sample_weights, pos, valid, mode, padding_idx)


class Embedding(Function):
    """out = weight[idx]; the row ``padding_idx`` gets no gradient. Saves the indices."""

    node_name, array_forward, index_args = "EmbeddingBackward0", True, (1,)

    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        with backend.input_check():  # before CuPy wraps a bad token id (compile: checked at capture)
            out_of_range = idx.size and bool(((idx < 0) | (idx >= weight.shape[0])).any())
        if out_of_range:
            raise IndexError("index out of range in self")
        ctx.shape, ctx.padding_idx = weight.shape, padding_idx
        ctx.save_for_backward(idx)
        return weight[idx]

    @staticmethod
    def backward(ctx, grad):
        (idx,) = ctx.saved_arrays  # changed in place since forward, or freed by a backward: torch's error
        if ctx.padding_idx is not None:  # torch drops the padding row's gradient, whatever the weight holds
            keep = Tensor._make(idx != ctx.padding_idx).unsqueeze(-1)
            grad = grad * keep
        return EmbeddingGrad.apply(grad, ctx.shape, (idx,), True), None, None


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    arr = input._array if isinstance(input, Tensor) else np.asarray(input)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not supported")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return Embedding.apply(weight, input if isinstance(input, Tensor) else arr, padding_idx)  # a Tensor is saved


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """A long tensor with one more dim (of num_classes): 1 at each index, 0 elsewhere."""
    idx = tensor._array
    if idx.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = get_array_module(idx)
    if idx.size and int(idx.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    elif idx.size and int(idx.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((idx[..., None] == xp.arange(num_classes)).astype(np.int64))
