"""More maths (nansum, nanmean, logaddexp(2), logcumsumexp, heaviside, copysign, ldexp, frexp, std_mean, var_mean,
quantile, nanquantile, nanmedian, renorm, trapezoid, cumulative_trapezoid, clamp_min): values, gradients and
grad_fn names equal torch's, errors word for word; float64 gradchecks that need no torch."""
import numpy as np
import pytest

import framework
from framework.testing import assert_close, gradcheck, gradgradcheck

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 6))
Y = rng.standard_normal((4, 6))
XN = X.copy()
XN[0, 1] = XN[2, 3] = XN[2, 5] = np.nan  # NaNs for the nan* reductions
XN[3] = np.nan  # a row of NaN only
XS = np.linspace(0.0, 2.0, 6) ** 2  # sample points
BIG = X * 30  # logcumsumexp over a wide range


def _t(m, a):
    return m.tensor(a)


# name -> (fn(m, *tensors) returning one tensor, arrays that require grad)
CASES = {
    "nansum": (lambda m, x: m.nansum(x), [XN]),
    "nansum_dim": (lambda m, x: x.nansum(1), [XN]),
    "nansum_dims_keepdim": (lambda m, x: m.nansum(x, (0, 1), keepdim=True), [XN]),
    "nanmean": (lambda m, x: m.nanmean(x), [XN]),
    "nanmean_dim": (lambda m, x: x[:3].nanmean(1, keepdim=True), [XN]),
    "logaddexp": (lambda m, x, y: m.logaddexp(x, y), [X, Y]),
    "logaddexp_broadcast": (lambda m, x, y: m.logaddexp(x, y[0]), [X, Y]),
    "logaddexp2": (lambda m, x, y: x.logaddexp2(y), [X, Y]),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, 1), [X]),
    "logcumsumexp_dim0_wide": (lambda m, x: x.logcumsumexp(0), [BIG]),
    "copysign": (lambda m, x, y: m.copysign(x, y), [X, Y]),
    "copysign_scalar": (lambda m, x: x.copysign(-1.0), [X]),
    # an integer exponent: torch's derivative is pow(2, e) in integers, 0 for e < 0, and so is ours
    "ldexp": (lambda m, x: m.ldexp(x, _t(m, np.array([1, -2, 0, 3, 1, 2]))), [X]),
    "ldexp_float_exponent": (lambda m, x, e: m.ldexp(x, e), [X, Y]),
    "frexp": (lambda m, x: m.frexp(x * 3).mantissa, [X]),
    "std_mean_std": (lambda m, x: m.std_mean(x, 1)[0], [X]),
    "std_mean_mean": (lambda m, x: m.std_mean(x, 1, keepdim=True)[1], [X]),
    "std_mean_both": (lambda m, x: sum(m.std_mean(x, (0, 1), correction=0)), [X]),
    "var_mean_var": (lambda m, x: m.var_mean(x, 0, correction=2)[0], [X]),
    "var_mean_all": (lambda m, x: m.var_mean(x)[1] * m.var_mean(x, False)[0], [X]),
    "var_mean_both_keepdim": (lambda m, x: sum(m.var_mean(x, 1, True, True)), [X]),
    "quantile": (lambda m, x: m.quantile(x, 0.3), [X]),
    "quantile_dim": (lambda m, x: x.quantile(0.7, dim=1), [X]),
    "quantile_q_tensor": (lambda m, x: m.quantile(x, m.tensor([0.1, 0.5, 1.0], dtype=x.dtype), dim=0,
                                                  keepdim=True), [X]),
    "quantile_lower": (lambda m, x: m.quantile(x, 0.3, dim=1, interpolation="lower"), [X]),
    "quantile_higher": (lambda m, x: m.quantile(x, 0.3, dim=1, interpolation="higher"), [X]),
    "quantile_nearest": (lambda m, x: m.quantile(x, 0.5, dim=-1, interpolation="nearest"), [X]),
    "quantile_midpoint": (lambda m, x: m.quantile(x, m.tensor([0.25, 0.6], dtype=x.dtype), interpolation="midpoint"),
                          [X]),
    "nanquantile": (lambda m, x: m.nanquantile(x, 0.4, dim=1), [XN]),
    "nanquantile_all": (lambda m, x: x.nanquantile(m.tensor([0.2, 0.9], dtype=x.dtype)), [XN]),
    "nanmedian": (lambda m, x: m.nanmedian(x), [XN]),
    # (not the all-NaN row: which NaN's index torch returns there is up to its unstable selection)
    "nanmedian_dim": (lambda m, x: x[:3].nanmedian(1).values, [XN]),
    "nanmedian_dim_keepdim": (lambda m, x: m.nanmedian(x, 0, keepdim=True)[0], [XN]),
    "renorm": (lambda m, x: m.renorm(x, 2, 0, 2.0), [X]),
    "renorm_p1_dim1": (lambda m, x: x.renorm(1, 1, 1.5), [X]),
    "trapezoid": (lambda m, y: m.trapezoid(y), [X]),
    "trapezoid_dx": (lambda m, y: m.trapezoid(y, dx=0.5, dim=0), [X]),
    "trapezoid_x": (lambda m, y: m.trapezoid(y, _t(m, XS)), [X]),
    "trapezoid_x_nd": (lambda m, y, x: m.trapezoid(y, x, dim=0), [X, Y]),
    "cumulative_trapezoid": (lambda m, y: m.cumulative_trapezoid(y), [X]),
    "cumulative_trapezoid_dx": (lambda m, y: m.cumulative_trapezoid(y, dx=2.0, dim=0), [X]),
    "cumulative_trapezoid_x": (lambda m, y: m.cumulative_trapezoid(y, _t(m, XS)), [X]),
    "clamp_min": (lambda m, x: m.clamp_min(x, 0.1), [X]),
    "clamp_min_method": (lambda m, x: x.clamp_min(-0.2), [X]),
    # in-place twins, on a non-leaf copy
    "copysign_": (lambda m, x, y: (x * 1).copysign_(y), [X, Y]),
    "copysign_scalar_": (lambda m, x: (x * 1).copysign_(-1.0), [X]),
    "ldexp_": (lambda m, x, e: (x * 1).ldexp_(e), [X, Y]),
    "clamp_min_": (lambda m, x: (x * 1).clamp_min_(0.1) * x, [X]),
    "renorm_": (lambda m, x: (x * 1).renorm_(2, 1, 1.0), [X]),
}


def _run(m, name, dtype):
    fn, arrays = CASES[name]
    xs = [m.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    up = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(m.tensor(up, dtype=out.dtype))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    torch = pytest.importorskip("torch")
    out, grads = _run(framework, name, getattr(framework, dtype))
    t_out, t_grads = _run(torch, name, getattr(torch, dtype))
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    assert tuple(out.shape) == tuple(t_out.shape)
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **tol)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if tg is not None:
            assert_close(g, tg.numpy(), **tol)
    assert out.grad_fn.name() == t_out.grad_fn.name()


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    fn, arrays = CASES[name]
    if any(np.isnan(a).any() for a in arrays):  # central differences of NaN are NaN: check the finite part
        arrays = [np.where(np.isnan(a), np.nan, a) for a in arrays]
        xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
        finite = fn(framework, *xs)
        keep = ~np.isnan(finite.detach().cpu().numpy())
        f = lambda *t: fn(framework, *t)[framework.tensor(keep)]  # noqa: E731
    else:
        xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
        f = lambda *t: fn(framework, *t)  # noqa: E731
    if name == "ldexp":
        pytest.skip("integer exponents: torch's derivative pow(2, e) is 0 for e < 0 (matched above); "
                    "ldexp_float_exponent is the checked case")
    assert gradcheck(f, xs, eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", [n for n in CASES if n not in ("ldexp", "copysign", "copysign_")])
def test_gradgradcheck(name):
    # (copysign's gradient in other is torch's constant zeros_like(other), with no graph to check)
    fn, arrays = CASES[name]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert gradgradcheck(lambda *t: fn(framework, *t), xs, atol=1e-4)


def test_multi_output_grad_fns_and_types():
    torch = pytest.importorskip("torch")
    for fn in (lambda m, x: m.std_mean(x, 1), lambda m, x: m.var_mean(x, correction=0),
               lambda m, x: m.frexp(x), lambda m, x: m.nanmedian(x, 1)):
        ours = fn(framework, framework.tensor(X, requires_grad=True))
        theirs = fn(torch, torch.tensor(X, requires_grad=True))
        for o, t in zip(ours, theirs):
            assert (o.grad_fn and o.grad_fn.name()) == (t.grad_fn and t.grad_fn.name())
            assert o.dtype.name == str(t.dtype).replace("torch.", "")
            assert_close(o, t.detach().cpu().numpy())
    assert framework.frexp(framework.tensor(X)).exponent.dtype == framework.int32
    assert framework.nanmedian(framework.tensor([np.nan, np.nan])).isnan().item()


def test_heaviside_values_and_its_backward_refuses_like_torch():
    torch = pytest.importorskip("torch")
    a = np.array([-1.5, 0.0, 2.0, 0.0])
    v = np.array([0.5, 0.25, 0.5, 0.75])
    ours = framework.heaviside(framework.tensor(a, requires_grad=True), framework.tensor(v))
    theirs = torch.heaviside(torch.tensor(a, requires_grad=True), torch.tensor(v))
    assert_close(ours.detach(), theirs.detach().cpu().numpy())
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    with pytest.raises(RuntimeError) as t_err:
        theirs.sum().backward()
    with pytest.raises(RuntimeError) as o_err:
        ours.sum().backward()
    assert str(o_err.value).split("\n")[0] == str(t_err.value).split("\n")[0]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "midpoint"])
@pytest.mark.parametrize("q", [0.3, "tensor"])
def test_quantile_version_counts_torch_in_place_steps(q, interpolation):
    torch = pytest.importorskip("torch")
    outs = [m.quantile(m.tensor(X, requires_grad=True), m.tensor([0.3, 0.5], dtype=m.float64) if q == "tensor" else q,
                       dim=1, interpolation=interpolation) for m in (framework, torch)]
    assert outs[0]._version == outs[1]._version


def test_logcumsumexp_stays_finite_across_a_wide_range():
    x = framework.tensor([-1000.0, 0.0, 1000.0], dtype=framework.float64)
    assert_close(framework.logcumsumexp(x, 0), np.array([-1000.0, 0.0, 1000.0]))


ERRORS = {
    "quantile_q": lambda m: m.quantile(m.zeros(4, 5), 1.5),
    "quantile_q_tensor": lambda m: m.quantile(m.zeros(4, 5), m.tensor([0.5, 1.5])),
    "quantile_interpolation": lambda m: m.quantile(m.zeros(4, 5), 0.5, interpolation="foo"),
    "quantile_int": lambda m: m.quantile(m.tensor([1, 2]), 0.5),
    "quantile_q_dtype": lambda m: m.quantile(m.zeros(4, 5), m.tensor([0.5], dtype=m.float64)),
    "quantile_q_dims": lambda m: m.quantile(m.zeros(4, 5), m.zeros(2, 2)),
    "quantile_empty": lambda m: m.quantile(m.tensor([]), 0.5),
    "nanquantile_q": lambda m: m.nanquantile(m.zeros(3), -0.1),
    "renorm_p": lambda m: m.renorm(m.zeros(4, 5), -1, 0, 1.0),
    "renorm_maxnorm": lambda m: m.renorm(m.zeros(4, 5), 2, 0, -1.0),
    "heaviside_dtype": lambda m: m.heaviside(m.zeros(3), m.tensor([1])),
    "logcumsumexp_int": lambda m: m.logcumsumexp(m.tensor([1, 2]), 0),
    "nanmean_int": lambda m: m.nanmean(m.tensor([1, 2])),
    "std_mean_int": lambda m: m.std_mean(m.tensor([1, 2])),
    "var_mean_int": lambda m: m.var_mean(m.tensor([1, 2])),
    "trapezoid_x": lambda m: m.trapezoid(m.zeros(4, 5), m.arange(3.0)),
    "cumulative_trapezoid_x": lambda m: m.cumulative_trapezoid(m.zeros(4, 5), m.arange(3.0)),
    "frexp_int": lambda m: m.frexp(m.tensor([1, 2])),
    "logaddexp_shape": lambda m: m.logaddexp(m.zeros(3), m.zeros(2)),
    "std_mean_dim": lambda m: m.std_mean(m.zeros(3), 2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](framework)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    # torch's type names (torch.FloatTensor, torch.Size) are framework's here, as everywhere in the project
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0].replace("torch.", "framework.")


def test_inplace_twins_return_self_bump_the_version_and_name_torch_nodes():
    torch = pytest.importorskip("torch")
    for fn in (lambda m, a: a.copysign_(m.tensor(Y)), lambda m, a: a.copysign_(-1.0), lambda m, a: a.clamp_min_(0.1),
               lambda m, a: a.ldexp_(m.tensor(2)), lambda m, a: a.renorm_(2, 0, 1.0)):
        results = []
        for m in (framework, torch):
            a = m.tensor(X, requires_grad=True) * 1
            r = fn(m, a)
            results.append((r is a, r._version, r.grad_fn.name()))
        assert results[0] == results[1]


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("kw", [{}, {"dim": None}, {"dim": ()}, {"dim": []}, {"dim": 0}, {"dim": (), "keepdim": True}])
@pytest.mark.parametrize("shape", [(1,), (2, 1), (2, 3)])
def test_sum_and_mean_without_dims_reduce_all_and_expand_their_gradient_as_torch(op, kw, shape):
    """torch: dim=None or an empty dim list reduces every dim, and sum_backward then only expands the gradient (no
    unsqueezes): a gradient of one element has stride 0, so AccumulateGrad copies it (_version 1, seed 2502280)."""
    torch = pytest.importorskip("torch")

    def run(m):
        t0 = m.tensor(np.full(shape, -0.2), dtype=m.float32, requires_grad=True)
        out = getattr(t0, op)(**kw)
        out.backward(m.ones_like(out) * 0.68)
        g, = m.autograd.grad(getattr(t0, op)(**kw).sum(), [t0], create_graph=True)
        nodes, fn = [], g.grad_fn
        while fn is not None:
            nodes.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return (out.detach().cpu().numpy().round(5).tolist(), tuple(out.shape), type(out.grad_fn).__name__,
                t0.grad._version, t0.grad.stride(), t0.grad.cpu().numpy().round(5).tolist(), nodes)

    assert run(framework) == run(torch)


@pytest.mark.parametrize("da,db", [("bfloat16", "bfloat16"), ("float16", "float16"), ("bfloat16", "float16"),
                                   ("float16", "bfloat16"), ("bfloat16", "int64"), ("float16", "int32"),
                                   ("int64", "bfloat16"), ("float32", "bfloat16")])
def test_ldexp_half_rounds_the_power_then_the_product_as_torch(da, db):
    """torch's ldexp is a * pow(2, b): the power is rounded to b's dtype, then the product (fuzz seed 2808233)."""
    torch = pytest.importorskip("torch")
    if "bfloat16" in (da, db) and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    g = np.random.default_rng(3)
    a = g.standard_normal((40, 50)) * 2
    b = g.standard_normal((40, 50)) * 3
    if db.startswith("int"):
        b = np.round(b)
    if da.startswith("int"):
        a = np.round(a)
    grad = da != "int64"
    ta = torch.tensor(a, dtype=getattr(torch, da), requires_grad=grad)
    tb = torch.tensor(b, dtype=getattr(torch, db), requires_grad=not db.startswith("int"))
    fa = framework.tensor(a, dtype=getattr(framework, da), requires_grad=grad)
    fb = framework.tensor(b, dtype=getattr(framework, db), requires_grad=not db.startswith("int"))
    want, got = torch.ldexp(ta, tb), framework.ldexp(fa, fb)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert got.grad_fn.name() == want.grad_fn.name() == "LdexpBackward0"
    np.testing.assert_array_equal(got.detach().float().cpu().numpy(), want.detach().float().numpy())  # bit for bit


CUMPROD_INPUTS = {  # the fuzzer's program (seed 2803492): |cumprod| > 1 makes acos's gradient NaN in some places
    "no_zero": np.array([[-0.76, -0.58, -1.58, 1.04], [-0.14, -1.74, -1.86, -0.6], [-0.87, 0.84, 1.17, -0.63]]),
    "zeros": np.array([[-0.76, 0.0, -1.58, 1.04], [0.0, -1.74, 0.0, -0.6], [-0.87, 0.84, 0.0, 0.0]]),
    "inf": np.array([[-0.76, np.inf, -1.58, 0.0], [-0.14, -1.74, -1.86, -0.6], [-0.87, 0.0, 1.17, -0.63]]),
}


@pytest.mark.parametrize("inputs", CUMPROD_INPUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_cumprod_backward_spreads_nan_as_torchs(inputs, dim, inplace, dtype, create_graph):
    """torch's cumprod_backward: without zeros, the reversed running sum of grad * out (flip, cumsum, flip) over
    the input, so a NaN reaches only the places before it (a total minus a running sum spread it along the whole
    dim); with zeros, masks around the first zero (torch's O(n^2) products when create_graph)."""
    torch = pytest.importorskip("torch")
    g_out = np.array([[-1.77, 1.42, 0.02, 1.99], [-1.28, 0.81, 0.53, 1.71], [-0.31, -0.62, 1.51, 1.41]])

    def run(m):
        t = m.tensor(CUMPROD_INPUTS[inputs], dtype=getattr(m, dtype), requires_grad=True)
        y = (t * 1).cumprod_(dim) if inplace else m.cumprod(t, dim)
        g, = m.autograd.grad(m.acos(y), t, m.tensor(g_out, dtype=getattr(m, dtype)), create_graph=create_graph)
        return g.detach().cpu().numpy()

    ours, theirs = run(framework), run(torch)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spread_of_equal_values_is_exactly_zero_as_torch(fn, dtype):
    """torch's Welford kernel gives exactly 0 for a run of equal values (NumPy's two passes leave sum / N's
    rounding: 2.7e-16 for three 1.35s, which a later where(std > 0, ...) turns into another branch; fuzz seed
    3603660); other values stay torch's."""
    torch = pytest.importorskip("torch")
    rows = np.array([[1.35, 1.35, 1.35], [0.1, 0.1, 0.1], [-2.7, 0.4, 1.9]])
    for kwargs in (dict(dim=1, keepdim=True), dict(dim=1), dict()):
        ours = getattr(framework, fn)(framework.tensor(rows, dtype=getattr(framework, dtype)).expand(2, 3, 3)
                                      if kwargs else framework.tensor(rows[:1, :1]).expand(4, 3), **kwargs)
        theirs = getattr(torch, fn)(torch.tensor(rows, dtype=getattr(torch, dtype)).expand(2, 3, 3)
                                    if kwargs else torch.tensor(rows[:1, :1]).expand(4, 3), **kwargs)
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        for a, b in zip(ours, theirs):
            a, b = a.cpu().numpy(), b.numpy()
            assert ((a == 0) == (b == 0)).all()
            np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("op", ["truediv", "mul", "add", "gt", "maximum"])
def test_promoted_expanded_operand_keeps_torchs_row_major_result(op):
    """float32 expanded (stride 0) over float64: the promoted copy stays expanded, so the result is row-major as
    torch's and view(-1) works (NumPy's astype laid the repeated dim innermost; fuzz seed 3802508)."""
    torch = pytest.importorskip("torch")
    import operator
    fn = getattr(operator, op, None) or (lambda a, b: a.maximum(b))
    out = []
    for m in (torch, framework):
        a = m.tensor([1.0, 2.0], dtype=m.float32).expand(2, 2)
        b = m.tensor([1.5], dtype=m.float64)
        r = fn(a, b)
        out.append((r.stride(), r.dtype == m.float64, r.reshape(-1).tolist(), r.view(-1).shape[0]))
    assert out[0] == out[1]


# ---- nextafter ----------------------------------------------------------------------------------------------

_NEXTAFTER = {
    "float32": lambda m: m.nextafter(m.tensor([1.0, 2.0, 0.0, -0.0, np.inf]), m.tensor([2.0, 0.0, 1.0, -1.0, 0.0])),
    "promoted": lambda m: m.nextafter(m.tensor([1.0, 2.0], dtype=m.float64), m.tensor([2.0, 0.0])),
    "0-d float64": lambda m: m.nextafter(m.tensor([1.0, 2.0]), m.tensor(3.0, dtype=m.float64)),
    "0-d integer": lambda m: m.nextafter(m.tensor([1.0, 2.0]), m.tensor(3)),
    "float16": lambda m: m.nextafter(m.tensor([1.0, 2.0]).half(), m.tensor([2.0, 0.0]).half()),
    "bfloat16": lambda m: m.nextafter(m.tensor([1.0, 2.0]).bfloat16(), m.tensor([2.0, 0.0]).bfloat16()),
    "method": lambda m: m.tensor([1.0, 2.0]).nextafter(m.tensor([2.0, 0.0])),
    "in place, a wider other": lambda m: m.tensor([1.0, 2.0]).nextafter_(m.tensor([2.0, 0.0], dtype=m.float64)),
    "integers": lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([2, 0])),
    "a number": lambda m: m.nextafter(m.tensor([1.0, 2.0]), 2.0),
    "shapes": lambda m: m.nextafter(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.0, 3.0])),
    "in place into integers": lambda m: m.tensor([1, 2]).nextafter_(m.tensor([2.0, 0.0])),
}


def _outcome(m, fn):
    try:
        out = fn(m)
    except Exception as e:  # noqa: BLE001  (the class and first line are compared with torch's)
        return type(e).__name__, str(e).split("\n")[0]
    return str(out.dtype).split(".")[-1], out.float().tolist()


@pytest.mark.parametrize("name", sorted(_NEXTAFTER))
def test_nextafter_as_torch(name, device):
    torch = pytest.importorskip("torch")
    if name == "bfloat16" and device != "cpu":
        pytest.skip("CuPy has no bfloat16")
    assert _outcome(framework, _NEXTAFTER[name]) == _outcome(torch, _NEXTAFTER[name])


def test_nextafter_gradients_as_torch():
    """torch's formula: grad where input != other (0 where equal, NaN counts as different), zeros for other."""
    torch = pytest.importorskip("torch")
    found = []
    for m in (framework, torch):
        x = m.tensor([[1.0, np.nan], [3.0, 4.0]], requires_grad=True)
        o = m.tensor([3.0], requires_grad=True)
        g = m.ones(2, 2, requires_grad=True)
        out = m.nextafter(x, o)
        gx, go = m.autograd.grad(out, (x, o), g * 7, create_graph=True)
        found.append((out.grad_fn.name(), gx.tolist(), go.tolist(), gx.grad_fn.name(), go.grad_fn))
    assert found[0] == found[1]


def test_nextafter_gradcheck():
    x = framework.tensor(X, requires_grad=True)
    o = framework.tensor(Y[0], requires_grad=True)
    assert gradcheck(framework.nextafter, (x, o))
