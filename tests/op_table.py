"""The op table: one row per differentiable op, driving gradcheck and the comparison with torch.

Each row's ``fn(m, *xs)`` is written once and run against both ``framework`` and ``torch`` (``m`` is the
module), so the row also checks that the API matches torch's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable



@dataclass
class OpCase:
    name: str
    fn: Callable
    shapes: list  # one shape per tensor input
    domain: tuple = (-2.0, 2.0)  # inputs are drawn uniformly from here
    grad_fn: str | None = None  # torch's grad_fn name of the output (checked against torch anyway)
    nondiff: tuple = ()  # input positions that must not require grad (indices, masks)
    tol32: float = 1e-5
    ids: list = field(default_factory=list)


def _pos(lo=0.5, hi=2.0):
    return (lo, hi)


OPS = [
    OpCase("add", lambda m, a, b: a + b, [(3, 4), (3, 4)]),
    OpCase("add_broadcast", lambda m, a, b: a + b, [(2, 3, 4), (4,)]),
    OpCase("add_scalar", lambda m, a: a + 2.5, [(3,)]),
    OpCase("radd_scalar", lambda m, a: 2.5 + a, [(3,)]),
    OpCase("add_alpha", lambda m, a, b: m.add(a, b, alpha=-0.5), [(3, 2), (2,)]),
    OpCase("sub", lambda m, a, b: a - b, [(3, 1), (1, 4)]),
    OpCase("rsub", lambda m, a: 2 - a, [(3,)]),
    OpCase("mul", lambda m, a, b: a * b, [(3, 4), (3, 4)]),
    OpCase("mul_broadcast", lambda m, a, b: a * b, [(2, 1, 4), (3, 1)]),
    OpCase("mul_scalar", lambda m, a: a * 3, [(2, 2)]),
    OpCase("div", lambda m, a, b: a / b, [(3, 4), (4,)], domain=_pos()),
    OpCase("rdiv", lambda m, a: 2 / a, [(3,)], domain=_pos()),
    OpCase("neg", lambda m, a: -a, [(3,)]),
    OpCase("pow_scalar", lambda m, a: a ** 3, [(3, 2)]),
    OpCase("pow_half", lambda m, a: a ** 0.5, [(3,)], domain=_pos()),
    OpCase("pow_tensor", lambda m, a, b: a ** b, [(3,), (3,)], domain=_pos()),
    OpCase("rpow", lambda m, a: 2 ** a, [(3,)]),
    OpCase("abs", lambda m, a: a.abs(), [(5,)]),
    OpCase("exp", lambda m, a: m.exp(a), [(3, 2)]),
    OpCase("log", lambda m, a: m.log(a), [(3, 2)], domain=_pos()),
    OpCase("sqrt", lambda m, a: m.sqrt(a), [(4,)], domain=_pos()),
    OpCase("sin", lambda m, a: m.sin(a), [(4,)]),
    OpCase("cos", lambda m, a: m.cos(a), [(4,)]),
    OpCase("tanh", lambda m, a: m.tanh(a), [(4,)]),
    OpCase("sigmoid", lambda m, a: m.sigmoid(a), [(4,)]),
    OpCase("relu", lambda m, a: m.relu(a), [(6,)]),
    OpCase("leaky_relu", lambda m, a: m.nn.functional.leaky_relu(a, 0.2), [(6,)]),
    OpCase("clamp", lambda m, a: m.clamp(a, -0.5, 0.7), [(6,)]),
    OpCase("clamp_min", lambda m, a: a.clamp(min=0.1), [(6,)]),
    OpCase("softmax", lambda m, a: m.softmax(a, dim=1), [(3, 4)]),
    OpCase("log_softmax", lambda m, a: m.log_softmax(a, dim=-1), [(3, 4)]),
    OpCase("sum", lambda m, a: a.sum(), [(3, 4)]),
    OpCase("sum_dim", lambda m, a: a.sum(dim=1), [(3, 4)]),
    OpCase("sum_dims_keepdim", lambda m, a: a.sum(dim=(0, 2), keepdim=True), [(2, 3, 4)]),
    OpCase("prod", lambda m, a: a.prod(), [(3, 4)]),
    OpCase("prod_dim", lambda m, a: m.prod(a, 1), [(3, 4)]),
    OpCase("prod_dim_keepdim", lambda m, a: a.prod(dim=0, keepdim=True), [(3, 4)]),
    OpCase("mean", lambda m, a: a.mean(), [(3, 4)]),
    OpCase("mean_dim", lambda m, a: a.mean(0), [(3, 4)]),
    OpCase("max", lambda m, a: a.max(), [(3, 4)]),
    OpCase("max_dim", lambda m, a: a.max(dim=1)[0], [(3, 4)]),
    OpCase("min", lambda m, a: a.min(), [(3, 4)]),
    OpCase("min_dim_keepdim", lambda m, a: a.min(dim=0, keepdim=True).values, [(3, 4)]),
    OpCase("amax", lambda m, a: a.amax(dim=1), [(3, 4)]),
    OpCase("var", lambda m, a: a.var(), [(3, 4)]),
    OpCase("var_dim", lambda m, a: a.var(dim=1, keepdim=True), [(3, 4)]),
    OpCase("std", lambda m, a: a.std(), [(3, 4)]),
    OpCase("std_dim", lambda m, a: a.std(dim=0), [(3, 4)]),
    OpCase("matmul_mm", lambda m, a, b: a @ b, [(3, 4), (4, 2)]),
    OpCase("mm", lambda m, a, b: m.mm(a, b), [(2, 3), (3, 2)]),
    OpCase("matmul_mv", lambda m, a, b: a @ b, [(3, 4), (4,)]),
    OpCase("matmul_dot", lambda m, a, b: a @ b, [(4,), (4,)]),
    OpCase("matmul_vm", lambda m, a, b: a @ b, [(3,), (3, 2)]),
    OpCase("bmm", lambda m, a, b: m.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    OpCase("matmul_batched_broadcast", lambda m, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    OpCase("view", lambda m, a: a.view(4, 3), [(3, 4)]),
    OpCase("view_infer", lambda m, a: a.view(-1), [(3, 4)]),
    OpCase("reshape", lambda m, a: a.reshape(2, 6), [(3, 4)]),
    OpCase("reshape_copy", lambda m, a: a.t().reshape(12), [(3, 4)]),
    OpCase("transpose", lambda m, a: a.transpose(0, 2), [(2, 3, 4)]),
    OpCase("t", lambda m, a: a.t(), [(3, 4)]),
    OpCase("T", lambda m, a: a.T, [(3, 4)]),
    OpCase("permute", lambda m, a: a.permute(2, 0, 1), [(2, 3, 4)]),
    OpCase("squeeze", lambda m, a: a.squeeze(), [(3, 1, 4)]),
    OpCase("squeeze_dim", lambda m, a: a.squeeze(1), [(3, 1, 4)]),
    OpCase("unsqueeze", lambda m, a: a.unsqueeze(1), [(3, 4)]),
    OpCase("expand", lambda m, a: a.expand(3, 4), [(1, 4)]),
    OpCase("flatten", lambda m, a: a.flatten(), [(2, 3, 4)]),
    OpCase("flatten_start", lambda m, a: m.flatten(a, 1), [(2, 3, 4)]),
    OpCase("cat", lambda m, a, b: m.cat([a, b], dim=1), [(2, 3), (2, 2)]),
    OpCase("stack", lambda m, a, b: m.stack([a, b], dim=1), [(2, 3), (2, 3)]),
    OpCase("where", lambda m, a, b: m.where(a > 0, a, b), [(3, 4), (3, 4)]),
    OpCase("getitem_int", lambda m, a: a[1], [(3, 4)]),
    OpCase("getitem_slice", lambda m, a: a[1:, ::2], [(3, 4)]),
    OpCase("getitem_mixed", lambda m, a: a[0, 1:3], [(3, 4)]),
    OpCase("getitem_none_ellipsis", lambda m, a: a[None, ..., 1], [(3, 4)]),
    OpCase("getitem_list", lambda m, a: a[[0, 2, 0]], [(3, 4)]),
    OpCase("getitem_bool", lambda m, a: a[a > 0], [(3, 4)]),
    OpCase("getitem_adv_2d", lambda m, a: a[[0, 1, 1], [2, 3, 3]], [(3, 4)]),
    OpCase("clone", lambda m, a: a.clone(), [(3,)]),
    OpCase("narrow", lambda m, a: a.narrow(1, 1, 2), [(3, 4)]),
    OpCase("sign", lambda m, a: a.sign() * a, [(5,)]),
    OpCase("rsqrt", lambda m, a: m.rsqrt(a), [(4,)], domain=_pos()),
    OpCase("masked_fill", lambda m, a: a.masked_fill(a > 0.5, 0.0), [(3, 4)]),
    OpCase("amin", lambda m, a: a.amin(dim=0), [(3, 4)]),
    OpCase("maximum", lambda m, a, b: m.maximum(a, b), [(3, 4), (3, 4)]),
    OpCase("atan2", lambda m, a, b: m.atan2(a, b), [(3, 4), (4,)]),
    OpCase("atan2_method", lambda m, a, b: a.atan2(b), [(2, 3), (2, 3)]),
    # remainder/fmod: inputs kept away from the jumps of floor/trunc(a / b), where no derivative exists
    OpCase("remainder", lambda m, a, b: m.remainder(a * 3.0, b), [(3, 4), (4,)], domain=_pos(0.6, 1.9)),
    OpCase("remainder_neg", lambda m, a, b: (a * -3.0) % b, [(3, 4), (3, 4)], domain=_pos(0.6, 1.9)),
    OpCase("remainder_scalar", lambda m, a: a % 0.7, [(5,)]),
    OpCase("fmod", lambda m, a, b: m.fmod(a * 3.0, -b), [(3, 4), (4,)], domain=_pos(0.6, 1.9)),
    OpCase("fmod_scalar", lambda m, a: m.fmod(a, -0.7), [(5,)]),
    OpCase("select", lambda m, a: a.select(1, 2), [(3, 4)]),
    OpCase("gelu", lambda m, a: m.nn.functional.gelu(a), [(3, 4)]),
    OpCase("conv2d", lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, stride=1, padding=1),
           [(2, 2, 5, 4), (3, 2, 3, 3), (3,)]),
    OpCase("conv_transpose2d", lambda m, x, w: m.nn.functional.conv_transpose2d(x, w, stride=2, padding=1),
           [(1, 2, 3, 3), (2, 3, 3, 3)]),
    OpCase("max_pool2d", lambda m, x: m.nn.functional.max_pool2d(x, 2), [(1, 2, 4, 4)]),
    OpCase("avg_pool2d", lambda m, x: m.nn.functional.avg_pool2d(x, 2), [(1, 2, 4, 4)]),
    # issue 16: ops that real PyTorch scripts reach for
    OpCase("tril", lambda m, a: a.tril(), [(3, 4)]),
    OpCase("triu_k", lambda m, a: m.triu(a, 1), [(2, 3, 4)]),
    OpCase("topk", lambda m, a: a.topk(2, dim=1).values, [(3, 4)]),
    OpCase("topk_smallest", lambda m, a: m.topk(a, 3, dim=0, largest=False)[0], [(4, 2)]),
    OpCase("sort", lambda m, a: a.sort(dim=-1)[0], [(3, 4)]),
    OpCase("sort_descending", lambda m, a: m.sort(a, dim=0, descending=True).values, [(3, 4)]),
    OpCase("gather", lambda m, a: a.gather(1, m.tensor([[0, 1, 1], [2, 0, 3], [3, 3, 0]])), [(3, 4)]),
    OpCase("take_along_dim", lambda m, a: m.take_along_dim(a, m.tensor([[0, 3], [2, 2], [1, 0]]), dim=1), [(3, 4)]),
    OpCase("take_along_dim_broadcast", lambda m, a: a.take_along_dim(m.tensor([[[0], [3]], [[2], [2]]]), dim=-2),
           [(1, 4, 3)]),
    OpCase("index_put", lambda m, a, b: a.index_put((m.tensor([0, 2]),), b), [(4, 3), (2, 3)]),
    OpCase("index_put_accumulate", lambda m, a, b: m.index_put(a, (m.tensor([1, 1, 0]), m.tensor([2, 2, 0])), b,
                                                               accumulate=True), [(2, 3), (3,)]),
    OpCase("index_put_inplace", lambda m, a, b: (a * 1).index_put_((m.tensor([[True, False, True]]),), b),
           [(1, 3), (2,)]),
    OpCase("masked_select", lambda m, a: a.masked_select(m.tensor([True, False, True])), [(2, 3)]),
    OpCase("masked_select_broadcast", lambda m, a: m.masked_select(a, m.tensor([[True], [False]])), [(3,)]),
    OpCase("take_along_dim_flat", lambda m, a: m.take_along_dim(a, m.tensor([[5, 0], [1, 5]])), [(2, 3)]),
    OpCase("scatter", lambda m, a, b: a.scatter(1, m.tensor([[0, 2], [3, 1], [1, 0]]), b), [(3, 4), (3, 2)]),
    OpCase("scatter_value", lambda m, a: a.scatter(0, m.tensor([[0, 1, 2, 0]]), 1.5), [(3, 4)]),
    OpCase("scatter_add", lambda m, a, b: m.scatter_add(a, 0, m.tensor([[0, 1, 0, 0], [0, 2, 2, 1]]), b),
           [(3, 4), (2, 4)]),
    OpCase("index_select", lambda m, a: a.index_select(0, m.tensor([2, 0, 2])), [(3, 4)]),
    OpCase("cumsum", lambda m, a: a.cumsum(1), [(3, 4)]),
    OpCase("cumprod", lambda m, a: m.cumprod(a, dim=0), [(4, 3)]),
    OpCase("cumprod_zero", lambda m, a: (a * m.tensor([1.0, 0.0, 1.0, 1.0], dtype=a.dtype)).cumprod(0), [(4,)]),
    OpCase("logsumexp", lambda m, a: m.logsumexp(a, dim=1), [(3, 4)]),
    OpCase("logsumexp_keepdim", lambda m, a: a.logsumexp((0, 1), keepdim=True), [(3, 4)]),
    OpCase("norm", lambda m, a: a.norm(), [(3, 4)]),
    OpCase("norm_dim", lambda m, a: m.norm(a, dim=1, keepdim=True), [(3, 4)]),
    OpCase("norm_p1", lambda m, a: a.norm(p=1, dim=0), [(3, 4)]),
    OpCase("norm_p3", lambda m, a: a.norm(p=3), [(3, 4)]),
    OpCase("norm_inf", lambda m, a: a.norm(p=float("inf"), dim=1), [(3, 4)]),
    OpCase("baddbmm", lambda m, a, b, c: m.baddbmm(a, b, c, beta=0.5, alpha=2.0), [(1, 3, 2), (2, 3, 4), (2, 4, 2)]),
    OpCase("clamp_", lambda m, a: (a * 1).clamp_(-0.5, 0.7), [(6,)]),
    OpCase("where_scalar_other", lambda m, a: m.where(a > 0, a, 0.0), [(3, 4)]),
    OpCase("where_scalar_self", lambda m, a: m.where(a > 0, 1.0, a), [(3, 4)]),
    # the padding row gets no gradient by definition (not the true derivative): those outputs are masked here so
    # gradcheck holds; tests/test_ops_16a.py checks the unmasked rule against torch
    OpCase("embedding_padding_idx", lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2, 1], [2, 2, 3]]), w,
                                                                          padding_idx=2)[0, ::2] * 2, [(4, 3)]),
    OpCase("pad_constant", lambda m, a: m.nn.functional.pad(a, (1, 2, 0, 1), value=0.5), [(2, 3, 4)]),
    OpCase("pad_crop", lambda m, a: m.nn.functional.pad(a, (-1, 2)), [(2, 3, 4)]),
    OpCase("pad_reflect1d", lambda m, a: m.nn.functional.pad(a, (2, 1), mode="reflect"), [(2, 3, 4)]),
    OpCase("pad_reflect2d", lambda m, a: m.nn.functional.pad(a, (1, 2, 2, 1), mode="reflect"), [(1, 2, 3, 4)]),
    OpCase("pad_replicate2d", lambda m, a: m.nn.functional.pad(a, (1, 2, 3, 0), mode="replicate"), [(1, 2, 3, 4)]),
    OpCase("pad_replicate1d", lambda m, a: m.nn.functional.pad(a, (2, 3), mode="replicate"), [(2, 3)]),
    OpCase("interpolate_nearest", lambda m, a: m.nn.functional.interpolate(a, scale_factor=2), [(1, 2, 2, 3)]),
    OpCase("interpolate_nearest_size", lambda m, a: m.nn.functional.interpolate(a, size=(5, 2)), [(1, 1, 3, 4)]),
    OpCase("interpolate_nearest1d", lambda m, a: m.nn.functional.interpolate(a, size=7), [(1, 2, 3)]),
    OpCase("interpolate_bilinear", lambda m, a: m.nn.functional.interpolate(a, size=(5, 7), mode="bilinear"),
           [(1, 2, 3, 4)]),
    OpCase("interpolate_bilinear_scale", lambda m, a: m.nn.functional.interpolate(a, scale_factor=2.5,
                                                                                  mode="bilinear"), [(1, 1, 2, 3)]),
    OpCase("interpolate_bilinear_corners", lambda m, a: m.nn.functional.interpolate(
        a, size=(4, 5), mode="bilinear", align_corners=True), [(2, 1, 3, 3)]),
    OpCase("interpolate_linear", lambda m, a: m.nn.functional.interpolate(a, scale_factor=2, mode="linear"),
           [(1, 2, 4)]),
    OpCase("smooth_l1_loss", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, beta=0.5), [(3, 4), (3, 4)]),
    OpCase("smooth_l1_loss_sum", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, reduction="sum"),
           [(3, 4), (3, 4)]),
    OpCase("smooth_l1_loss_none", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, reduction="none"),
           [(3, 4), (3, 4)]),
    OpCase("huber_loss", lambda m, a, b: m.nn.functional.huber_loss(a, b, delta=0.7), [(3, 4), (3, 4)]),
    OpCase("huber_loss_none", lambda m, a, b: m.nn.functional.huber_loss(a, b, reduction="none"), [(5,), (5,)]),
    OpCase("chain", lambda m, a, b: ((a * b).exp() + a.sin()).sum(dim=0), [(3, 2), (3, 2)]),
]

# Multi-output views: several views of one node (UnbindBackward0, SplitBackward0, SplitWithSizesBackward0), as torch.
OPS += [
    OpCase("unbind", lambda m, a: a.unbind(1)[1], [(3, 4)]),
    OpCase("split", lambda m, a: a.split(2, dim=1)[1], [(3, 5)]),
    OpCase("split_sizes", lambda m, a: a.split([1, 4], dim=1)[1], [(3, 5)]),
    OpCase("chunk", lambda m, a: a.chunk(2, dim=0)[0], [(3, 5)]),
    OpCase("unbind_all", lambda m, a: m.stack(a.unbind(0)[::-1], 1), [(3, 2)]),
    # in-place ops on a clone: the output's grad_fn is the in-place op's node
    OpCase("addcmul_", lambda m, a, b, c: a.clone().addcmul_(b, c, value=-0.5), [(3, 4), (4,), (3, 1)]),
    OpCase("addcdiv_", lambda m, a, b, c: a.clone().addcdiv_(b, c, value=0.7), [(3, 4), (3, 4), (4,)],
           domain=_pos()),
    OpCase("lerp_", lambda m, a, b: a.clone().lerp_(b, 0.3), [(3, 4), (4,)]),
    OpCase("lerp_high", lambda m, a, b: a.clone().lerp_(b, 0.8), [(3, 4), (3, 4)]),
]

# Known deviation: torch's einsum is a permute/reshape/bmm program whose last node varies with the equation
# (ViewBackward0, SumBackward1...); ours is a broadcast product and a sum. Values and gradients match torch
# (tests/test_ops_16a.py), and the rows get the float64 gradcheck.
EINSUM_OPS = [
    OpCase("einsum_mm", lambda m, a, b: m.einsum("ij,jk->ik", a, b), [(3, 4), (4, 2)]),
    OpCase("einsum_batch", lambda m, a, b: m.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 2)]),
    OpCase("einsum_implicit", lambda m, a, b: m.einsum("ij,kj", a, b), [(3, 4), (2, 4)]),
    OpCase("einsum_ellipsis", lambda m, a, b: m.einsum("...ij,...j->...i", a, b), [(2, 3, 4), (4,)]),
    OpCase("einsum_outer_sum", lambda m, a, b: m.einsum("i,j->ij", a, b) + m.einsum("ij->j", a[:, None] * b),
           [(3,), (2,)]),
    OpCase("einsum_attention", lambda m, q, k: m.einsum("bhqd,bhkd->bhqk", q, k), [(1, 2, 3, 4), (1, 2, 5, 4)]),
]

# more elementwise ops (ops/unary_more.py): torch's node names, including square's PowBackward0
OPS += [
    OpCase("square", lambda m, a: m.square(a), [(3, 4)], grad_fn="PowBackward0"),
    OpCase("square_method", lambda m, a: a.square(), [(5,)]),
    OpCase("square_", lambda m, a: (a * 1).square_(), [(5,)]),
    OpCase("floor", lambda m, a: m.floor(a) + a, [(3, 4)]),
    OpCase("ceil", lambda m, a: a.ceil(), [(3, 4)]),
    OpCase("round", lambda m, a: m.round(a * 3), [(3, 4)]),
    OpCase("round_decimals", lambda m, a: m.round(a, decimals=1), [(3, 4)]),
    OpCase("trunc", lambda m, a: m.trunc(a * 2), [(6,)]),
    OpCase("frac", lambda m, a: m.frac(a * 2), [(6,)]),
    OpCase("floor_", lambda m, a: (a * 2).floor_(), [(6,)]),
    OpCase("log1p", lambda m, a: m.log1p(a), [(3, 4)], domain=(-0.5, 2.0)),
    OpCase("expm1", lambda m, a: a.expm1(), [(3, 4)]),
    OpCase("log2", lambda m, a: m.log2(a), [(3, 4)], domain=_pos()),
    OpCase("log10", lambda m, a: a.log10(), [(3, 4)], domain=_pos()),
    OpCase("tan", lambda m, a: m.tan(a), [(3, 4)], domain=(-1.2, 1.2)),
    OpCase("sinh", lambda m, a: m.sinh(a), [(3, 4)]),
    OpCase("cosh", lambda m, a: a.cosh(), [(3, 4)]),
    OpCase("asin", lambda m, a: m.asin(a), [(3, 4)], domain=(-0.9, 0.9)),
    OpCase("acos", lambda m, a: m.acos(a), [(3, 4)], domain=(-0.9, 0.9)),
    OpCase("atan", lambda m, a: a.atan(), [(3, 4)]),
    OpCase("erf", lambda m, a: m.erf(a), [(3, 4)]),
    OpCase("absolute", lambda m, a: m.absolute(a), [(5,)]),
    OpCase("nan_to_num", lambda m, a: m.nan_to_num(m.log(a), nan=0.5), [(3, 4)]),
    OpCase("log1p_", lambda m, a: (a * 1).log1p_(), [(5,)], domain=_pos()),
    OpCase("expm1_", lambda m, a: (a * 1).expm1_(), [(5,)]),
    OpCase("tan_", lambda m, a: (a * 1).tan_(), [(5,)], domain=(-1.2, 1.2)),
    OpCase("erf_", lambda m, a: (a * 1).erf_(), [(5,)]),
]

# more shape ops (ops/shape_more.py): copies (flip, roll, repeat, tile) and views (diagonal, movedim, unflatten...)
OPS += [
    OpCase("flip", lambda m, a: m.flip(a, [0, 2]), [(2, 3, 4)]),
    OpCase("flip_method", lambda m, a: a.flip(-1), [(3, 4)]),
    OpCase("fliplr", lambda m, a: m.fliplr(a), [(3, 4)]),
    OpCase("roll", lambda m, a: m.roll(a, 1), [(3, 4)]),
    OpCase("roll_dims", lambda m, a: a.roll((1, -2), (0, 1)), [(3, 4)]),
    OpCase("repeat", lambda m, a: a.repeat(2, 1, 3), [(3, 4)]),
    OpCase("repeat_same", lambda m, a: a.repeat(2, 2), [(3, 4)]),
    OpCase("tile", lambda m, a: m.tile(a, (2,)), [(3, 4)]),
    OpCase("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3, 4)), [(3, 1)]),
    OpCase("movedim", lambda m, a: m.movedim(a, 0, -1), [(2, 3, 4)]),
    OpCase("movedim_multi", lambda m, a: a.movedim((0, 1), (2, 0)), [(2, 3, 4)]),
    OpCase("swapaxes", lambda m, a: m.swapaxes(a, 0, 2), [(2, 3, 4)]),
    OpCase("swapdims", lambda m, a: a.swapdims(0, 1), [(2, 3, 4)]),
    OpCase("unflatten", lambda m, a: a.unflatten(1, (2, -1)), [(3, 4)]),
    OpCase("diagonal", lambda m, a: m.diagonal(a), [(3, 4)]),
    OpCase("diagonal_offset", lambda m, a: a.diagonal(1, 0, 2), [(3, 2, 4)]),
    OpCase("diagonal_neg", lambda m, a: a.diagonal(-1), [(4, 3)]),
    OpCase("diag_embed", lambda m, a: m.diag(a), [(3,)]),
    OpCase("diag_embed_offset", lambda m, a: a.diag(-2), [(3,)]),
    OpCase("diag_matrix", lambda m, a: m.diag(a, 1), [(3, 4)]),
    OpCase("trace", lambda m, a: m.trace(a), [(3, 4)]),
    OpCase("outer", lambda m, a, b: m.outer(a, b), [(3,), (4,)]),
]

# fused pointwise ops, out of place (ops/pointwise_more.py)
OPS += [
    OpCase("addcmul", lambda m, a, b, c: m.addcmul(a, b, c, value=-0.5), [(3, 4), (4,), (3, 1)]),
    OpCase("addcmul_method", lambda m, a, b, c: a.addcmul(b, c), [(4,), (3, 4), (3, 4)]),
    OpCase("addcdiv", lambda m, a, b, c: m.addcdiv(a, b, c, value=0.7), [(3, 4), (3, 4), (4,)], domain=_pos()),
    OpCase("lerp", lambda m, a, b: m.lerp(a, b, 0.3), [(3, 4), (4,)]),
    OpCase("lerp_high", lambda m, a, b: a.lerp(b, 0.8), [(3, 4), (3, 4)]),
    OpCase("lerp_tensor", lambda m, a, b, w: m.lerp(a, b, w), [(3, 4), (3, 4), (4,)], domain=(-1.0, 1.0)),
    OpCase("addmm", lambda m, a, b, c: m.addmm(a, b, c), [(4,), (3, 2), (2, 4)]),
    OpCase("addmm_scaled", lambda m, a, b, c: a.addmm(b, c, beta=0.5, alpha=-2.0), [(3, 4), (3, 2), (2, 4)]),
]

# more activations (ops/activation_more.py), through nn.functional
OPS += [
    OpCase("silu", lambda m, a: m.nn.functional.silu(a), [(3, 4)]),
    OpCase("silu_inplace", lambda m, a: m.nn.functional.silu(a * 1, inplace=True), [(3, 4)]),
    OpCase("elu", lambda m, a: m.nn.functional.elu(a, alpha=0.7), [(3, 4)]),
    OpCase("elu_inplace", lambda m, a: m.nn.functional.elu(a * 1, inplace=True), [(3, 4)]),
    OpCase("softplus", lambda m, a: m.nn.functional.softplus(a), [(3, 4)]),
    OpCase("softplus_beta", lambda m, a: m.nn.functional.softplus(a * 4, beta=2, threshold=5), [(3, 4)]),
    OpCase("hardtanh", lambda m, a: m.nn.functional.hardtanh(a * 2), [(3, 4)]),
    OpCase("hardtanh_inplace", lambda m, a: m.nn.functional.hardtanh(a * 2, -0.5, 0.5, inplace=True), [(3, 4)]),
    OpCase("relu6", lambda m, a: m.nn.functional.relu6(a * 4), [(3, 4)]),
    OpCase("mish", lambda m, a: m.nn.functional.mish(a * 2), [(3, 4)]),
    OpCase("hardswish", lambda m, a: m.nn.functional.hardswish(a * 3), [(3, 4)]),
    OpCase("hardsigmoid", lambda m, a: m.nn.functional.hardsigmoid(a * 3), [(3, 4)]),
    OpCase("logsigmoid", lambda m, a: m.nn.functional.logsigmoid(a * 3), [(3, 4)]),
    OpCase("softmin", lambda m, a: m.nn.functional.softmin(a, dim=1), [(3, 4)]),
    OpCase("softsign", lambda m, a: m.nn.functional.softsign(a), [(3, 4)]),
    OpCase("prelu", lambda m, a, w: m.nn.functional.prelu(a, w), [(2, 3, 4), (3,)]),
    OpCase("prelu_single", lambda m, a, w: m.nn.functional.prelu(a, w), [(2, 3), (1,)]),
]

# conv1d, 1-D pools, adaptive average pool, group norm (ops/conv_more.py)
OPS += [
    OpCase("conv1d", lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, stride=2, padding=1), [(2, 3, 7), (4, 3, 3),
                                                                                               (4,)]),
    OpCase("conv1d_dilated", lambda m, x, w: m.nn.functional.conv1d(x, w, dilation=2, padding="same"),
           [(1, 2, 6), (3, 2, 3)]),
    OpCase("conv1d_unbatched", lambda m, x, w: m.nn.functional.conv1d(x, w), [(2, 5), (3, 2, 2)]),
    OpCase("max_pool1d", lambda m, x: m.nn.functional.max_pool1d(x, 2), [(2, 3, 6)]),
    OpCase("max_pool1d_pad", lambda m, x: m.nn.functional.max_pool1d(x, 3, stride=2, padding=1), [(1, 2, 7)]),
    OpCase("avg_pool1d", lambda m, x: m.nn.functional.avg_pool1d(x, 3, stride=2), [(2, 3, 7)]),
    OpCase("adaptive_avg_pool2d", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 5, 7)]),
    OpCase("adaptive_avg_pool2d_global", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 1), [(2, 3, 4, 4)]),
    OpCase("adaptive_avg_pool2d_3d", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (3, None)), [(2, 7, 4)]),
    OpCase("group_norm", lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3, 2), (4,), (4,)]),
    OpCase("group_norm_plain", lambda m, x: m.nn.functional.group_norm(x, 3, eps=1e-3), [(2, 6, 5)]),
]

# selection (ops/select_more.py)
OPS += [
    OpCase("repeat_interleave", lambda m, a: m.repeat_interleave(a, 2), [(2, 3)]),
    OpCase("repeat_interleave_dim", lambda m, a: a.repeat_interleave(3, dim=1), [(2, 3)]),
    OpCase("repeat_interleave_tensor", lambda m, a: a.repeat_interleave(m.tensor([1, 0, 2]), dim=0), [(3, 2)]),
    OpCase("take", lambda m, a: m.take(a, m.tensor([[0, 5], [-1, 5]])), [(2, 3)]),
    OpCase("median", lambda m, a: m.median(a), [(3, 4)]),
    OpCase("median_dim", lambda m, a: a.median(dim=1).values, [(3, 4)]),
    OpCase("median_keepdim", lambda m, a: m.median(a, 0, keepdim=True)[0], [(4, 3)]),
    OpCase("cross", lambda m, a, b: m.cross(a, b, dim=1), [(2, 3), (2, 3)]),
    OpCase("cross_dim0", lambda m, a, b: a.cross(b, dim=0), [(3, 2), (3, 2)]),
]

# as_strided (a view of the storage) and mode (ops/strided.py)
OPS += [
    OpCase("as_strided", lambda m, a: a.as_strided((2, 2), (1, 2)), [(3, 4)]),
    OpCase("as_strided_overlap", lambda m, a: m.as_strided(a, (3, 3), (1, 1), 2), [(3, 4)]),
    OpCase("as_strided_of_view", lambda m, a: (a * 1)[1:].as_strided((2, 3), (3, 1)), [(3, 4)]),
    OpCase("mode", lambda m, a: m.mode(m.round(a * 2) + a * 0.01, 0).values, [(4, 3)]),
    OpCase("mode_last", lambda m, a: a.mode().values, [(3, 4)]),
]

# ops added after the fuzzer's first figures (order statistics; inverse hyperbolics, exp2, logit, hypot, erfinv,
# erfc; selu/celu/tanhshrink): each row gets the torch comparison, the float64 gradcheck and the fuzzer's draws
OPS += [
    OpCase("kthvalue", lambda m, a: m.kthvalue(a, 2, 1).values, [(3, 4)]),
    OpCase("cummax", lambda m, a: m.cummax(a, 1).values, [(3, 4)]),
    OpCase("cummin", lambda m, a: a.cummin(0).values, [(3, 4)]),
    OpCase("asinh", lambda m, a: m.asinh(a), [(3, 4)]),
    OpCase("acosh", lambda m, a: m.acosh(a), [(3, 4)], domain=(1.2, 3.0)),
    OpCase("atanh", lambda m, a: a.atanh(), [(3, 4)], domain=(-0.8, 0.8)),
    OpCase("exp2", lambda m, a: m.exp2(a), [(3, 4)]),
    OpCase("logit", lambda m, a: m.logit(a), [(3, 4)], domain=(0.1, 0.9)),
    OpCase("logit_eps", lambda m, a: m.logit(a, eps=0.2), [(3, 4)], domain=(0.05, 0.95)),
    OpCase("hypot", lambda m, a, b: m.hypot(a, b), [(3, 4), (4,)], domain=_pos()),
    OpCase("erfinv", lambda m, a: m.erfinv(a), [(3, 4)], domain=(-0.8, 0.8)),
    OpCase("erfc", lambda m, a: m.erfc(a), [(3, 4)]),
    OpCase("selu", lambda m, a: m.nn.functional.selu(a), [(3, 4)]),
    OpCase("celu", lambda m, a: m.nn.functional.celu(a, 0.7), [(3, 4)]),
    OpCase("tanhshrink", lambda m, a: m.nn.functional.tanhshrink(a), [(3, 4)]),
]

# layers met in pytorch/examples scripts (tests/scripts/): super_resolution's PixelShuffle
OPS += [
    OpCase("pixel_shuffle", lambda m, a: m.nn.functional.pixel_shuffle(a, 2), [(2, 8, 3, 2)]),
    OpCase("pixel_shuffle_batch_dims", lambda m, a: m.pixel_shuffle(a, 3), [(2, 1, 9, 2, 1)]),
    OpCase("pixel_shuffle_3d", lambda m, a: m.nn.functional.pixel_shuffle(a, 2), [(4, 2, 3)]),
    OpCase("pixel_unshuffle", lambda m, a: m.nn.functional.pixel_unshuffle(a, 2), [(2, 2, 4, 6)]),
    OpCase("pixel_unshuffle_twice", lambda m, a: m.pixel_unshuffle(m.pixel_shuffle(a, 2) * a.sum(), 2), [(1, 4, 2, 3)]),
]

# index writes and reductions into indices (ops/index_ops.py, ops/scatter_reduce.py, ops/scatter_views.py); the
# in-place twins on a clone, as the rows above
_I3 = [0, 2, 2]  # a repeated index: index_add/index_reduce fold both rows in
_J = [[0, 1, 1], [2, 0, 3], [0, 1, 1]]  # scatter_reduce's index into dim 0 of a (5, 3) input
OPS += [
    OpCase("index_add", lambda m, a, b: a.index_add(0, m.tensor(_I3), b, alpha=-1.5), [(5, 3), (3, 3)]),
    OpCase("index_add_dim1", lambda m, a, b: m.index_add(a, 1, m.tensor([3, 0]), b), [(2, 4), (2, 2)]),
    OpCase("index_add_inplace", lambda m, a, b: (a * 1).index_add_(0, m.tensor(_I3), b), [(5, 3), (3, 3)]),
    OpCase("index_copy", lambda m, a, b: a.index_copy(0, m.tensor([4, 0, 2]), b), [(5, 3), (3, 3)]),
    OpCase("index_copy_inplace", lambda m, a, b: (a * 1).index_copy_(1, m.tensor([1]), b), [(2, 3), (2, 1)]),
    OpCase("index_fill", lambda m, a: a.index_fill(1, m.tensor([0, 2]), -1.0), [(3, 4)]),
    OpCase("index_fill_tensor", lambda m, a, v: m.index_fill(a, 0, m.tensor([1, 1, 2]), v.sum()), [(3, 4), (2,)]),
    OpCase("index_fill_inplace", lambda m, a: (a * 1).index_fill_(0, m.tensor([1]), 0.5), [(3, 4)]),
    OpCase("index_reduce_prod", lambda m, a, b: a.index_reduce(0, m.tensor(_I3), b, "prod"), [(5, 3), (3, 3)]),
    OpCase("index_reduce_mean", lambda m, a, b: a.index_reduce(0, m.tensor(_I3), b, "mean", include_self=False),
           [(5, 3), (3, 3)]),
    OpCase("index_reduce_amax", lambda m, a, b: m.index_reduce(a, 1, m.tensor([1, 1]), b, "amax"), [(3, 4), (3, 2)]),
    OpCase("index_reduce_amin_inplace", lambda m, a, b: (a * 1).index_reduce_(0, m.tensor(_I3), b, "amin",
                                                                               include_self=False), [(5, 3), (3, 3)]),
    OpCase("scatter_reduce_sum", lambda m, a, b: a.scatter_reduce(0, m.tensor(_J), b, "sum"), [(5, 3), (3, 3)]),
    OpCase("scatter_reduce_prod", lambda m, a, b: m.scatter_reduce(a, 0, m.tensor(_J), b, "prod", include_self=False),
           [(5, 3), (3, 3)]),
    OpCase("scatter_reduce_mean", lambda m, a, b: a.scatter_reduce(0, m.tensor(_J), b, "mean"), [(5, 3), (3, 3)]),
    OpCase("scatter_reduce_amax", lambda m, a, b: a.scatter_reduce(1, m.tensor([[0, 0], [2, 1]]), b, "amax"),
           [(2, 3), (2, 2)]),
    OpCase("scatter_reduce_amin_inplace", lambda m, a, b: (a * 1).scatter_reduce_(0, m.tensor(_J), b, "amin"),
           [(5, 3), (3, 3)]),
    OpCase("scatter_inplace", lambda m, a, b: (a * 1).scatter_(0, m.tensor([[0, 1, 2]]), b), [(3, 3), (1, 3)]),
    OpCase("scatter_add_inplace", lambda m, a, b: (a * 1).scatter_add_(0, m.tensor(_J), b), [(5, 3), (3, 3)]),
    OpCase("put", lambda m, a, b: a.put(m.tensor([0, 5, -1]), b), [(3, 4), (3,)]),
    OpCase("put_accumulate", lambda m, a, b: m.put(a, m.tensor([[0, 5], [0, 5]]), b, accumulate=True),
           [(3, 4), (2, 2)]),
    OpCase("put_inplace", lambda m, a, b: (a * 1).put_(m.tensor([2, 7]), b), [(3, 4), (2,)]),
    OpCase("masked_scatter", lambda m, a, b: a.masked_scatter(a > 0, b), [(3, 4), (14,)]),
    OpCase("masked_scatter_broadcast", lambda m, a, b: m.masked_scatter(a, m.tensor([True, False, True]), b),
           [(3,), (2, 3)]),
    OpCase("masked_scatter_inplace", lambda m, a, b: (a * 1).masked_scatter_(m.tensor([[True], [False]]), b),
           [(2, 3), (4,)]),
    OpCase("diagonal_scatter", lambda m, a, b: m.diagonal_scatter(a, b, 1), [(3, 4), (3,)]),
    OpCase("diagonal_scatter_dims", lambda m, a, b: a.diagonal_scatter(b, -1, 0, 2), [(3, 2, 4), (2, 2)]),
    OpCase("select_scatter", lambda m, a, b: m.select_scatter(a, b, 1, -1), [(3, 4), (3,)]),
    OpCase("slice_scatter", lambda m, a, b: m.slice_scatter(a, b, 1, 1, None, 2), [(3, 4), (3, 2)]),
    OpCase("slice_scatter_dim0", lambda m, a, b: a.slice_scatter(b, start=-2), [(3, 4), (2, 4)]),
]

# shape helpers built of views, cat and stack (ops/stacking.py), and aminmax/msort (ops/search.py)
OPS += [
    OpCase("tensor_split", lambda m, a: m.tensor_split(a, 3, dim=1)[0] * m.tensor_split(a, 3, dim=1)[2],
           [(3, 5)]),
    OpCase("tensor_split_indices", lambda m, a: a.tensor_split([1, 3])[1], [(4, 3)]),
    OpCase("hsplit", lambda m, a: m.hsplit(a, [1])[1], [(2, 3)]),
    OpCase("vsplit", lambda m, a: a.vsplit(2)[1], [(4, 3)]),
    OpCase("dsplit", lambda m, a: m.dsplit(a, 2)[0], [(2, 1, 4)]),
    OpCase("hstack", lambda m, a, b: m.hstack([a, b]), [(3, 2), (3, 1)]),
    OpCase("hstack_1d", lambda m, a, b: m.hstack((a, b, a)), [(3,), (2,)]),
    OpCase("vstack", lambda m, a, b: m.vstack([a, b]), [(2, 3), (3,)]),
    OpCase("row_stack", lambda m, a, b: m.row_stack([a, b]), [(2, 3), (1, 3)]),
    OpCase("dstack", lambda m, a, b: m.dstack([a, b]), [(2, 3), (2, 3, 2)]),
    OpCase("column_stack", lambda m, a, b: m.column_stack([a, b, a]), [(3,), (3, 2)]),
    OpCase("atleast_3d", lambda m, a: m.atleast_3d(a), [(3,)]),
    OpCase("atleast_2d_tuple", lambda m, a, b: m.atleast_2d(a, b)[0] * m.atleast_2d(a, b)[1], [(3,), (2, 3)]),
    OpCase("broadcast_tensors", lambda m, a, b: m.broadcast_tensors(a, b)[0] * 2, [(3, 1), (4,)]),
    OpCase("meshgrid_ij", lambda m, a, b: m.meshgrid(a, b, indexing="ij")[1], [(3,), (2,)]),
    OpCase("meshgrid_xy", lambda m, a, b: m.meshgrid([a, b], indexing="xy")[0], [(3,), (2,)]),
    OpCase("rot90", lambda m, a: m.rot90(a), [(2, 3)]),
    OpCase("rot90_k3_dims", lambda m, a: a.rot90(3, [2, 0]), [(2, 3, 4)]),
    OpCase("diff", lambda m, a: m.diff(a), [(3, 4)]),
    OpCase("diff_n2_dim0_prepend", lambda m, a, b: a.diff(2, 0, prepend=b), [(3, 4), (2, 4)]),
    OpCase("cartesian_prod", lambda m, a, b: m.cartesian_prod(a, b), [(3,), (2,)]),
    OpCase("combinations", lambda m, a: m.combinations(a, 2), [(4,)]),
    OpCase("aminmax", lambda m, a: m.aminmax(a, dim=1).max, [(3, 4)]),
    OpCase("aminmax_all", lambda m, a: a.aminmax().min, [(3, 4)]),
    OpCase("msort", lambda m, a: m.msort(a), [(4, 3)]),
]
