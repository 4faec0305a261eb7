"""The ops and layers added for more PyTorch scripts (square, floor, flip, diagonal, SiLU, GroupNorm, Conv1d...):
views and copies, in-place twins and version counters, dtypes, errors (class and first sentence), modules.

Values and gradients of each op against torch, and its float64 gradcheck, are the op-table rows (tests/op_table.py).
"""
import numpy as np
import pytest

import framework
from framework.testing import assert_close
from scenario import outcome

torch = pytest.importorskip("torch")


def _pair(shape=(3, 4), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return framework.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


# ---- views and copies ------------------------------------------------------------------------------

VIEWS = {
    "diagonal": lambda m, x: x.diagonal(),
    "diagonal_offset": lambda m, x: m.diagonal(x, -1),
    "movedim": lambda m, x: m.movedim(x, 0, 1),
    "swapaxes": lambda m, x: m.swapaxes(x, 0, 1),
    "swapdims": lambda m, x: x.swapdims(1, 0),
    "unflatten": lambda m, x: x.unflatten(1, (2, 2)),
    "broadcast_to": lambda m, x: m.broadcast_to(x, (1, 3, 4))[0],
    "as_strided": lambda m, x: x.as_strided((2, 2), (4, 1), 1),
    "diagonal_strided": lambda m, x: x[:, ::2].diagonal(),  # dims that do not merge: a strided view
}
COPIES = {
    "flip": lambda m, x: x.flip(0),
    "roll": lambda m, x: m.roll(x, 1, 0),
    "repeat": lambda m, x: x.repeat(1, 1),
    "tile": lambda m, x: m.tile(x, (1,)),
    "diag": lambda m, x: m.diag(x),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_storage_and_version_with_their_base(name):
    fn = VIEWS[name]
    outs = []
    for m in (framework, torch):
        base = m.zeros(3, 4)
        v = fn(m, base)
        v.add_(1.0)  # a write into the view lands in the base and bumps the shared version counter
        outs.append((base.sum().item(), base._version, v._version, v._base is base))
    assert outs[0] == outs[1]
    assert outs[0][3]


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copies_do_not_share_storage(name):
    fn = COPIES[name]
    for m in (framework, torch):
        base = m.zeros(3, 4)
        c = fn(m, base)
        c.add_(1.0)
        assert base.sum().item() == 0.0 and base._version == 0 and c._base is None


def test_write_through_a_diagonal_view_reaches_gradients_as_torch():
    outs = []
    for m in (framework, torch):
        x = m.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        y = x * 1
        y.diagonal().mul_(3.0)  # CopySlices on y, as torch
        y.sum().backward()
        outs.append((y.grad_fn.name().split("::")[-1], x.grad.tolist()))
    assert outs[0] == outs[1]


def test_as_strided_is_a_view_of_the_storage():
    outs = []
    for m in (framework, torch):
        base = m.arange(12.0).reshape(3, 4)
        v = base[1:].as_strided((2, 2), (1, 2))  # from the view's own start: storage offset 4
        w = base[1:].as_strided((2, 2), (1, 2), 0)  # an explicit offset counts from the storage's start
        base.add_(1.0)
        outs.append((v.tolist(), w.tolist(), v._version, v._base is base, w._base is base))
    assert outs[0] == outs[1]


def _dense_permuted(m, x, order):
    """x laid out with its dims in memory in ``order`` (outermost first): a fresh tensor, as ``x.t() * 1`` is."""
    return (x.permute(*order) * 1).permute(*[order.index(d) for d in range(x.ndim)])


# as_strided on a tensor whose storage is dense in another dim order (column-major ``x.t() * 1``, a permuted
# 3-d tensor) or on a view into one: torch indexes the storage in memory order
STORAGE_PROGRAMS = {
    "column_major": ((4, 3), lambda m, x: (x.t() * 1).as_strided((2, 3), (1, 2), 1)),
    "column_major_default_offset": ((4, 3), lambda m, x: (x.t() * 1)[1:].as_strided((2, 2), (3, 1))),
    "column_major_inplace": ((4, 3), lambda m, x: (x.t() * 1).as_strided_((2, 3), (1, 2), 1)),
    "column_major_view_inplace": ((4, 3), lambda m, x: (x.t() * 1)[:, 1].as_strided_((3, 2), (1, 3), 2)),
    "permuted_3d": ((2, 3, 4), lambda m, x: _dense_permuted(m, x, (2, 0, 1)).as_strided((4, 3), (1, 4), 3)),
    "permuted_3d_view": ((2, 3, 4), lambda m, x: _dense_permuted(m, x, (1, 2, 0))[1, :, ::2].as_strided((3, 3), (2, 3))),
    "permuted_3d_inplace": ((2, 3, 4), lambda m, x: _dense_permuted(m, x, (2, 1, 0)).as_strided_((5, 2), (2, 7), 4)),
    "size1_dims": ((1, 3, 4), lambda m, x: _dense_permuted(m, x, (2, 0, 1)).as_strided((2, 5), (5, 1), 1)),
}


@pytest.mark.parametrize("name", sorted(STORAGE_PROGRAMS))
def test_as_strided_addresses_a_permuted_dense_storage_as_torch(name):
    shape, fn = STORAGE_PROGRAMS[name]
    a = np.random.default_rng(3).standard_normal(shape)
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = fn(m, x)
        (y * y * m.arange(1.0, y.numel() + 1, dtype=m.float64).reshape(y.shape)).sum().backward()
        outs.append((y.tolist(), x.grad.tolist(), y.grad_fn.name(), y._version, y.stride(), y.storage_offset()))
    assert outs[0] == outs[1]


# writes after the as_strided view of a column-major storage: the base's and the view's regenerated histories
STORAGE_WRITES = {
    "base_written": lambda b, v: b.mul_(2),
    "view_written": lambda b, v: v.mul_(3),
    "view_written_twice": lambda b, v: v.add_(1).mul_(2),
}


@pytest.mark.parametrize("name", sorted(STORAGE_WRITES))
def test_writes_around_an_as_strided_view_of_a_column_major_storage_match_torch(name):
    a = np.random.default_rng(4).standard_normal((4, 3))
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        b = x.t() * 1
        v = b.as_strided((2, 3), (1, 2), 1)
        STORAGE_WRITES[name](b, v)
        ((b * b).sum() + (v * v * v).sum()).backward()
        outs.append((b.tolist(), v.tolist(), b.grad_fn.name().split("::")[-1], v.grad_fn.name(), b._version,
                     v._version, x.grad.tolist()))
    assert outs[0][:-1] == outs[1][:-1]
    np.testing.assert_allclose(outs[0][-1], outs[1][-1], rtol=1e-13)  # (sums in another order: last bits)


# as_strided's gradient with respect to its input (the tensor to differentiate, the output): torch's
# as_strided_backward returns its storage-sized buffer seen with the input's geometry, a view made in the backward's
# grad mode, except for an empty geometry (a plain zero tensor)
GRAD_VIEWS = {
    "fuzz_seed_4307915": ((3, 4), lambda m, x: (x, x.as_strided((2, 2), (1, 2)))),
    "same_geometry": ((3, 4), lambda m, x: (x, x.as_strided((3, 4), (4, 1)))),
    "offsets": ((3, 4), lambda m, x: (lambda v: (v, v.as_strided((2, 3), (1, 2), 1)))(x[1:])),
    "column_major": ((4, 3), lambda m, x: (lambda c: (c, c.as_strided((2, 3), (1, 2), 1)))(x.t() * 1)),
    "overlapping_output": ((3, 4), lambda m, x: (x, x.as_strided((3, 3), (1, 1)))),
    "expanded_output": ((3, 4), lambda m, x: (x, x.as_strided((2, 3), (0, 2)))),
    "expanded_input": ((3,), lambda m, x: (lambda e: (e, e.as_strided((2, 2), (1, 1))))(x.expand(2, 3))),
    "in_place": ((3, 4), lambda m, x: (x, x.clone().as_strided_((2, 3), (2, 3), 1))),
    "empty": ((3, 4), lambda m, x: (x, x.as_strided((0, 2), (1, 1)))),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(GRAD_VIEWS))
def test_as_strided_gradient_is_a_view_of_its_buffer_as_torch(name, create_graph):
    shape, fn = GRAD_VIEWS[name]
    a = np.random.default_rng(5).standard_normal(shape)

    def run(m):
        x = m.tensor(a, requires_grad=True)
        inp, out = fn(m, x)
        g, = m.autograd.grad((out * out).sum(), [inp], create_graph=create_graph)
        seen = (g.tolist(), g._base is not None, g.stride(), g.storage_offset(), g._version,
                None if g._base is None else tuple(g._base.shape), type(g.grad_fn).__name__)
        return seen + (outcome(lambda _: g.sub_(inp).tolist(), m),)  # grad mode on, an operand requiring grad

    ours, theirs = run(framework), run(torch)
    assert ours == theirs


def test_a_leafs_grad_through_as_strided_is_torchs():
    """backward(): the leaf's .grad is the as_strided gradient itself when torch's is (a view), as torch's."""
    a = np.random.default_rng(6).standard_normal((3, 4))
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        (x.as_strided((2, 2), (1, 2)) ** 2).sum().backward()
        outs.append((x.grad.tolist(), x.grad._base is not None, x.grad.stride(), x.grad._version))
    assert outs[0] == outs[1]


# ---- in-place twins and version counters ------------------------------------------------------------

INPLACE = ["square_", "floor_", "ceil_", "round_", "trunc_", "frac_", "log1p_", "expm1_", "log2_", "log10_", "tan_",
           "sinh_", "cosh_", "asin_", "acos_", "atan_", "erf_", "nan_to_num_"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_twins_match_torch(name):
    a = np.random.default_rng(1).uniform(0.1, 0.9, size=(5,))
    results = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = x * 2
        out = getattr(y, name)()
        assert out is y
        out.sum().backward()
        results.append((y._version, y.grad_fn.name(), y.detach().tolist(), x.grad.tolist()))
    (v0, n0, y0, g0), (v1, n1, y1, g1) = results
    assert (v0, n0) == (v1, n1)
    np.testing.assert_allclose(y0, y1, rtol=1e-12)
    np.testing.assert_allclose(g0, g1, rtol=1e-12)


@pytest.mark.parametrize("name", ["square_", "floor_", "log1p_", "erf_"])
def test_inplace_on_a_leaf_that_requires_grad_is_torchs_error(name):
    def run(m):
        getattr(m.ones(3, requires_grad=True), name)()

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours == theirs and ours[0] == "error"


@pytest.mark.parametrize("name", ["log1p_", "erf_", "tan_"])
def test_inplace_float_result_into_an_int_tensor_is_torchs_error(name):
    def run(m):
        getattr(m.tensor([1, 2]), name)()

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours == theirs and ours[0] == "error"


@pytest.mark.parametrize("fn", [
    lambda m, x: m.nn.functional.silu(x, inplace=True),
    lambda m, x: m.nn.functional.elu(x, inplace=True),
    lambda m, x: m.nn.functional.hardtanh(x, inplace=True),
    lambda m, x: m.nn.functional.relu6(x, inplace=True),
    lambda m, x: m.nn.functional.hardswish(x, inplace=True),
    lambda m, x: m.nn.functional.mish(x, inplace=True),
], ids=["silu", "elu", "hardtanh", "relu6", "hardswish", "mish"])
def test_inplace_activations_bump_the_version_and_name_torchs_node(fn):
    results = []
    for m in (framework, torch):
        x = m.tensor(np.linspace(-4, 4, 7), requires_grad=True)
        y = x * 1
        out = fn(m, y)
        out.sum().backward()
        results.append((out is y, y._version, y.grad_fn.name(), np.round(x.grad.tolist(), 10).tolist()))
    assert results[0] == results[1]


# ---- dtypes -----------------------------------------------------------------------------------------

DTYPES = {
    "square_int": lambda m: m.square(m.tensor([1, 2])),
    "square_bool": lambda m: m.square(m.tensor([True, False])),
    "floor_int": lambda m: m.floor(m.tensor([1, 2], dtype=m.int32)),
    "round_int": lambda m: m.round(m.tensor([1, 2])),
    "log1p_int": lambda m: m.log1p(m.tensor([1, 2])),
    "erf_int": lambda m: m.erf(m.tensor([1, 2])),
    "trace_int32": lambda m: m.trace(m.ones(2, 3, dtype=m.int32)),
    "trace_float64": lambda m: m.ones(2, 2, dtype=m.float64).trace(),
    "nonzero": lambda m: m.nonzero(m.tensor([[0.0, 1.0], [2.0, 0.0]])),
    "count_nonzero": lambda m: m.count_nonzero(m.tensor([[0.0, 1.0], [2.0, 0.0]]), dim=0),
    "isclose": lambda m: m.isclose(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.1])),
    "addcmul_int_float": lambda m: m.addcmul(m.tensor([1, 2]), m.tensor([1.0, 2.0]), m.tensor([3, 4])),
    "outer_int_float": lambda m: m.outer(m.tensor([1, 2]), m.tensor([0.5, 1.0, 2.0])),
    "nan_to_num_int": lambda m: m.nan_to_num(m.tensor([1, 2])),
    "repeat_bool": lambda m: m.tensor([True, False]).repeat(2),
    "flip_int": lambda m: m.tensor([1, 2, 3]).flip(0),
    "flip_keyword": lambda m: m.flip(m.tensor([[1, 2], [3, 4]]), dims=[0, 1]),
    "tile_keyword": lambda m: m.tile(m.tensor([1, 2]), dims=(2, 1)),
    "tile_varargs": lambda m: m.tensor([1, 2]).tile(2, 2),
    "repeat_interleave_counts": lambda m: m.repeat_interleave(m.tensor([1, 0, 3])),
    "repeat_interleave_int": lambda m: m.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0),
    "median_int": lambda m: m.median(m.tensor([4, 1, 3, 2])),
    "median_nan": lambda m: m.median(m.tensor([1.0, float("nan"), 0.0])).isnan(),
    "median_dim_nan": lambda m: m.median(m.tensor([[1.0, float("nan"), 0.0], [3.0, 1.0, 2.0]]), 1).indices,
    "take_int": lambda m: m.take(m.tensor([[1, 2], [3, 4]]), m.tensor([3, 0])),
    "cross_int": lambda m: m.cross(m.tensor([1, 0, 0]), m.tensor([0, 1, 0]), dim=0),
}


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_values_and_dtypes_match_torch(name):
    ours, theirs = DTYPES[name](framework), DTYPES[name](torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == theirs.tolist()


def test_nonzero_as_tuple_and_nan_to_num_values():
    a = np.array([[0.0, np.nan, 3.0], [np.inf, -np.inf, 0.0]])
    for f in (lambda m, x: m.nonzero(x, as_tuple=True), lambda m, x: (m.nan_to_num(x), m.nan_to_num(x, 1.0, 2.0, -3.0))):
        ours, theirs = f(framework, framework.tensor(a)), f(torch, torch.tensor(a))
        for o, t in zip(ours, theirs):
            assert o.tolist() == t.tolist()


def test_round_decimals_and_half_to_even():
    a = np.array([0.5, 1.5, 2.5, -0.5, 1.2345, 123.456])
    for d in (0, 2, -1):
        assert_close(framework.round(framework.tensor(a), decimals=d), torch.round(torch.tensor(a), decimals=d))


# ---- errors: torch's class and first sentence -------------------------------------------------------

ERRORS = {
    "flip_repeated_dim": lambda m: m.zeros(2, 3).flip(0, 0),
    "flip_dim_out_of_range": lambda m: m.zeros(2, 3).flip(5),
    "roll_misaligned": lambda m: m.roll(m.zeros(2, 3), (1, 2), (0,)),
    "repeat_too_few": lambda m: m.zeros(2, 3).repeat(2),
    "movedim_repeated": lambda m: m.movedim(m.zeros(2, 3, 4), (0, 0), (1, 2)),
    "movedim_lengths": lambda m: m.movedim(m.zeros(2, 3, 4), (0, 1), (1,)),
    "unflatten_bad_sizes": lambda m: m.zeros(2, 3).unflatten(1, (2, 2)),
    "unflatten_empty": lambda m: m.zeros(2, 3).unflatten(1, ()),
    "diagonal_same_dims": lambda m: m.diagonal(m.zeros(2, 3), 0, 1, 1),
    "diag_3d": lambda m: m.diag(m.zeros(2, 3, 4)),
    "trace_3d": lambda m: m.trace(m.zeros(2, 3, 4)),
    "outer_2d": lambda m: m.outer(m.zeros(2, 3), m.zeros(3)),
    "broadcast_to_bad": lambda m: m.broadcast_to(m.zeros(3), (2, 4)),
    "floor_bool": lambda m: m.floor(m.tensor([True])),
    "frac_int": lambda m: m.frac(m.tensor([1, 2])),
    "isclose_dtypes": lambda m: m.isclose(m.zeros(2), m.zeros(2, dtype=m.float64)),
    "isclose_number": lambda m: m.isclose(m.zeros(2), 1.0),
    "addcmul_number": lambda m: m.addcmul(m.zeros(2), 1.0, m.zeros(2)),
    "lerp_dtypes": lambda m: m.lerp(m.zeros(2), m.zeros(2, dtype=m.float64), 0.5),
    "addmm_3d": lambda m: m.addmm(m.zeros(2, 3), m.zeros(2, 2, 2), m.zeros(2, 3)),
    "addmm_shapes": lambda m: m.addmm(m.zeros(2, 3), m.zeros(2, 2), m.zeros(3, 3)),
    "addmm_bias": lambda m: m.addmm(m.zeros(4, 3), m.zeros(2, 2), m.zeros(2, 3)),
    "prelu_channels": lambda m: m.nn.functional.prelu(m.zeros(2, 4), m.ones(3)),
    "conv1d_4d": lambda m: m.nn.functional.conv1d(m.zeros(2, 3, 4, 5), m.zeros(4, 3, 2)),
    "group_norm_groups": lambda m: m.nn.functional.group_norm(m.zeros(2, 3, 4), 2),
    "hardtanh_bounds": lambda m: m.nn.Hardtanh(1.0, -1.0),
    "hardtanh_functional_bounds": lambda m: m.nn.functional.hardtanh(m.zeros(2), 1.0, -1.0),
    "group_norm_module": lambda m: m.nn.GroupNorm(2, 3),
    "parameter_list_index": lambda m: m.nn.ParameterList([m.nn.Parameter(m.zeros(1))])[3],
    "cross_ndim": lambda m: m.cross(m.zeros(3, 3), m.zeros(3), dim=0),
    "cross_length": lambda m: m.cross(m.zeros(3, 4), m.zeros(3, 4), dim=1),
    "cross_dtypes": lambda m: m.cross(m.zeros(3), m.zeros(3, dtype=m.float64), dim=0),
    "take_float_index": lambda m: m.take(m.zeros(3), m.tensor([0.0])),
    "take_out_of_range": lambda m: m.take(m.zeros(2, 4), m.tensor([9])),
    "repeat_interleave_sizes": lambda m: m.repeat_interleave(m.zeros(3), m.tensor([1, 2])),
    "repeat_interleave_negative": lambda m: m.repeat_interleave(m.zeros(3), -1),
    "bernoulli_int": lambda m: m.bernoulli(m.zeros(3, dtype=m.int64)),
    "as_strided_out_of_bounds": lambda m: m.zeros(3, 4).as_strided((3, 3), (4, 2)),
    "as_strided_lengths": lambda m: m.zeros(3, 4).as_strided((3, 3), (4,)),
    "as_strided_column_major_out_of_bounds": lambda m: (m.zeros(4, 3).t() * 1).as_strided((3, 3), (4, 2)),
    "as_strided__column_major_view_out_of_bounds": lambda m: (m.zeros(4, 3).t() * 1)[1].as_strided_((3,), (6,)),
    "mode_empty_dim": lambda m: m.mode(m.zeros(2, 0), 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    fn = ERRORS[name]
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert theirs[0] == "error"
    assert ours == theirs


# ---- modules: same weights, same outputs, gradients and node names ---------------------------------

def _same_weights(ours, theirs):
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname and tuple(p.shape) == tuple(tp.shape)
        with framework.no_grad():
            p.copy_(framework.tensor(tp.detach().numpy()))


MODULES = {
    "SiLU": (lambda m: m.nn.SiLU(), (2, 5)),
    "ELU": (lambda m: m.nn.ELU(0.5), (2, 5)),
    "Softplus": (lambda m: m.nn.Softplus(beta=2.0, threshold=3.0), (2, 5)),
    "Hardtanh": (lambda m: m.nn.Hardtanh(-0.5, 0.7), (2, 5)),
    "ReLU6": (lambda m: m.nn.ReLU6(), (2, 5)),
    "Mish": (lambda m: m.nn.Mish(), (2, 5)),
    "PReLU": (lambda m: m.nn.PReLU(3, init=0.1), (2, 3, 4)),
    "Hardswish": (lambda m: m.nn.Hardswish(), (2, 5)),
    "Hardsigmoid": (lambda m: m.nn.Hardsigmoid(), (2, 5)),
    "LogSigmoid": (lambda m: m.nn.LogSigmoid(), (2, 5)),
    "Softmin": (lambda m: m.nn.Softmin(dim=1), (2, 5)),
    "Softsign": (lambda m: m.nn.Softsign(), (2, 5)),
    "Unflatten": (lambda m: m.nn.Unflatten(1, (2, 3)), (2, 6)),
    "ZeroPad2d": (lambda m: m.nn.ZeroPad2d((1, 2, 0, 1)), (1, 2, 3, 3)),
    "ConstantPad2d": (lambda m: m.nn.ConstantPad2d(1, 0.5), (1, 2, 3, 3)),
    "GroupNorm": (lambda m: m.nn.GroupNorm(2, 4), (2, 4, 3)),
    "GroupNorm_no_affine": (lambda m: m.nn.GroupNorm(4, 4, affine=False), (2, 4, 5)),
    "Conv1d": (lambda m: m.nn.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9)),
    "Conv1d_same": (lambda m: m.nn.Conv1d(2, 2, 3, padding="same", bias=False), (1, 2, 7)),
    "MaxPool1d": (lambda m: m.nn.MaxPool1d(3, stride=2, padding=1), (2, 3, 8)),
    "AvgPool1d": (lambda m: m.nn.AvgPool1d(2), (2, 3, 8)),
    "AdaptiveAvgPool2d": (lambda m: m.nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    "AdaptiveAvgPool2d_1": (lambda m: m.nn.AdaptiveAvgPool2d(1), (2, 3, 4, 4)),
    "Upsample": (lambda m: m.nn.Upsample(scale_factor=2), (1, 2, 3, 3)),
    "Upsample_bilinear": (lambda m: m.nn.Upsample(size=(5, 4), mode="bilinear"), (1, 2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_match_torch(name):
    make, shape = MODULES[name]
    ours, theirs = make(framework), make(torch)
    framework.manual_seed(0)
    ours = ours.double()
    theirs = theirs.double()
    _same_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    x, tx = _pair(shape)
    out, tout = ours(x), theirs(tx)
    g = np.random.default_rng(2).standard_normal(tuple(tout.shape))
    out.backward(framework.tensor(g))
    tout.backward(torch.tensor(g))
    assert_close(out.detach(), tout.detach().numpy(), rtol=1e-10, atol=1e-10)
    assert_close(x.grad, tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, tp.grad.numpy(), rtol=1e-10, atol=1e-10)
    assert out.grad_fn.name() == tout.grad_fn.name()


def test_module_default_parameters_match_torch():
    assert framework.nn.PReLU(4).weight.tolist() == torch.nn.PReLU(4).weight.tolist()
    gn, tgn = framework.nn.GroupNorm(2, 6), torch.nn.GroupNorm(2, 6)
    assert [n for n, _ in gn.named_parameters()] == [n for n, _ in tgn.named_parameters()]
    assert gn.weight.tolist() == tgn.weight.tolist() and gn.bias.tolist() == tgn.bias.tolist()
    conv, tconv = framework.nn.Conv1d(3, 5, 4), torch.nn.Conv1d(3, 5, 4)
    assert tuple(conv.weight.shape) == tuple(tconv.weight.shape) and tuple(conv.bias.shape) == (5,)
    bound = 1 / np.sqrt(3 * 4)  # torch's kaiming_uniform(a=sqrt(5)) bound for fan_in = 12
    assert float(conv.weight.abs().max()) <= bound


def test_parameter_list_and_dict_register_their_parameters():
    for m in (framework, torch):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.plist = m.nn.ParameterList([m.nn.Parameter(m.ones(2)), m.zeros(3)])  # a tensor is wrapped
                self.pdict = m.nn.ParameterDict({"scale": m.nn.Parameter(m.ones(1))})
                self.pdict["shift"] = m.zeros(1)
                self.plist.append(m.ones(1))

            def forward(self, x):
                return (x * self.plist[0]).sum() + self.plist[1].sum() * self.pdict["scale"] + self.pdict["shift"]

        net = Net()
        names = [n for n, _ in net.named_parameters()]
        assert names == ["plist.0", "plist.1", "plist.2", "pdict.scale", "pdict.shift"]
        assert list(net.state_dict().keys()) == names
        assert all(type(p).__name__ == "Parameter" for p in net.plist)
        assert len(net.plist) == 3 and list(net.pdict.keys()) == ["scale", "shift"] and "scale" in net.pdict
        opt = m.optim.SGD(net.parameters(), lr=0.5)
        net(m.ones(2)).sum().backward()
        opt.step()
        assert net.plist[0].tolist() == [0.5, 0.5] and net.pdict["shift"].tolist() == [-0.5]


def test_parameter_list_and_dict_reprs_match_torch():
    def build(m):
        return (m.nn.ParameterList([m.nn.Parameter(m.zeros(2)), m.ones(3, 4)]),
                m.nn.ParameterDict({"a": m.nn.Parameter(m.zeros(2))}))

    for ours, theirs in zip(build(framework), build(torch)):
        assert repr(ours).replace(" (cuda:0)", "") == repr(theirs).replace("torch.", "framework.")


def test_unique_matches_torch():
    a = [[3, 1, 2], [3, 1, 1]]
    for kwargs in ({}, {"return_inverse": True}, {"return_counts": True},
                   {"return_inverse": True, "return_counts": True}, {"dim": 0}, {"dim": 1, "return_inverse": True}):
        ours, theirs = framework.unique(framework.tensor(a), **kwargs), torch.unique(torch.tensor(a), **kwargs)
        ours, theirs = (ours, theirs) if isinstance(theirs, tuple) else ((ours,), (theirs,))
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert o.tolist() == t.tolist() and str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert framework.tensor([2.0, 1.0, 2.0]).unique().tolist() == [1.0, 2.0]


def test_bernoulli_draws_zeros_and_ones_with_the_given_probability():
    framework.manual_seed(0)
    p = framework.full((20000,), 0.3, requires_grad=True)
    draw = framework.bernoulli(p)
    assert draw.dtype == framework.float32 and draw.grad_fn.name() == "BernoulliBackward0"
    assert set(draw.tolist()) == {0.0, 1.0}
    assert abs(draw.mean().item() - 0.3) < 0.02
    draw.sum().backward()
    assert p.grad.abs().sum().item() == 0.0
    assert set(p.detach().bernoulli(0.0).tolist()) == {0.0} and set(p.detach().bernoulli(1.0).tolist()) == {1.0}
    framework.manual_seed(1)
    first = framework.bernoulli(framework.full((50,), 0.5)).tolist()
    framework.manual_seed(1)
    assert framework.bernoulli(framework.full((50,), 0.5)).tolist() == first  # seeded


def test_cross_without_dim_warns_as_torch_and_uses_the_first_size_3_dim():
    a, b = np.random.default_rng(0).standard_normal((2, 4, 3, 3))
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        ours = framework.cross(framework.tensor(a), framework.tensor(b))
    with pytest.warns(UserWarning):
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    assert_close(ours, theirs.numpy())


NEW_MODULES = ["SiLU", "ELU", "Softplus", "Hardtanh", "ReLU6", "Mish", "PReLU", "Hardswish", "Hardsigmoid", "LogSigmoid",
               "Softmin", "Softsign", "Unflatten", "ZeroPad2d", "ConstantPad2d", "ParameterList", "ParameterDict",
               "GroupNorm", "Conv1d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d", "Upsample"]


@pytest.mark.parametrize("name", NEW_MODULES)
def test_new_modules_sit_at_torchs_module_paths(name):
    import importlib

    path = getattr(torch.nn, name).__module__.replace("torch.", "framework.")  # e.g. framework.nn.modules.padding
    assert getattr(importlib.import_module(path), name) is getattr(framework.nn, name)
    assert getattr(framework.nn.modules, name) is getattr(framework.nn, name)


FUNCTIONAL = ["silu", "elu", "softplus", "hardtanh", "relu6", "mish", "prelu", "hardswish", "hardsigmoid", "logsigmoid",
              "softmin", "softsign", "conv1d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool2d", "group_norm",
              "upsample", "elu_", "hardtanh_"]
TOP_LEVEL = ["absolute", "acos", "addcdiv", "addcmul", "addmm", "bernoulli", "broadcast_to", "ceil", "cosh",
             "count_nonzero", "cross", "detach", "diag", "diagonal", "erf", "expm1", "flip", "floor", "frac", "isclose",
             "lerp", "log10", "log1p", "log2", "logical_and", "logical_or", "median", "movedim", "nan_to_num",
             "nonzero", "outer", "repeat_interleave", "roll", "round", "sinh", "square", "swapaxes", "take", "tan",
             "tile", "trace", "true_divide", "trunc", "unflatten", "unique", "square_", "floor_", "ceil_", "round_",
             "trunc_", "frac_", "log1p_", "expm1_", "asin", "atan", "moveaxis", "swapdims", "fliplr", "flipud"]
METHODS = ["absolute", "acos", "addcdiv", "addcmul", "addmm", "bernoulli", "broadcast_to", "cosh", "count_nonzero",
           "cross", "diag", "diagonal", "erf", "expm1", "flip", "frac", "isclose", "lerp", "log10", "log1p", "log2",
           "median", "movedim", "nan_to_num", "nonzero", "outer", "repeat", "repeat_interleave", "roll", "sinh",
           "square", "take", "tan", "tile", "trace", "unflatten", "unique", "square_", "floor_", "log1p_", "erf_",
           "nan_to_num_", "swapdims", "moveaxis"]


def test_the_new_names_exist_where_torch_has_them():
    t = framework.zeros(2)
    for name in FUNCTIONAL:
        assert hasattr(torch.nn.functional, name) and hasattr(framework.nn.functional, name), name
    for name in TOP_LEVEL:
        assert hasattr(torch, name) and hasattr(framework, name), name
    for name in METHODS:
        assert hasattr(torch.zeros(2), name) and hasattr(t, name), name
