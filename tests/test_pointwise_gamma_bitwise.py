"""The gamma family, torch.special's functions, clamp with tensor bounds, bitwise/integer ops, in-place comparisons
and the other elementwise functions of ops/pointwise/gamma.py, clamp_more.py and pointwise_extra.py: what the op-table
rows (values, gradients, float64 gradchecks) cannot show — dtypes, in-place forms and their nodes, operators,
errors (class and first sentence as torch's).
"""
import numpy as np
import pytest

import framework
from scenario import error_of
from framework.testing import assert_close

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()

INTS = [np.array([5, -3, 0, 12, -128, 7]), np.array([1, 2, 3, 0, 5, 63])]


def _both(fn, *arrays):
    """fn run on framework and torch tensors made from the same arrays: (ours, theirs) as NumPy values."""
    ours = fn(framework, *[framework.tensor(a) for a in arrays])
    theirs = fn(torch, *[torch.tensor(a) for a in arrays])
    return ours, theirs


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "bool"])
@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "bitwise_left_shift",
                                "bitwise_right_shift"])
def test_integer_binary_ops_match_torch(op, dtype):
    a, b = (x.astype(dtype) if dtype != "bool" else x > 2 for x in INTS)
    if dtype == "uint8":
        a = np.abs(INTS[0]).astype(dtype)
    if dtype == "bool" and op in ("gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift"):
        ours = error_of(lambda: getattr(framework, op)(framework.tensor(a), framework.tensor(b)))
        theirs = error_of(lambda: getattr(torch, op)(torch.tensor(a), torch.tensor(b)))
        assert ours == theirs and ours[0] != "ok"
        return
    ours, theirs = _both(lambda m, x, y: getattr(m, op)(x, y), a, b)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(_np(ours), _np(theirs))


def test_shifts_past_the_width_and_of_negatives_match_torch():
    a = np.array([1, -1, -8, 8, 3])
    for s in ([0, 63, 64, 70, 2], [1, 1, 2, 70, 65]):
        for op in ("bitwise_left_shift", "bitwise_right_shift"):
            ours, theirs = _both(lambda m, x, y: getattr(m, op)(x, y), a, np.array(s))
            np.testing.assert_array_equal(_np(ours), _np(theirs))


def test_operators_reflected_and_in_place_match_torch():
    exprs = [lambda m, x, y: x & y, lambda m, x, y: x | 3, lambda m, x, y: 6 ^ x, lambda m, x, y: x << 2,
             lambda m, x, y: 1 << y, lambda m, x, y: x >> y, lambda m, x, y: ~x, lambda m, x, y: 5 & x,
             lambda m, x, y: ~(x > 0), lambda m, x, y: x.bitwise_not()]
    for e in exprs:
        ours, theirs = _both(e, *INTS)
        np.testing.assert_array_equal(_np(ours), _np(theirs))
    for m in (framework, torch):
        x = m.tensor(INTS[0].copy())
        v = x._version
        x &= m.tensor(INTS[1])
        x |= 8
        x <<= 1
        x.gcd_(m.tensor([4, 4, 4, 4, 4, 4]))
        assert x._version == v + 4
        if m is framework:
            ours = x.tolist()
        else:
            assert ours == x.tolist()


def test_integer_ops_refuse_floating_tensors_with_torchs_errors():
    f = np.array([1.5, 2.0])
    for fn in (lambda m, x: m.bitwise_and(x, x), lambda m, x: m.gcd(x, x), lambda m, x: x << 1,
               lambda m, x: m.bitwise_not(x), lambda m, x: m.lcm(m.tensor([1, 2]), x),
               lambda m, x: m.bitwise_or(m.tensor([1, 2]), 1.5), lambda m, x: ~x, lambda m, x: +(x > 0)):
        ours = error_of(lambda: fn(framework, framework.tensor(f)))
        theirs = error_of(lambda: fn(torch, torch.tensor(f)))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)


def test_invert_of_an_integer_tensor_is_bitwise_not():
    """~ on an int tensor was logical_not (all False for nonzero values); torch's is the bitwise complement."""
    assert (~framework.tensor([5, 0, -1])).tolist() == [-6, -1, 0]


@pytest.mark.parametrize("fn", [
    lambda m, x, lo, hi: m.clamp(x, lo, hi), lambda m, x, lo, hi: x.clamp(min=lo),
    lambda m, x, lo, hi: x.clone().clamp_(lo, hi), lambda m, x, lo, hi: x.clone().clamp_(max=hi),
    lambda m, x, lo, hi: x.clone().clamp_min_(lo), lambda m, x, lo, hi: x.clone().clamp_max_(hi),
    lambda m, x, lo, hi: x.clone().clamp_min_(0.1), lambda m, x, lo, hi: x.clone().clamp_max_(0.1),
    lambda m, x, lo, hi: m.clip(x, max=hi)])
def test_clamp_with_tensor_bounds_gives_the_bounds_their_gradients_as_torch(fn):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal((4,)) - 0.5, rng.standard_normal((3, 1)) + 0.5]
    outs = []
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in arrays]
        y = fn(m, *ts)
        y.backward(m.tensor(np.arange(12.0).reshape(3, 4)))
        outs.append((y.grad_fn.name(), _np(y), [None if t.grad is None else _np(t.grad) for t in ts]))
    assert outs[0][0] == outs[1][0]
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    for g, h in zip(outs[0][2], outs[1][2]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_array_equal(g, h)


def test_clamp_errors_match_torch():
    cases = [lambda m, x: m.clamp(x, min=m.zeros(3), max=1.0),
             lambda m, x: x.clone().clamp_(min=m.zeros(3, 1)),
             lambda m, x: m.clamp(x),
             lambda m, x: m.tensor([1, 2]).clamp_(min=m.tensor([0.5, 0.5]))]
    for fn in cases:
        ours = error_of(lambda: fn(framework, framework.zeros(3)))
        theirs = error_of(lambda: fn(torch, torch.zeros(3)))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)


@pytest.mark.parametrize("op", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_equal_", "not_equal_"])
@pytest.mark.parametrize("tensor_other", [False, True])
def test_in_place_comparisons_keep_the_dtype_and_record_torchs_node(op, tensor_other):
    a = np.array([0.5, -1.0, 2.0, 0.0])
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = x * 2
        v = y._version
        other = m.tensor([1.0, -2.0, 4.0, 1.0]) if tensor_other else 1.0
        r = getattr(y, op)(other)
        (r * m.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        outs.append((r is y, y._version - v, str(y.dtype).split(".")[-1], y.grad_fn.name(), y.tolist(),
                     x.grad.tolist()))
    assert outs[0] == outs[1]
    assert outs[0][4] != (a * 2).tolist()  # (the comparison did write)


def test_in_place_comparison_of_a_leaf_and_logical_in_place_forms_match_torch():
    ours = error_of(lambda: framework.ones(2, requires_grad=True).eq_(1))
    theirs = error_of(lambda: torch.ones(2, requires_grad=True).eq_(1))
    assert ours == theirs and ours[0] != "ok"
    outs = []
    for m in (framework, torch):
        y = m.tensor([0.0, 1.0, 2.0], requires_grad=True).clone()
        v = y._version
        y.logical_and_(m.tensor([1.0, 1.0, 0.0]))
        y.logical_not_()
        outs.append((y.tolist(), y._version - v, y.grad_fn.name(), str(y.dtype).split(".")[-1]))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("name", ["lgamma_", "digamma_", "i0_", "sinc_", "deg2rad_", "rad2deg_", "polygamma_",
                                  "xlogy_", "float_power_", "clamp_min_"])
def test_in_place_twins_match_torch(name):
    args = {"polygamma_": (1,), "xlogy_": (1.5,), "float_power_": (2,), "clamp_min_": (0.7,)}.get(name, ())
    a = np.array([0.3, 1.7, 2.5, 0.9])
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        y = x * 1
        v = y._version
        r = getattr(y, name)(*args)
        r.backward(m.tensor([1.0, -2.0, 0.5, 3.0], dtype=r.dtype))
        outs.append((r is y, y._version - v, y.grad_fn.name(), _np(y), _np(x.grad)))
    assert outs[0][:3] == outs[1][:3]
    assert_close(outs[0][3], outs[1][3], rtol=1e-12, atol=1e-12)
    assert_close(outs[0][4], outs[1][4], rtol=1e-12, atol=1e-12)


def test_in_place_twins_refuse_integer_tensors_and_float32_float_power_as_torch():
    for fn in (lambda m: m.tensor([1, 2]).lgamma_(), lambda m: m.tensor([1, 2]).deg2rad_(),
               lambda m: m.tensor([1.0, 2.0]).float_power_(2), lambda m: m.polygamma(-1, m.ones(2)),
               lambda m: m.mvlgamma(m.ones(2), 0)):
        ours, theirs = error_of(lambda: fn(framework)), error_of(lambda: fn(torch))
        assert ours == theirs and ours[0] != "ok", (ours, theirs)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.lgamma(x), lambda m, x: m.digamma(x), lambda m, x: m.i0(x), lambda m, x: m.sinc(x),
    lambda m, x: m.deg2rad(x), lambda m, x: m.float_power(x, 2), lambda m, x: m.angle(x), lambda m, x: m.sgn(x),
    lambda m, x: m.signbit(x), lambda m, x: m.isposinf(x), lambda m, x: m.isneginf(x), lambda m, x: m.isreal(x),
    lambda m, x: m.xlogy(x, 2), lambda m, x: m.special.entr(x), lambda m, x: m.special.i1(x),
    lambda m, x: m.polygamma(1, x), lambda m, x: m.fmax(x, x.flip(0))])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float16"])
def test_result_dtypes_of_integer_bool_and_half_inputs_match_torch(fn, dtype):
    a = np.array([1, 0, 3, 2]).astype(dtype)
    ours = error_of(lambda: fn(framework, framework.tensor(a)))
    theirs = error_of(lambda: fn(torch, torch.tensor(a)))
    if ours[0] != "ok" or theirs[0] != "ok":
        assert ours == theirs
        return
    o, t = fn(framework, framework.tensor(a)), fn(torch, torch.tensor(a))
    assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert_close(_np(o.float()), _np(t.float()), rtol=2e-3, atol=2e-3)


def test_positive_is_the_tensor_itself_and_refuses_bool():
    x = framework.randn(3)
    assert framework.positive(x) is x and (+x) is x
    for m in (framework, torch):
        assert error_of(lambda: m.positive(m.tensor([True]))) == \
            ("RuntimeError", "The `+` operator, on a bool tensor is not supported.")


def test_special_values_of_the_gamma_family_match_torch():
    v = np.array([0.0, -0.0, -1.0, -2.5, 1e-310, np.inf, -np.inf, np.nan, 3.0, 0.5, 11.0, 10.0, -0.5])
    for fn in (lambda m, x: m.lgamma(x), lambda m, x: m.digamma(x), lambda m, x: m.polygamma(1, x),
               lambda m, x: m.special.gammaln(x)):
        ours, theirs = _both(fn, v)
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-14, atol=0)
        real = ~np.isnan(_np(theirs))  # (a NaN's sign bit means nothing)
        assert (np.signbit(_np(ours)) == np.signbit(_np(theirs)))[real].all()


@pytest.mark.explicit_device  # framework.compile records NumPy arrays (a CuPy step runs eagerly)
def test_special_functions_replay_under_compile_bit_for_bit():
    """SciPy's kernels are ufuncs (and lgamma an object ufunc), so framework.compile records and replays them."""
    w = framework.tensor([0.5, 1.5, 2.5], requires_grad=True)
    opt = framework.optim.SGD([w], lr=0.01)

    def step(x):
        opt.zero_grad()
        loss = (framework.lgamma(w + x) + framework.digamma(w) + framework.special.i0e(w) * framework.xlogy(w, x)
                + framework.special.zeta(framework.full_like(w, 2.5), w)).sum()
        loss.backward()
        opt.step()
        return loss

    compiled = framework.compile(step)
    x = framework.tensor([1.0, 2.0, 3.0])
    eager_w = w.detach().clone()
    losses = [compiled(x).item() for _ in range(4)]
    assert compiled.replays >= 2  # (the first call captures; the next may capture once more as grads now exist)
    w2 = framework.tensor(_np(eager_w), requires_grad=True)
    opt2 = framework.optim.SGD([w2], lr=0.01)
    for i in range(4):
        opt2.zero_grad()
        loss = (framework.lgamma(w2 + x) + framework.digamma(w2) + framework.special.i0e(w2) * framework.xlogy(w2, x)
                + framework.special.zeta(framework.full_like(w2, 2.5), w2)).sum()
        loss.backward()
        opt2.step()
        assert loss.item() == losses[i]
    assert np.array_equal(_np(w), _np(w2))


@pytest.mark.parametrize("args", [dict(p="nuc"), dict(p="fro"), dict(p="fro", dim=(0, 1)), dict(p=1, dim=1),
                                  dict(p="nuc", keepdim=True), dict(), dict(p=3)])
def test_torch_norm_dispatches_matrix_norms_as_torch(args):
    a = np.random.default_rng(0).standard_normal((3, 4))
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        n = m.norm(x, **args)
        n.sum().backward()
        outs.append((n.grad_fn.name(), tuple(n.shape), _np(n), _np(x.grad), _np(x.norm(**args))))
    assert outs[0][:2] == outs[1][:2]
    for o, t in zip(outs[0][2:], outs[1][2:]):
        assert_close(o, t, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["inv", "cholesky", "solve", "qr_q", "qr_r", "svd_u", "svd_vh", "eigh_v"])
def test_linalg_results_have_torchs_column_major_layout(name):
    """LAPACK leaves its results column-major and torch returns them so: a later .view() fails (or works) and
    reshape records ReshapeAliasBackward0 exactly as torch's (found by the fuzzer)."""
    a = np.random.default_rng(0).standard_normal((2, 3, 3))
    spd = a @ np.swapaxes(a, 1, 2) + 3 * np.eye(3)
    pick = {"inv": lambda m, x: m.linalg.inv(x), "cholesky": lambda m, x: m.linalg.cholesky(x),
            "solve": lambda m, x: m.linalg.solve(x, x), "qr_q": lambda m, x: m.linalg.qr(x)[0],
            "qr_r": lambda m, x: m.linalg.qr(x)[1], "svd_u": lambda m, x: m.linalg.svd(x)[0],
            "svd_vh": lambda m, x: m.linalg.svd(x)[2], "eigh_v": lambda m, x: m.linalg.eigh(x)[1]}[name]
    outs = []
    for m in (framework, torch):
        y = pick(m, m.tensor(spd, requires_grad=True))
        try:
            y.view(6, 3)
            viewed = "ok"
        except RuntimeError as e:
            viewed = str(e)
        outs.append((y.stride(), viewed, y.unsqueeze(0).reshape(2, 3, 3).grad_fn.name()))
    assert outs[0] == outs[1]


def test_norm_and_dist_second_derivatives_at_zero_are_torchs_nan():
    a = np.array([[-1.04, -1.78, 0.38], [-0.57, 0.57, 1.02]])
    outs = []
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        rows = []
        for fn in (lambda t: t.dist(t, 3), lambda t: t.dist(t), lambda t: (t - t).norm(p=1.5),
                   lambda t: t.norm(p=0.5), lambda t: t.norm(p=3, dim=1)):
            d = fn(x)
            (g,) = m.autograd.grad(d.sum(), x, create_graph=True)
            (h,) = m.autograd.grad(g.sum(), x, allow_unused=True)
            rows.append((_np(g).tolist(), None if h is None else np.isnan(_np(h)).tolist()))
        outs.append(rows)
    assert outs[0] == outs[1]


def test_rms_norm_with_a_weight_of_another_dtype_casts_back_with_torchs_warning():
    outs = []
    # torch warns once per process (TORCH_WARN_ONCE): an earlier test may have used its warning up
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        for m in (framework, torch):
            x = m.tensor(np.arange(8.0).reshape(2, 4), dtype=m.float32, requires_grad=True)
            w = m.tensor([0.5, 1.0, 1.5, 2.0], dtype=m.float64)
            with pytest.warns(UserWarning, match="Mismatch dtype between input and weight"):
                y = m.nn.functional.rms_norm(x, (4,), w)
            outs.append((str(y.dtype).split(".")[-1], y.grad_fn.name(), _np(y).round(6).tolist()))
    finally:
        torch.set_warn_always(warn_always)
    assert outs[0] == outs[1]


def test_view_of_a_no_grad_view_names_the_overload_as_torch():
    errors = []
    for m in (framework, torch):
        y = m.ones(3, 1, requires_grad=True) * 1
        with m.no_grad():
            v = y.view(3, 1)
        with pytest.raises(RuntimeError) as e:
            v.squeeze(1).mul_(2)
        errors.append(str(e.value).split(".")[0])
    assert errors[0] == errors[1] == "Output 0 of Squeeze1 is a view of a view which was created in no_grad mode and " \
                                     "is being modified inplace with grad mode enabled"
