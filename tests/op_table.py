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
    # gradcheck holds; tests/test_ops_indices_sampling.py checks the unmasked rule against torch
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
    # the other modes (ops/vision/interpolation.py; weights in ops/vision/interp_weights.py): nearest-exact (1-3 D), bicubic, area
    # (torch's adaptive average pools), antialiased bilinear / bicubic / lanczos
    OpCase("interpolate_nearest_exact1d", lambda m, a: m.nn.functional.interpolate(a, scale_factor=1.7,
                                                                                   mode="nearest-exact"), [(1, 2, 3)]),
    OpCase("interpolate_nearest_exact", lambda m, a: m.nn.functional.interpolate(a, size=(5, 2),
                                                                                 mode="nearest-exact"), [(1, 2, 3, 4)]),
    OpCase("interpolate_nearest_exact3d", lambda m, a: m.nn.functional.interpolate(
        a, scale_factor=(1.5, 0.5, 2), mode="nearest-exact"), [(1, 1, 2, 4, 2)]),
    OpCase("interpolate_bicubic", lambda m, a: m.nn.functional.interpolate(a, size=(5, 4), mode="bicubic"),
           [(1, 2, 3, 4)]),
    OpCase("interpolate_bicubic_corners", lambda m, a: m.nn.functional.interpolate(
        a, scale_factor=1.5, mode="bicubic", align_corners=True), [(2, 1, 3, 3)]),
    OpCase("interpolate_area1d", lambda m, a: m.nn.functional.interpolate(a, size=2, mode="area"), [(1, 2, 5)]),
    OpCase("interpolate_area", lambda m, a: m.nn.functional.interpolate(a, scale_factor=0.5, mode="area"),
           [(1, 2, 4, 5)]),
    OpCase("interpolate_area3d", lambda m, a: m.nn.functional.interpolate(a, size=(1, 2, 2), mode="area"),
           [(1, 1, 3, 3, 4)]),
    OpCase("interpolate_bilinear_aa", lambda m, a: m.nn.functional.interpolate(
        a, size=(2, 3), mode="bilinear", antialias=True), [(1, 2, 5, 7)]),
    OpCase("interpolate_bicubic_aa", lambda m, a: m.nn.functional.interpolate(
        a, size=(2, 3), mode="bicubic", antialias=True), [(1, 2, 5, 7)]),
    OpCase("interpolate_lanczos_aa", lambda m, a: m.nn.functional.interpolate(
        a, size=(3, 2), mode="lanczos", antialias=True), [(1, 2, 7, 5)]),
    OpCase("smooth_l1_loss", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, beta=0.5), [(3, 4), (3, 4)]),
    OpCase("smooth_l1_loss_sum", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, reduction="sum"),
           [(3, 4), (3, 4)]),
    OpCase("smooth_l1_loss_none", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b, reduction="none"),
           [(3, 4), (3, 4)]),
    OpCase("huber_loss", lambda m, a, b: m.nn.functional.huber_loss(a, b, delta=0.7), [(3, 4), (3, 4)]),
    OpCase("huber_loss_none", lambda m, a, b: m.nn.functional.huber_loss(a, b, reduction="none"), [(5,), (5,)]),
    OpCase("mse_loss", lambda m, a, b: m.nn.functional.mse_loss(a, b), [(3, 4), (3, 4)]),
    OpCase("mse_loss_sum", lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction="sum"), [(2, 3, 4), (2, 3, 4)]),
    OpCase("mse_loss_none", lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction="none"), [(3, 4), (3, 4)]),
    OpCase("chain", lambda m, a, b: ((a * b).exp() + a.sin()).sum(dim=0), [(3, 2), (3, 2)]),
]

# Multi-output views: several views of one node (UnbindBackward0, SplitBackward0, SplitWithSizesBackward0), as torch.
OPS += [
    OpCase("unbind", lambda m, a: a.unbind(1)[1], [(3, 4)]),
    OpCase("split", lambda m, a: a.split(2, dim=1)[1], [(3, 5)]),
    OpCase("split_sizes", lambda m, a: a.split([1, 4], dim=1)[1], [(3, 5)]),
    OpCase("chunk", lambda m, a: a.chunk(2, dim=0)[0], [(3, 5)]),
    OpCase("unsafe_chunk", lambda m, a: m.unsafe_chunk(a, 2, 1)[1], [(3, 5)], grad_fn="UnsafeSplitBackward0"),
    OpCase("unsafe_chunk_method", lambda m, a: a.unsafe_chunk(3, dim=0)[0], [(3, 5)], grad_fn="UnsafeSplitBackward0"),
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
# (tests/test_ops_indices_sampling.py), and the rows get the float64 gradcheck.
EINSUM_OPS = [
    OpCase("einsum_mm", lambda m, a, b: m.einsum("ij,jk->ik", a, b), [(3, 4), (4, 2)]),
    OpCase("einsum_batch", lambda m, a, b: m.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 2)]),
    OpCase("einsum_implicit", lambda m, a, b: m.einsum("ij,kj", a, b), [(3, 4), (2, 4)]),
    OpCase("einsum_ellipsis", lambda m, a, b: m.einsum("...ij,...j->...i", a, b), [(2, 3, 4), (4,)]),
    OpCase("einsum_outer_sum", lambda m, a, b: m.einsum("i,j->ij", a, b) + m.einsum("ij->j", a[:, None] * b),
           [(3,), (2,)]),
    OpCase("einsum_attention", lambda m, q, k: m.einsum("bhqd,bhkd->bhqk", q, k), [(1, 2, 3, 4), (1, 2, 5, 4)]),
]

# more elementwise ops (ops/pointwise/exp_log.py): torch's node names, including square's PowBackward0
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

# more shape ops (ops/shape/rearrange.py): copies (flip, roll, repeat, tile) and views (diagonal, movedim, unflatten...)
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

# fused pointwise ops, out of place (ops/pointwise/ternary.py)
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

# more activations (ops/activation/elu_family.py), through nn.functional
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

# conv1d, 1-D pools, adaptive average pool, group norm (ops/conv/convolution_1d.py)
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

# selection (ops/indexing/selection.py)
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

# as_strided (a view of the storage) and mode (ops/shape/strided.py)
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

# layers that training scripts reach for (tests/scripts/pixel_shuffle_upscaler.py): PixelShuffle
OPS += [
    OpCase("pixel_shuffle", lambda m, a: m.nn.functional.pixel_shuffle(a, 2), [(2, 8, 3, 2)]),
    OpCase("pixel_shuffle_batch_dims", lambda m, a: m.pixel_shuffle(a, 3), [(2, 1, 9, 2, 1)]),
    OpCase("pixel_shuffle_3d", lambda m, a: m.nn.functional.pixel_shuffle(a, 2), [(4, 2, 3)]),
    OpCase("pixel_unshuffle", lambda m, a: m.nn.functional.pixel_unshuffle(a, 2), [(2, 2, 4, 6)]),
    OpCase("pixel_unshuffle_twice", lambda m, a: m.pixel_unshuffle(m.pixel_shuffle(a, 2) * a.sum(), 2), [(1, 4, 2, 3)]),
]

# index writes and reductions into indices (ops/indexing/index_write.py, ops/indexing/scatter_reduction.py, ops/indexing/scatter_views.py); the
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
    OpCase("tril_inplace", lambda m, a: (a * 1).tril_(-1), [(3, 4)]),
    OpCase("triu_inplace", lambda m, a: (a * 2).triu_(1), [(2, 3, 3)]),
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

# shape helpers built of views, cat and stack (ops/shape/joining.py), and aminmax/msort (ops/search.py)
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

# pooling with indices, 3-D and adaptive max pools, unpooling, LP pools (ops/pooling/pool_nd.py, nn/functional/pooling.py)
OPS += [
    OpCase("max_pool2d_indices", lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)[0],
           [(2, 3, 7, 7)]),
    OpCase("max_pool2d_dilated_ceil", lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, dilation=2, ceil_mode=True),
           [(1, 2, 9, 8)]),
    OpCase("max_pool2d_unbatched", lambda m, x: m.nn.functional.max_pool2d(x, (2, 3), return_indices=True)[0],
           [(2, 5, 7)]),
    OpCase("max_pool1d_indices", lambda m, x: m.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True)[0],
           [(2, 3, 9)]),
    OpCase("max_pool1d_ceil", lambda m, x: m.nn.functional.max_pool1d(x, 2, ceil_mode=True), [(2, 7)]),
    OpCase("max_pool3d", lambda m, x: m.nn.functional.max_pool3d(x, 2, padding=1), [(1, 2, 4, 5, 3)]),
    OpCase("max_pool3d_indices", lambda m, x: m.nn.functional.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2),
                                                                         return_indices=True)[0], [(2, 4, 6, 5)]),
    OpCase("avg_pool3d", lambda m, x: m.nn.functional.avg_pool3d(x, 2), [(2, 2, 4, 4, 5)]),
    OpCase("avg_pool3d_ceil_nopad", lambda m, x: m.nn.functional.avg_pool3d(x, 3, 2, 1, ceil_mode=True,
                                                                            count_include_pad=False),
           [(1, 2, 5, 6, 4)]),
    OpCase("avg_pool3d_divisor", lambda m, x: m.nn.functional.avg_pool3d(x, 2, 1, 1, divisor_override=3),
           [(2, 3, 3, 4)]),
    OpCase("avg_pool2d_ceil", lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [(2, 2, 6, 7)]),
    OpCase("avg_pool1d_nopad", lambda m, x: m.nn.functional.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
           [(2, 3, 8)]),
    OpCase("max_unpool2d", lambda m, x: m.nn.functional.max_unpool2d(*m.nn.functional.max_pool2d(
        x, 2, return_indices=True), 2), [(2, 3, 4, 6)]),
    # (windows that do not overlap: where two pick one element, torch's gradient counts it twice, as ours)
    OpCase("max_unpool1d_size", lambda m, x: m.nn.functional.max_unpool1d(*m.nn.functional.max_pool1d(
        x, 2, return_indices=True), 2, output_size=(9,)), [(2, 3, 9)]),
    OpCase("adaptive_max_pool2d", lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
    OpCase("adaptive_max_pool1d", lambda m, x: m.nn.functional.adaptive_max_pool1d(x, 4, return_indices=True)[0],
           [(2, 3, 9)]),
    OpCase("adaptive_avg_pool1d", lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, 3), [(2, 3, 7)]),
    OpCase("adaptive_avg_pool3d", lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, (2, 3, None)),
           [(1, 2, 5, 7, 3)]),
    OpCase("lp_pool2d", lambda m, x: m.nn.functional.lp_pool2d(x, 2, (2, 3)), [(2, 2, 4, 6)]),
    OpCase("lp_pool1d", lambda m, x: m.nn.functional.lp_pool1d(x, 3, 3, stride=2), [(2, 3, 9)], domain=_pos()),
]

# N-d convolutions (ops/conv/convolution_nd.py)
OPS += [
    OpCase("conv3d", lambda m, x, w, b: m.nn.functional.conv3d(x, w, b, stride=(2, 1, 1), padding=1),
           [(2, 2, 4, 3, 4), (3, 2, 2, 3, 2), (3,)]),
    OpCase("conv3d_dilated_same", lambda m, x, w: m.nn.functional.conv3d(x, w, padding="same", dilation=(1, 2, 1)),
           [(1, 2, 3, 5, 4), (2, 2, 3, 3, 1)]),
    OpCase("conv3d_unbatched", lambda m, x, w: m.nn.functional.conv3d(x, w), [(2, 3, 3, 4), (2, 2, 2, 2, 3)]),
    OpCase("conv_transpose1d", lambda m, x, w, b: m.nn.functional.conv_transpose1d(
        x, w, b, stride=2, padding=1, output_padding=1, dilation=2), [(2, 3, 5), (3, 4, 3), (4,)]),
    OpCase("conv_transpose1d_unbatched", lambda m, x, w: m.nn.functional.conv_transpose1d(x, w, stride=3),
           [(3, 4), (3, 2, 2)]),
    OpCase("conv_transpose3d", lambda m, x, w, b: m.nn.functional.conv_transpose3d(x, w, b, stride=(2, 1, 2),
                                                                                   padding=(0, 1, 1)),
           [(1, 2, 2, 3, 2), (2, 3, 2, 3, 2), (3,)]),
]

# grouped and depthwise convolutions (ops/conv/convolution_nd.py's grouped kernels, for every dimension)
OPS += [
    OpCase("conv2d_grouped", lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, stride=2, padding=1, groups=2),
           [(2, 4, 5, 5), (6, 2, 3, 3), (6,)]),
    OpCase("conv2d_depthwise", lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1, dilation=2, groups=3),
           [(1, 3, 6, 6), (3, 1, 3, 3)]),
    OpCase("conv1d_grouped", lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, padding="same", groups=2),
           [(2, 4, 7), (4, 2, 3), (4,)]),
    OpCase("conv3d_grouped", lambda m, x, w: m.nn.functional.conv3d(x, w, groups=2),
           [(1, 4, 3, 4, 3), (2, 2, 2, 2, 2)]),
    OpCase("conv_transpose2d_grouped", lambda m, x, w, b: m.nn.functional.conv_transpose2d(x, w, b, stride=2,
                                                                                           groups=2),
           [(2, 4, 3, 3), (4, 3, 3, 3), (6,)]),
    OpCase("conv_transpose1d_grouped", lambda m, x, w: m.nn.functional.conv_transpose1d(
        x, w, stride=2, output_padding=1, groups=2), [(2, 4, 5), (4, 2, 3)]),
    OpCase("conv_transpose3d_depthwise", lambda m, x, w: m.nn.functional.conv_transpose3d(x, w, groups=2),
           [(1, 2, 2, 3, 2), (2, 1, 2, 2, 2)]),
]

# unfold / fold, channel shuffle (ops/conv/im2col.py); 3-D padding (ops/_separable.py; circular padding's CopySlices graph is
# tested in tests/test_nn_padding_fold_dropout.py)
OPS += [
    OpCase("unfold_im2col", lambda m, x: m.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1,
                                                                 stride=(1, 2)), [(2, 3, 5, 7)]),
    OpCase("unfold_im2col_unbatched", lambda m, x: m.nn.functional.unfold(x, 2), [(2, 3, 4)]),
    OpCase("fold", lambda m, x: m.nn.functional.fold(x, (4, 5), (2, 3), padding=1, stride=(1, 2)), [(2, 12, 15)]),
    OpCase("fold_unbatched", lambda m, x: m.nn.functional.fold(x, (4, 4), 2, dilation=2), [(8, 4)]),
    OpCase("channel_shuffle", lambda m, x: m.nn.functional.channel_shuffle(x, 3), [(2, 6, 3, 2)]),
    OpCase("pad_constant_3d", lambda m, x: m.nn.functional.pad(x, (1, 2, 0, 1, 1, 0), value=0.5), [(1, 2, 3, 2, 3)]),
    OpCase("pad_reflect_3d", lambda m, x: m.nn.functional.pad(x, (1, 0, 2, 1, 0, 1), mode="reflect"),
           [(1, 2, 3, 4, 3)]),
    OpCase("pad_replicate_3d", lambda m, x: m.nn.functional.pad(x, (1, 0, 2, 1, 0, 2), mode="replicate"),
           [(2, 3, 2, 3)]),
]

# 3-D unpooling, adaptive max pool and LP pool (ops/pooling/pool_nd.py)
OPS += [
    OpCase("max_unpool3d", lambda m, x: m.nn.functional.max_unpool3d(*m.nn.functional.max_pool3d(
        x, 2, return_indices=True), 2), [(1, 2, 4, 2, 4)]),
    OpCase("adaptive_max_pool3d", lambda m, x: m.nn.functional.adaptive_max_pool3d(x, (2, 3, None)), [(1, 2, 5, 4, 3)]),
    OpCase("lp_pool3d", lambda m, x: m.nn.functional.lp_pool3d(x, 2, (2, 1, 2)), [(1, 2, 4, 3, 4)]),
]

# the gamma family and torch.special (ops/pointwise/gamma.py), clamp with tensor bounds and clamp_min/max
# (ops/pointwise/clamping.py), fmax/fmin, float_power, deg2rad/rad2deg, sgn, angle (ops/pointwise/bitwise.py)
OPS += [
    OpCase("lgamma", lambda m, a: m.lgamma(a), [(3, 4)], domain=(0.2, 4.0)),
    OpCase("lgamma_negative", lambda m, a: a.lgamma(), [(3, 4)], domain=(-2.9, -2.1)),
    OpCase("digamma", lambda m, a: m.digamma(a), [(3, 4)], domain=(0.2, 4.0)),
    OpCase("digamma_negative", lambda m, a: a.digamma(), [(3, 4)], domain=(-1.9, -1.1)),
    OpCase("polygamma1", lambda m, a: m.polygamma(1, a), [(3, 4)], domain=(0.3, 4.0)),
    OpCase("polygamma3_method", lambda m, a: a.polygamma(3), [(3, 4)], domain=(0.5, 4.0), tol32=1e-4),
    OpCase("special_psi", lambda m, a: m.special.psi(a), [(3, 4)], domain=(0.5, 4.0)),
    OpCase("mvlgamma", lambda m, a: m.mvlgamma(a, 3), [(3, 4)], domain=(1.2, 4.0)),
    OpCase("special_multigammaln", lambda m, a: m.special.multigammaln(a, 1), [(3, 4)], domain=(0.5, 4.0)),
    OpCase("i0", lambda m, a: m.i0(a), [(3, 4)], domain=(-3.0, 3.0)),
    OpCase("special_i0e", lambda m, a: m.special.i0e(a), [(3, 4)], domain=(-3.0, 3.0)),
    OpCase("special_i1", lambda m, a: m.special.i1(a), [(3, 4)], domain=(-3.0, 3.0)),
    OpCase("special_i1e", lambda m, a: m.special.i1e(a), [(3, 4)], domain=(-3.0, 3.0)),
    OpCase("sinc", lambda m, a: m.sinc(a), [(3, 4)]),
    OpCase("special_entr", lambda m, a: m.special.entr(a), [(3, 4)], domain=(0.1, 2.0)),
    OpCase("special_ndtri", lambda m, a: m.special.ndtri(a), [(3, 4)], domain=(0.05, 0.95)),
    OpCase("special_log_ndtr", lambda m, a: m.special.log_ndtr(a), [(3, 4)], domain=(-4.0, 3.0)),
    OpCase("special_ndtr", lambda m, a: m.special.ndtr(a), [(3, 4)]),
    OpCase("xlogy", lambda m, a, b: m.xlogy(a, b), [(3, 4), (4,)], domain=(0.2, 2.0)),
    OpCase("xlogy_scalar_other", lambda m, a: m.xlogy(a, 1.7), [(3, 4)]),
    OpCase("xlogy_scalar_self", lambda m, b: m.xlogy(2.5, b), [(3, 4)], domain=(0.2, 2.0)),
    OpCase("special_xlog1py", lambda m, a, b: m.special.xlog1py(a, b), [(3, 4), (3, 1)], domain=(0.2, 2.0)),
    OpCase("special_zeta_q", lambda m, a: m.special.zeta(m.full_like(a, 2.5), a), [(3, 4)], domain=(0.5, 3.0)),
    OpCase("special_gammainc_x", lambda m, a: m.special.gammainc(m.full_like(a, 1.5), a), [(3, 4)],
           domain=(0.2, 3.0)),
    OpCase("special_gammaincc_x", lambda m, a: m.special.gammaincc(m.full_like(a, 0.7), a), [(3, 4)],
           domain=(0.2, 3.0)),
    OpCase("clamp_tensor_min", lambda m, a, lo: m.clamp(a, min=lo), [(3, 4), (4,)]),
    OpCase("clamp_tensor_both", lambda m, a, lo, hi: m.clamp(a, lo, hi), [(3, 4), (3, 1), (4,)]),
    OpCase("clamp_tensor_max_method", lambda m, a, hi: a.clamp(max=hi), [(3, 4), (3, 4)]),
    OpCase("clamp_max_method", lambda m, a: a.clamp_max(-0.2), [(3, 4)]),
    OpCase("clamp_min_tensor", lambda m, a, lo: a.clamp_min(lo), [(3, 4), (4,)]),
    OpCase("clamp_max_tensor", lambda m, a, hi: m.clamp_max(a, hi), [(3, 4), (3, 1)]),
    OpCase("fmax", lambda m, a, b: m.fmax(a, b), [(3, 4), (4,)]),
    OpCase("nextafter", lambda m, a, b: m.nextafter(a, b), [(3, 4), (4,)]),
    OpCase("fmin_method", lambda m, a, b: a.fmin(b), [(3, 4), (3, 4)]),
    OpCase("float_power", lambda m, a: m.float_power(a, 3), [(3, 4)]),
    OpCase("float_power_tensor", lambda m, a, b: m.float_power(a, b), [(3, 4), (4,)], domain=_pos()),
    OpCase("deg2rad", lambda m, a: m.deg2rad(a), [(3, 4)]),
    OpCase("rad2deg_method", lambda m, a: a.rad2deg(), [(3, 4)]),
    OpCase("sgn", lambda m, a: m.sgn(a) * a, [(3, 4)]),
    OpCase("angle", lambda m, a: m.angle(a) + a, [(3, 4)]),
]

# more of torch.Tensor's surface (ops/shape/strided.py, stats_more.py): sliding windows, sums to a size, ravel,
# in-place cumsum_/cumprod_/reciprocal_/rsqrt_, cov/corrcoef/vdot
OPS += [
    OpCase("unfold", lambda m, a: a.unfold(1, 2, 1), [(3, 4)]),
    OpCase("unfold_step", lambda m, a: a.unfold(0, 2, 3) * 2, [(7, 2)]),
    OpCase("unfold_twice", lambda m, a: a.unfold(1, 3, 1).unfold(0, 2, 1), [(3, 5)]),
    OpCase("sum_to_size", lambda m, a: a.sum_to_size(1, 4), [(3, 4)]),
    OpCase("sum_to_size_lead", lambda m, a: a.sum_to_size(4), [(2, 3, 4)]),
    OpCase("ravel_transposed", lambda m, a: m.ravel(a.t()), [(3, 4)]),
    OpCase("cumsum_inplace", lambda m, a: (a * 1).cumsum_(1), [(3, 4)]),
    OpCase("cumprod_inplace", lambda m, a: (a * 1).cumprod_(0), [(3, 4)]),
    OpCase("reciprocal_inplace", lambda m, a: (a * 1).reciprocal_(), [(3, 4)], domain=_pos()),
    OpCase("rsqrt_inplace", lambda m, a: (a * 1).rsqrt_(), [(3, 4)], domain=_pos()),
    OpCase("cov", lambda m, a: m.cov(a), [(3, 5)]),
    OpCase("cov_1d_correction0", lambda m, a: m.cov(a, correction=0), [(6,)]),
    OpCase("cov_aweights", lambda m, a, w: m.cov(a, aweights=w), [(2, 5), (5,)], domain=_pos()),
    OpCase("corrcoef", lambda m, a: m.corrcoef(a), [(3, 6)]),
    OpCase("vdot", lambda m, a, b: m.vdot(a, b), [(5,), (5,)]),
]

def _spd(m, a):
    """a a^T + I: symmetric positive-definite whatever a holds (the fuzzer reuses tensors of the row's shape)."""
    return a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype)


# linear algebra (framework.linalg, ops/linalg_*.py)
OPS += [
    OpCase("linalg_inv", lambda m, a: m.linalg.inv(_spd(m, a)), [(2, 3, 3)]),
    OpCase("inverse_method", lambda m, a: (a + 4 * m.eye(3, dtype=a.dtype)).inverse(), [(3, 3)], domain=(-1.0, 1.0)),
    OpCase("linalg_det", lambda m, a: m.linalg.det(_spd(m, a)), [(2, 3, 3)], domain=(-1.0, 1.0)),
    OpCase("det_nonsym", lambda m, a: m.det(a), [(3, 3)]),
    OpCase("linalg_slogdet", lambda m, a: m.linalg.slogdet(_spd(m, a))[1], [(2, 3, 3)]),
    OpCase("logdet", lambda m, a: m.logdet(_spd(m, a)), [(3, 3)]),
    OpCase("linalg_solve", lambda m, a, b: m.linalg.solve(_spd(m, a), b), [(2, 3, 3), (2, 3, 2)]),
    OpCase("linalg_solve_vec", lambda m, a, b: m.linalg.solve(_spd(m, a), b), [(3, 3), (3,)]),
    OpCase("linalg_cholesky", lambda m, a: m.linalg.cholesky(_spd(m, a)), [(2, 3, 3)]),
    OpCase("linalg_eigvalsh", lambda m, a: m.linalg.eigvalsh(_spd(m, a)), [(2, 3, 3)]),
    OpCase("linalg_svdvals", lambda m, a: m.linalg.svdvals(a), [(4, 3)]),
    OpCase("linalg_matrix_exp", lambda m, a: m.linalg.matrix_exp(a), [(2, 3, 3)], domain=(-1.0, 1.0)),
    OpCase("matrix_power", lambda m, a: m.matrix_power(a, 3), [(3, 3)]),
    OpCase("linalg_matrix_norm_nuc", lambda m, a: m.linalg.matrix_norm(a, "nuc"), [(3, 4)]),
    OpCase("linalg_vecdot", lambda m, a, b: m.linalg.vecdot(a, b), [(3, 4), (4,)]),
    OpCase("linalg_multi_dot", lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4, 2)]),
    OpCase("tensordot", lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0])), [(2, 3, 4), (4, 2, 5)]),
    OpCase("kron", lambda m, a, b: m.kron(a, b), [(2, 3), (3, 2)]),
    OpCase("inner", lambda m, a, b: m.inner(a, b), [(2, 3), (4, 3)]),
    OpCase("addmv", lambda m, a, b, c: m.addmv(a, b, c, beta=0.5, alpha=2), [(3,), (3, 4), (4,)]),
    OpCase("addr", lambda m, a, b, c: a.addr(b, c, alpha=3), [(3, 4), (3,), (4,)]),
    OpCase("addbmm", lambda m, a, b, c: m.addbmm(a, b, c, beta=2), [(3, 2), (4, 3, 5), (4, 5, 2)]),
    OpCase("dist", lambda m, a, b: m.dist(a, b), [(3, 4), (4,)]),
    OpCase("dist_p3", lambda m, a, b: a.dist(b, 3), [(3, 4), (3, 4)]),
    OpCase("cdist", lambda m, a, b: m.cdist(a, b), [(2, 3, 4), (2, 5, 4)]),
    OpCase("cdist_p1", lambda m, a, b: m.cdist(a, b, p=1), [(3, 4), (5, 4)]),
    OpCase("diag_embed_dims", lambda m, a: m.diag_embed(a, offset=1, dim1=0, dim2=2), [(2, 3)]),
    OpCase("diagflat", lambda m, a: a.diagflat(-1), [(2, 2)]),
    OpCase("block_diag", lambda m, a, b: m.block_diag(a, b), [(2, 3), (3,)]),
]

# gated/shrink activations, norms and losses (nn/modules/activation.py, nn/modules/loss.py) and more maths
# (ops/pointwise/exp_log.py, ops/reduction/sums.py)
OPS += [
    OpCase("glu", lambda m, a: m.nn.functional.glu(a, 0), [(4, 3)]),
    OpCase("hardshrink", lambda m, a: m.nn.functional.hardshrink(a, 0.4), [(3, 4)]),
    OpCase("softshrink", lambda m, a: m.nn.functional.softshrink(a, 0.4), [(3, 4)]),
    OpCase("threshold", lambda m, a: m.nn.functional.threshold(a, 0.3, -1.0), [(3, 4)]),
    OpCase("rrelu_eval", lambda m, a: m.nn.functional.rrelu(a, 0.1, 0.3), [(3, 4)]),
    OpCase("rms_norm", lambda m, a, w: m.nn.functional.rms_norm(a, (4,), w), [(3, 4), (4,)]),
    OpCase("bilinear", lambda m, a, b, w, c: m.nn.functional.bilinear(a, b, w, c), [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    OpCase("local_response_norm", lambda m, a: m.nn.functional.local_response_norm(a, 3, 0.5), [(2, 4, 3)]),
    OpCase("softmax2d", lambda m, a: m.nn.Softmax2d()(a), [(2, 3, 2, 2)]),
    OpCase("gaussian_nll_loss", lambda m, a, b, v: m.nn.functional.gaussian_nll_loss(a, b, v), [(3, 4), (3, 4), (3, 4)],
           domain=_pos()),
    OpCase("poisson_nll_loss", lambda m, a, t: m.nn.functional.poisson_nll_loss(a, t), [(3, 4), (3, 4)]),
    OpCase("hinge_embedding_loss", lambda m, a: m.nn.functional.hinge_embedding_loss(
        a, m.tensor([[1.0, -1.0, 1.0, -1.0]], dtype=a.dtype)), [(3, 4)]),
    OpCase("soft_margin_loss", lambda m, a: m.nn.functional.soft_margin_loss(
        a, m.tensor([1.0, -1.0, -1.0, 1.0], dtype=a.dtype).expand(3, 4)), [(3, 4)]),
    OpCase("multi_margin_loss", lambda m, a: m.nn.functional.multi_margin_loss(a, m.tensor([0, 3, 1])), [(3, 4)]),
    # through log_softmax: torch's ctc gradient assumes normalised log-probabilities (it adds exp(log_probs))
    OpCase("ctc_loss", lambda m, a: m.nn.functional.ctc_loss(a.log_softmax(2), m.tensor([[1, 2, 2], [3, 1, 0]]),
                                                             (5, 4), (3, 2)), [(5, 2, 4)]),
    OpCase("multilabel_margin_loss", lambda m, a: m.nn.functional.multilabel_margin_loss(
        a, m.tensor([[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3]])), [(3, 4)]),
    OpCase("multilabel_soft_margin_loss", lambda m, a, t: m.nn.functional.multilabel_soft_margin_loss(a, t),
           [(3, 4), (3, 4)], domain=(0.0, 1.0)),
    OpCase("triplet_margin_with_distance_loss", lambda m, a, p, n: m.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, margin=2.0), [(3, 4), (3, 4), (3, 4)]),
    OpCase("nansum", lambda m, a: m.nansum(a, 1), [(3, 4)]),
    OpCase("nanmean", lambda m, a: a.nanmean(), [(3, 4)]),
    OpCase("logaddexp", lambda m, a, b: m.logaddexp(a, b), [(3, 4), (4,)]),
    OpCase("logaddexp2", lambda m, a, b: m.logaddexp2(a, b), [(3, 4), (3, 4)]),
    OpCase("logcumsumexp", lambda m, a: m.logcumsumexp(a, 1), [(3, 4)]),
    OpCase("copysign", lambda m, a, b: m.copysign(a, b), [(3, 4), (3, 4)]),
    OpCase("copysign_scalar", lambda m, a: a.copysign(-2.0), [(3, 4)]),
    OpCase("ldexp", lambda m, a, b: m.ldexp(a, b), [(3, 4), (3, 4)]),
    OpCase("frexp", lambda m, a: m.frexp(a).mantissa, [(3, 4)]),
    OpCase("std_mean", lambda m, a: m.std_mean(a, 1)[0], [(3, 4)]),
    OpCase("var_mean", lambda m, a: m.var_mean(a, 0, correction=0)[1], [(3, 4)]),
    OpCase("quantile", lambda m, a: m.quantile(a, 0.3, dim=1), [(3, 4)]),
    OpCase("nanquantile", lambda m, a: a.nanquantile(0.6, interpolation="midpoint"), [(3, 4)]),
    OpCase("nanmedian", lambda m, a: m.nanmedian(a, 0).values, [(3, 4)]),
    OpCase("renorm", lambda m, a: m.renorm(a, 2, 0, 1.0), [(3, 4)]),
    OpCase("trapezoid", lambda m, a: m.trapezoid(a), [(3, 4)]),
    OpCase("trapezoid_x", lambda m, y, x: m.trapezoid(y, x, dim=0), [(3, 4), (3, 4)]),
    OpCase("cumulative_trapezoid", lambda m, a: m.cumulative_trapezoid(a, dx=0.5), [(3, 4)]),
    OpCase("clamp_min_fn", lambda m, a: m.clamp_min(a, 0.2), [(3, 4)]),
]

# the spatial transformer's grid (ops/vision/grid_sampling.py; grid_sample itself is in tests/test_grid_sample.py: its
# floor makes a random grid's gradcheck fragile at pixel edges)
OPS += [
    OpCase("affine_grid", lambda m, t: m.nn.functional.affine_grid(t, (2, 1, 3, 4), align_corners=False),
           [(2, 2, 3)]),
]

# in-place view ops (ops/shape/views_inplace.py): the output is the input's clone, its geometry changed in place
OPS += [
    OpCase("t_", lambda m, a: (a * 1).t_(), [(3, 4)], grad_fn="TBackward1"),
    OpCase("transpose_", lambda m, a: (a * 1).transpose_(0, 2), [(2, 3, 4)], grad_fn="TransposeBackward1"),
    OpCase("swapdims_", lambda m, a: (a * 1).swapdims_(-1, 0), [(3, 4)], grad_fn="TransposeBackward1"),
    OpCase("squeeze_", lambda m, a: (a * 1).squeeze_(), [(3, 1, 4, 1)], grad_fn="SqueezeBackward3"),
    OpCase("squeeze_dim_", lambda m, a: (a * 1).squeeze_(1), [(3, 1, 4)], grad_fn="SqueezeBackward4"),
    OpCase("squeeze_dims_", lambda m, a: (a * 1).squeeze_((1, 3)), [(3, 1, 4, 1)], grad_fn="SqueezeBackward5"),
    OpCase("unsqueeze_", lambda m, a: (a * 1).unsqueeze_(-1), [(3, 4)], grad_fn="UnsqueezeBackward1"),
    OpCase("as_strided_", lambda m, a: (a * 1).as_strided_((2, 3), (1, 2), 1), [(3, 4)],
           grad_fn="AsStridedBackward1"),
]

# LU factorization and triangular solves (ops/linalg/lu_decomposition.py, ops/linalg/triangular.py): diagonally dominant inputs,
# so that the pivots stay put under a gradcheck's steps
OPS += [
    OpCase("linalg_lu_factor", lambda m, a: m.linalg.lu_factor(a + 4 * m.eye(3, dtype=a.dtype))[0], [(2, 3, 3)],
           domain=(-1.0, 1.0)),
    OpCase("linalg_lu_wide", lambda m, a: m.linalg.lu(a + 4 * m.eye(3, 4, dtype=a.dtype)).U, [(3, 4)],
           domain=(-1.0, 1.0)),
    OpCase("linalg_lu_tall", lambda m, a: m.linalg.lu(a + 4 * m.eye(4, 3, dtype=a.dtype)).L, [(4, 3)],
           domain=(-1.0, 1.0)),
    OpCase("linalg_lu_solve", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a + 4 * m.eye(3, dtype=a.dtype)),
                                                                 b, adjoint=True), [(2, 3, 3), (3, 2)],
           domain=(-1.0, 1.0)),
    OpCase("linalg_solve_triangular", lambda m, a, b: m.linalg.solve_triangular(
        a + 4 * m.eye(3, dtype=a.dtype), b, upper=False, left=False), [(3, 3), (2, 3)], domain=(-1.0, 1.0)),
]
