"""Ops added in round 7, each against torch: asinh/acosh/atanh (arcsinh... aliases), exp2, logit, erfinv, hypot,
their in-place forms, and F.selu/celu/tanhshrink with nn.SELU/CELU/Tanhshrink.

Values (float32 and float64, edge values included), gradients, graph node names (first, second and third order),
dtype promotion, error texts and version counters are compared with torch; a float64 gradcheck needs no torch.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import framework
from framework.testing import gradcheck, gradgradcheck

F = framework.nn.functional


def _np(t) -> np.ndarray:
    """t's values as a NumPy array (from the test device)."""
    return t.detach().cpu().numpy()


def _graph(f) -> str:
    """The node names of a graph, nested: 'MulBackward0(-,RsqrtBackward0(...))'."""
    if f is None:
        return "-"
    kids = ",".join(_graph(n) for n, _ in f.next_functions)
    return type(f).__name__ + (f"({kids})" if kids else "")


def _outcome(call):
    """('ok', dtype name, values) or (error class name, first line of the message)."""
    try:
        r = call()
        return "ok", str(r.dtype).split(".")[-1], _np(r).tolist()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__, str(e).split("\n")[0]


# ---- the ops, as (name, function of (module, *tensors), number of tensor inputs, domain of the random inputs) --

SELU = lambda m, a: m.nn.functional.selu(a)  # noqa: E731
UNARY = {
    "asinh": lambda m, a: m.asinh(a),
    "arcsinh": lambda m, a: m.arcsinh(a),
    "acosh": lambda m, a: m.acosh(a),
    "arccosh": lambda m, a: a.arccosh(),
    "atanh": lambda m, a: m.atanh(a),
    "arctanh": lambda m, a: a.arctanh(),
    "exp2": lambda m, a: m.exp2(a),
    "logit": lambda m, a: m.logit(a),
    "logit_eps": lambda m, a: m.logit(a, eps=0.1),
    "logit_eps_crossed": lambda m, a: a.logit(0.6),  # lo > hi: torch's x < lo ? lo : (x > hi ? hi : x)
    "erfinv": lambda m, a: m.erfinv(a),
    "selu": SELU,
    "celu": lambda m, a: m.nn.functional.celu(a),
    "celu_half": lambda m, a: m.nn.functional.celu(a, alpha=0.5),
    "tanhshrink": lambda m, a: m.nn.functional.tanhshrink(a),
}
# the largest distance from torch's value in units in the last place (torch's kernels are SLEEF's or glibc's, ours
# NumPy's: neither is correctly rounded everywhere), as measured over the inputs below in float32 and float64
MAX_ULPS = {"asinh": 2, "arcsinh": 2, "acosh": 2, "arccosh": 2, "atanh": 1, "arctanh": 1, "exp2": 1, "logit": 2,
            "logit_eps": 2, "logit_eps_crossed": 2, "erfinv": 1, "selu": 2, "celu": 2, "celu_half": 2, "hypot": 1}


def _inputs(name: str, dtype) -> np.ndarray:
    """Edge values (signed zeros, +-1, the ends of the domain, huge, tiny, inf, NaN) and random ones."""
    rng = np.random.default_rng(7)
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-30, -1e-30, 1e-6, -1e-6, 30.0, -30.0, 1e30, -1e30,
             np.inf, -np.inf, np.nan, 0.7, -0.7, 1.5, -1.5, 100.0, 200.0, -200.0]
    near_one = 1 - 10.0 ** -np.arange(1, 17)
    rand = [rng.standard_normal(500) * s for s in (0.01, 1.0, 10.0)]
    unit = [rng.uniform(-1, 1, 500), rng.uniform(0, 1, 500), near_one, -near_one, 1 + 10.0 ** -np.arange(1, 17)]
    x = np.concatenate([np.array(edges)] + rand + unit).astype(dtype)
    if dtype == np.float32:
        x = np.concatenate([x, np.array([np.nextafter(np.float32(1), np.float32(0)), np.float32(1e-45)], dtype)])
    if name in ("acosh", "arccosh"):
        x = np.concatenate([x, 1 + np.abs(x[np.isfinite(x)])])
    return x


def _as_int(x: np.ndarray) -> np.ndarray:
    """Floats as integers that are ordered as the floats are (so a difference counts ulps; -0.0 and 0.0 meet)."""
    bits = x.view(np.int32 if x.dtype == np.float32 else np.int64).astype(np.int64)
    magnitude = bits & (0x7FFFFFFF if x.dtype == np.float32 else 0x7FFFFFFFFFFFFFFF)
    return np.where(bits < 0, -magnitude, magnitude)


def assert_same_values(ours: np.ndarray, theirs: np.ndarray, max_ulps: int, inputs=None) -> None:
    """NaN, infinities and the sign of zeros exactly as torch's; finite values within max_ulps of torch's."""
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    special = np.isinf(theirs) | np.isinf(ours) | (theirs == 0)
    np.testing.assert_array_equal(ours[special], theirs[special])
    np.testing.assert_array_equal(np.signbit(ours[special]), np.signbit(theirs[special]))
    finite = np.isfinite(theirs) & ~special
    ulps = np.abs(_as_int(ours[finite]) - _as_int(theirs[finite]))
    worst = int(ulps.max()) if ulps.size else 0
    where = None if not worst else (inputs[finite][np.argmax(ulps)] if inputs is not None else None)
    assert worst <= max_ulps, f"{worst} ulps from torch (input {where!r})"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_match_torch(name, dtype, torch):
    x = _inputs(name, dtype)
    ours = _np(UNARY[name](framework, framework.tensor(x)))
    theirs = UNARY[name](torch, torch.from_numpy(x)).numpy()
    if name == "tanhshrink":  # x - tanh(x) cancels near 0: a tanh ulp apart is an absolute error of ulps of x
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        fin = np.isfinite(theirs)
        np.testing.assert_array_equal(ours[~fin], theirs[~fin])
        assert (np.abs(ours[fin] - theirs[fin]) <= 2 * np.spacing(np.abs(x[fin]))).all()
        return
    assert_same_values(ours, theirs, MAX_ULPS[name], x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_hypot_values_match_torch(dtype, torch):
    x = _inputs("hypot", dtype)
    y = np.roll(x, 11)
    for a, b in ((x, y), (x, np.zeros_like(x)), (np.full_like(x, np.inf), np.full_like(x, np.nan))):
        ours = _np(framework.hypot(framework.tensor(a), framework.tensor(b)))
        theirs = torch.hypot(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        assert_same_values(ours, theirs, MAX_ULPS["hypot"], a)


def test_hypot_broadcasts_and_promotes_as_torch(torch):
    def run(m):
        a = m.tensor([[3.0], [5.0]])
        b = m.tensor([4.0, 12.0], dtype=m.float64)
        c = m.tensor(8.0, dtype=m.float64)  # a 0-d tensor does not promote float32
        return [_outcome(lambda: m.hypot(a, b)), _outcome(lambda: m.hypot(a, c)), _outcome(lambda: a.hypot(b)),
                _outcome(lambda: a.clone().hypot_(c))]

    assert run(framework) == run(torch)


def test_erfinv_is_accurate_in_float64():
    """Within about an ulp of the exact value (mpmath's, at 40 digits, where installed), in the tail too."""
    mpmath = pytest.importorskip("mpmath")
    ys = [0.0, 1e-300, 0.1, -0.5, 0.7, 0.9, -0.99, 0.999999, 1 - 1e-12, 1 - 2.0 ** -53, -(1 - 2.0 ** -52)]
    ours = _np(framework.erfinv(framework.tensor(ys, dtype=framework.float64)))
    with mpmath.workdps(40):
        exact = [float(mpmath.erfinv(mpmath.mpf(y))) for y in ys]
    for y, o, e in zip(ys, ours, exact):
        assert abs(o - e) <= 1.5 * np.spacing(abs(e)), (y, o, e)


# ---- dtypes and errors ------------------------------------------------------------------------------------------

PROMOTED = ["asinh", "acosh", "atanh", "exp2", "logit", "erfinv"]


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16"])
@pytest.mark.parametrize("name", PROMOTED)
def test_integer_inputs_give_float32_and_in_place_refuses_them(name, dtype, torch):
    """asinh(int tensor) is float32, as torch; asinh_ on it is torch's cast error (float16 stays float16)."""
    def run(m):
        t = m.tensor([0, 1, 0], dtype=getattr(m, dtype)) if dtype != "float16" else m.tensor([0.25, -0.5],
                                                                                            dtype=m.float16)
        return _outcome(lambda: getattr(m, name)(t)), _outcome(lambda: getattr(t.clone(), name + "_")())

    ours, theirs = run(framework), run(torch)
    assert ours[0][:2] == theirs[0][:2] and ours[1][:2] == theirs[1][:2]
    if ours[0][0] == "ok":
        np.testing.assert_allclose(ours[0][2], theirs[0][2], rtol=1e-3)


ERRORS = {
    "hypot long": lambda m: m.hypot(m.tensor([3, 4]), m.tensor([4, 3])),
    "hypot bool": lambda m: m.hypot(m.tensor([True]), m.tensor([False])),
    "hypot_ long": lambda m: m.tensor([3]).hypot_(m.tensor([4])),
    "hypot_ float into long": lambda m: m.tensor([3]).hypot_(m.tensor([4.0])),
    "hypot number": lambda m: m.hypot(m.tensor([3.0]), 4.0),
    "hypot number input": lambda m: m.hypot(3.0, m.tensor([4.0])),
    "hypot_ number": lambda m: m.tensor([3.0]).hypot_(4.0),
    "hypot shapes": lambda m: m.hypot(m.ones(2), m.ones(3)),
    "hypot_ grows": lambda m: m.tensor([1.0]).hypot_(m.tensor([1.0, 2.0])),
    "celu alpha 0": lambda m: m.nn.functional.celu(m.tensor([0.5]), alpha=0.0),
    "celu_ alpha 0": lambda m: m.nn.functional.celu(m.tensor([0.5]), alpha=0.0, inplace=True),
    "selu long": lambda m: m.nn.functional.selu(m.tensor([1, -1])),
    "celu long": lambda m: m.nn.functional.celu(m.tensor([1, -1])),
    "selu bool": lambda m: m.nn.functional.selu(m.tensor([True])),
    "elu long": lambda m: m.nn.functional.elu(m.tensor([1, -1])),
    "tanhshrink long": lambda m: m.nn.functional.tanhshrink(m.tensor([1, -1])),
    "tanhshrink bool": lambda m: m.nn.functional.tanhshrink(m.tensor([True])),
    "celu negative alpha": lambda m: m.nn.functional.celu(m.tensor([-0.5, 0.5]), alpha=-1.0),
    "celu_ negative alpha": lambda m: m.nn.functional.celu(m.tensor([-0.5, 0.5]), alpha=-1.0, inplace=True),
    "torch.selu": lambda m: m.selu(m.tensor([-0.5, 0.5])),
    "torch.celu_": lambda m: m.celu_(m.tensor([-0.5, 0.5]), 2.0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_and_dtypes_match_torch(name, torch):
    ours, theirs = _outcome(lambda: ERRORS[name](framework)), _outcome(lambda: ERRORS[name](torch))
    assert ours[:2] == theirs[:2]
    if ours[0] == "ok":
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)


def test_celu_in_place_with_a_negative_alpha_fails_in_backward_as_torch(torch):
    def run(m):
        x = m.tensor([-0.5, 0.5], requires_grad=True)
        y = m.nn.functional.celu(x * 1, alpha=-1.0, inplace=True)
        return _outcome(lambda: m.autograd.grad(y.sum(), x)[0])

    assert run(framework) == run(torch)


# ---- gradients and graphs ---------------------------------------------------------------------------------------

def _domain_input(name: str, n: int = 7) -> np.ndarray:
    """Random float64 values where the op is differentiable (and, for logit with eps, some clamped ones)."""
    rng = np.random.default_rng(3)
    if name in ("acosh", "arccosh"):
        return 1.2 + rng.uniform(0, 3, n)
    if name in ("atanh", "arctanh", "erfinv"):
        return rng.uniform(-0.9, 0.9, n)
    if name.startswith("logit"):
        return np.concatenate([rng.uniform(0.15, 0.85, n - 2), [0.05, 0.95]])
    x = rng.standard_normal(n) * 2
    return np.where(np.abs(x) < 0.1, 0.5, x)  # away from elu's kink at 0


GRAD_OPS = dict(UNARY)
GRAD_OPS.update({
    "exp2_": lambda m, a: (a * 1).exp2_(), "logit_": lambda m, a: (a * 1).logit_(),
    "logit_eps_": lambda m, a: m.logit_(a * 1, 0.1), "erfinv_": lambda m, a: (a * 1).erfinv_(),
    "selu_": lambda m, a: m.nn.functional.selu(a * 1, inplace=True),
    "celu_": lambda m, a: m.nn.functional.celu(a * 1, 0.5, inplace=True),
    "torch.selu_": lambda m, a: m.selu_(a * 1),
    "elu": lambda m, a: m.nn.functional.elu(a, 0.7),
    "elu_": lambda m, a: m.nn.functional.elu(a * 1, 0.7, inplace=True),
    "SELU module": lambda m, a: m.nn.SELU()(a), "CELU module": lambda m, a: m.nn.CELU(0.5, inplace=True)(a * 1),
    "Tanhshrink module": lambda m, a: m.nn.Tanhshrink()(a),
})


def _graphs(m, name, x, dtype):
    """The forward graph, the create_graph gradient's graph, the second derivatives' graphs, and their values."""
    a = m.tensor(x, dtype=dtype, requires_grad=True)
    w = m.tensor(np.linspace(-1.5, 1.0, x.size), dtype=dtype, requires_grad=True)
    y = GRAD_OPS[name](m, a)
    (g,) = m.autograd.grad((y * w).sum(), [a], create_graph=True)
    gg = m.autograd.grad((g * g).sum(), [a, w], create_graph=True)
    return ([_graph(y.grad_fn), _graph(g.grad_fn)] + [_graph(t.grad_fn) for t in gg],
            [_np(t) for t in (y, g) + tuple(gg)])


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_graphs_and_derivatives_match_torch(name, torch):
    """Node names of the forward, first (create_graph) and second derivative graphs are torch's, and the values
    agree (float64)."""
    x = _domain_input(name.split(" ")[0].replace("torch.", "").rstrip("_"))
    ours, theirs = _graphs(framework, name, x, framework.float64), _graphs(torch, name, x, torch.float64)
    assert ours[0] == theirs[0]
    for mine, ref in zip(ours[1], theirs[1]):  # atol: tanhshrink's x - tanh(x) cancels
        np.testing.assert_allclose(mine, ref, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", ["asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_", "arctanh_"])
def test_in_place_inverse_hyperbolics_have_no_derivative_as_torch(name, torch):
    """torch records AsinhBackward1 (AcoshBackward1, AtanhBackward1) for the in-place forms, whose backward
    raises NotImplementedError: derivatives.yaml has no formula for them."""
    x = 1.5 + _domain_input("acosh", 3) if "cosh" in name else _domain_input("atanh", 3)

    def run(m):
        a = m.tensor(x, requires_grad=True)
        y = getattr(a * 1, name)()
        return _graph(y.grad_fn), _np(y).tolist(), _outcome(lambda: m.autograd.grad(y.sum(), a)[0])

    ours, theirs = run(framework), run(torch)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradient_matches_torch(name, dtype, torch):
    x = _domain_input(name, 40)
    g = np.random.default_rng(5).standard_normal(40)

    def run(m):
        a = m.tensor(x, dtype=getattr(m, dtype), requires_grad=True)
        UNARY[name](m, a).backward(m.tensor(g, dtype=getattr(m, dtype)))
        return _np(a.grad)

    rtol = 1e-5 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(run(framework), run(torch), rtol=rtol, atol=0)


@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_hypot_graphs_and_gradients_match_torch(needs, torch):
    rng = np.random.default_rng(2)
    xa, xb = rng.standard_normal((3, 1)), rng.standard_normal(4)

    def run(m):
        a = m.tensor(xa, dtype=m.float64, requires_grad=needs[0])
        b = m.tensor(xb, dtype=m.float64, requires_grad=needs[1])
        out = m.hypot(a, b)
        w = m.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=m.float64, requires_grad=True)
        wanted = [t for t in (a, b) if t.requires_grad]
        grads = m.autograd.grad((out * w).sum(), wanted, create_graph=True)
        second = m.autograd.grad(sum((g * g).sum() for g in grads), wanted + [w])
        return ([_graph(out.grad_fn)] + [_graph(g.grad_fn) for g in grads],
                [_np(t) for t in (out,) + grads + second])

    ours, theirs = run(framework), run(torch)
    assert ours[0] == theirs[0]
    for mine, ref in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(mine, ref, rtol=1e-13)


def test_hypot_in_place_graph_and_gradients_match_torch(torch):
    def run(m):
        a = m.tensor([3.0, -1.0, 0.5], dtype=m.float64, requires_grad=True)
        b = m.tensor([4.0, 2.0, -0.25], dtype=m.float64, requires_grad=True)
        y = a * 1
        v = y._version
        y.hypot_(b)
        bumped = y._version - v
        (y * m.tensor([1.0, -2.0, 0.5], dtype=m.float64)).sum().backward()
        return _graph(y.grad_fn), bumped, _np(y).tolist(), _np(a.grad).tolist(), _np(b.grad).tolist()

    ours, theirs = run(framework), run(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(np.array(ours[2:]), np.array(theirs[2:]), rtol=1e-15)


def test_elu_third_order_graph_scales_by_input_scale_as_torch(torch):
    """torch's elu_double_backward multiplies by input_scale (a MulBackward1 node, even for 1.0): the graph of
    the derivative of a create_graph second derivative shows it, for elu and elu_."""
    for fn in (lambda m, a: m.nn.functional.elu(a, 0.7), lambda m, a: m.nn.functional.elu(a * 1, 0.7, inplace=True)):
        def run(m):
            x = m.tensor([-0.3, 0.4], dtype=m.float64, requires_grad=True)
            w = m.tensor([0.5, -1.5], dtype=m.float64, requires_grad=True)
            (g,) = m.autograd.grad((fn(m, x) * w).sum(), [x], create_graph=True)
            gx, gw = m.autograd.grad((g * g).sum(), [x, w], create_graph=True)
            return _graph(gx.grad_fn), _graph(gw.grad_fn), _np(gx).tolist(), _np(gw).tolist()

        ours, theirs = run(framework), run(torch)
        assert ours[:2] == theirs[:2]
        np.testing.assert_allclose(np.array(ours[2:]), np.array(theirs[2:]), rtol=1e-13)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("eps", [None, 0.1, 0.6])
def test_logit_gradient_at_the_edges_is_torchs_bit_for_bit(eps, create_graph, torch):
    """0 and 1 (infinite slope), outside [0, 1] (NaN without eps), clamped values (0 with eps), NaN; the same
    values whether torch runs its logit_backward kernel or, under create_graph, its where() formula."""
    x = np.array([0.0, -0.0, 1.0, -0.5, 1.5, 0.05, 0.95, 0.1, 0.9, 0.5, 0.3, np.nan, 0.6, 0.4])
    g = np.array([1.0, -2.0, 0.5, 1.0, 1.0, 1.0, 1.0, 3.0, -1.0, 0.25, 2.0, 1.0, 0.0, -0.0])
    for dtype in ("float32", "float64"):
        def run(m):
            a = m.tensor(x, dtype=getattr(m, dtype), requires_grad=True)
            (ga,) = m.autograd.grad(m.logit(a, eps), [a], m.tensor(g, dtype=getattr(m, dtype)),
                                    create_graph=create_graph)
            return _np(ga)

        np.testing.assert_array_equal(run(framework), run(torch))


# ---- in-place forms ---------------------------------------------------------------------------------------------

INPLACE = ["asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_", "arctanh_", "exp2_", "logit_", "erfinv_"]


@pytest.mark.parametrize("name", INPLACE)
def test_in_place_forms_write_the_tensor_and_bump_its_version_as_torch(name, torch):
    x = _domain_input(name.rstrip("_"), 5)

    def run(m):
        t = m.tensor(x)
        view = t[1:]
        before = t._version
        out = getattr(t, name)()
        method = (out is t, t._version - before, view._version - before)
        u = m.tensor(x)
        top = getattr(m, name, None)
        fn = None if top is None else (top(u) is u, u._version)
        return method, fn, _np(t)

    ours, theirs = run(framework), run(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)


@pytest.mark.parametrize("name", ["asinh_", "atanh_", "logit_", "erfinv_", "acosh_"])
def test_in_place_on_a_saved_input_is_caught_as_torch(name, torch):
    """x.asinh_() where x was saved by another op: backward through that op refuses, as torch's."""
    x = _domain_input(name.rstrip("_"), 4)

    def run(m):
        a = m.tensor(x, requires_grad=True)
        b = a * 1
        c = b * b  # saves b
        getattr(b, name)()
        return _outcome(lambda: m.autograd.grad(c.sum(), a)[0])

    ours, theirs = run(framework), run(torch)
    assert ours[0] == theirs[0] == "RuntimeError"
    assert ours[1].split(":")[0] == theirs[1].split(":")[0]


# ---- modules ----------------------------------------------------------------------------------------------------

MODULES = {"SELU()": lambda m: m.nn.SELU(), "SELU(inplace=True)": lambda m: m.nn.SELU(inplace=True),
           "CELU()": lambda m: m.nn.CELU(), "CELU(0.5, True)": lambda m: m.nn.CELU(0.5, True),
           "Tanhshrink()": lambda m: m.nn.Tanhshrink()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_match_torch(name, torch):
    """repr, the output, and (inplace=True) that the input itself is written."""
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])

    def run(m):
        layer = MODULES[name](m)
        t = m.tensor(x)
        out = layer(t)
        return repr(layer), out is t, _np(out), list(dict(layer.named_parameters()))

    ours, theirs = run(framework), run(torch)
    assert (ours[0], ours[1], ours[3]) == (theirs[0], theirs[1], theirs[3])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)


def test_modules_are_exported_where_torch_has_them():
    from framework.nn.modules import activation

    for name in ("SELU", "CELU", "Tanhshrink"):
        assert getattr(activation, name) is getattr(framework.nn, name)
        assert name in activation.__all__
    for name in ("selu", "selu_", "celu", "celu_", "tanhshrink"):
        assert callable(getattr(F, name))


# ---- gradcheck (no torch) ---------------------------------------------------------------------------------------

GRADCHECK = {
    "asinh": (lambda a: framework.asinh(a), "normal"),
    "acosh": (lambda a: framework.acosh(a), "above_one"),
    "atanh": (lambda a: framework.atanh(a), "unit"),
    "exp2": (lambda a: framework.exp2(a), "normal"),
    "logit": (lambda a: framework.logit(a), "prob"),
    "logit_eps": (lambda a: framework.logit(a, 0.01), "prob"),
    "erfinv": (lambda a: framework.erfinv(a), "unit"),
    "selu": (lambda a: F.selu(a), "normal"),
    "celu": (lambda a: F.celu(a, 0.5), "normal"),
    "tanhshrink": (lambda a: F.tanhshrink(a), "normal"),
    "logit_": (lambda a: (a * 1).logit_(0.01), "prob"),
    "erfinv_": (lambda a: (a * 1).erfinv_(), "unit"),
    "exp2_": (lambda a: (a * 1).exp2_(), "normal"),
    "selu_": (lambda a: F.selu(a * 1, inplace=True), "normal"),
    "celu_": (lambda a: F.celu(a * 1, 0.5, inplace=True), "normal"),
}


def _gradcheck_input(kind: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    x = {"normal": rng.standard_normal(6), "above_one": 1.5 + rng.uniform(0, 2, 6),
         "unit": rng.uniform(-0.8, 0.8, 6), "prob": rng.uniform(0.1, 0.9, 6)}[kind]
    return np.where(np.abs(x) < 0.05, 0.3, x)  # away from elu's kink


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, kind = GRADCHECK[name]
    a = framework.tensor(_gradcheck_input(kind), dtype=framework.float64, requires_grad=True)
    assert gradcheck(fn, [a])
    assert gradgradcheck(fn, [a])


def test_gradcheck_hypot():
    rng = np.random.default_rng(4)
    a = framework.tensor(rng.standard_normal((3, 1)), dtype=framework.float64, requires_grad=True)
    b = framework.tensor(rng.standard_normal(4), dtype=framework.float64, requires_grad=True)
    assert gradcheck(framework.hypot, [a, b])
    assert gradgradcheck(framework.hypot, [a, b])


def test_erfinv_inverts_erf_without_torch():
    """erf(erfinv(y)) == y to within rounding, including far in the tail; +-1 give +-inf, beyond NaN."""
    y = np.concatenate([np.linspace(-0.999, 0.999, 101), [1 - 1e-10, -(1 - 1e-15), 1e-300, -0.0]])
    x = _np(framework.erfinv(framework.tensor(y, dtype=framework.float64)))
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=2e-16, atol=0)
    assert np.signbit(x[-1]) and x[-1] == 0
    edge = _np(framework.erfinv(framework.tensor([1.0, -1.0, 1.5, float("nan")])))
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2:]).all()


@pytest.mark.parametrize("fn", ["elu", "selu", "celu"])
def test_elu_family_keeps_the_sign_of_negative_zero_as_torch(fn, torch):
    """elu(-0.0) is -0.0 in torch (expm1(-0.0) * alpha); min(a, 0) had turned it into +0.0."""
    x = np.array([-0.0, 0.0, -1e-30, 1e-30], dtype=np.float32)
    ours = _np(getattr(F, fn)(framework.tensor(x)))
    theirs = getattr(torch.nn.functional, fn)(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    np.testing.assert_array_equal(ours, theirs)


EDGE_GRADS = {"asinh": [0.0, -0.0, 1e300, -1e300, np.inf, -np.inf, np.nan, 1e-300],
              "acosh": [1.0, 0.5, 1e300, np.inf, np.nan, 1.0000001],
              "atanh": [1.0, -1.0, 0.0, -0.0, 1.5, np.nan, 0.999999],
              "exp2": [0.0, -0.0, 1100.0, -1100.0, np.inf, -np.inf, np.nan],
              "erfinv": [1.0, -1.0, 0.0, -0.0, 1.5, np.nan, 0.9999999],
              "logit": [0.0, 1.0, -0.0, 0.5, -1.0, 2.0, np.nan]}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 1e300 into float32, overflowing squares: as torch, inf
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EDGE_GRADS))
def test_gradients_at_edge_values_match_torch(name, dtype, torch):
    """The ends of the domains, infinities, NaN, signed zeros: infinite and NaN gradients where torch's are."""
    xs = EDGE_GRADS[name]

    def run(m):
        a = m.tensor(xs, dtype=getattr(m, dtype), requires_grad=True)
        getattr(m, name)(a).backward(m.tensor(np.linspace(-1, 2, len(xs)), dtype=getattr(m, dtype)))
        return _np(a.grad)

    assert_same_values(run(framework), run(torch), 2)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hypot_gradients_at_edge_values_match_torch(dtype, torch):
    def run(m):
        a = m.tensor([0.0, -0.0, np.inf, 3.0, np.nan, 1e300], dtype=getattr(m, dtype), requires_grad=True)
        b = m.tensor([0.0, 0.0, 1.0, np.inf, 1.0, 1e300], dtype=getattr(m, dtype), requires_grad=True)
        m.hypot(a, b).backward(m.tensor([1.0, -1.0, 1.0, 1.0, 1.0, 1.0], dtype=getattr(m, dtype)))
        return _np(a.grad), _np(b.grad)

    for ours, theirs in zip(run(framework), run(torch)):
        assert_same_values(ours, theirs, 0)


# ---- framework.compile (no torch) -------------------------------------------------------------------------------

COMPILED = {"asinh": lambda t: framework.asinh(t), "acosh": lambda t: framework.acosh(t * t + 1.5),
            "atanh": lambda t: framework.atanh(t.tanh() * 0.5), "exp2": lambda t: framework.exp2(t),
            "logit": lambda t: framework.logit(t.sigmoid()), "logit_eps": lambda t: framework.logit(t.sigmoid(), 0.3),
            "erfinv": lambda t: framework.erfinv(t.tanh() * 0.5), "hypot": lambda t: framework.hypot(t, t * 2),
            "selu": lambda t: F.selu(t), "celu_": lambda t: F.celu(t, 0.5, inplace=True),
            "tanhshrink": lambda t: F.tanhshrink(t),
            # erf on the host is math.erf per element: its capture used to take the GPU path (no cupyx) and fail
            "erf": lambda t: framework.erf(t), "gelu": lambda t: F.gelu(t)}


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_step_replays_as_eager(name):
    """A training step through the op, captured by framework.compile (fullgraph) and replayed on new inputs,
    gives the eager losses and parameters bit for bit."""
    def run(compiled):
        framework.manual_seed(0)
        lin = framework.nn.Linear(4, 4).double()
        opt = framework.optim.SGD(lin.parameters(), lr=0.1)

        def step(x):
            opt.zero_grad()
            loss = COMPILED[name](lin(x)).sum()
            loss.backward()
            opt.step()
            return loss

        if compiled:
            step = framework.compile(step, fullgraph=True)
        rng = np.random.default_rng(0)
        losses = [_np(step(framework.tensor(rng.uniform(0.1, 0.4, (3, 4))))) for _ in range(4)]
        return losses, _np(lin.weight)

    (ours, w), (eager, w_eager) = run(True), run(False)
    np.testing.assert_array_equal(np.array(ours), np.array(eager))
    np.testing.assert_array_equal(w, w_eager)


@pytest.mark.parametrize("name", ["erf", "erfinv"])
def test_erf_and_erfinv_of_zero_dim_and_empty_tensors(name, torch):
    """A 0-d tensor (an object ufunc gives a Python number there) and an empty one keep their shape and dtype."""
    for shape in [(), (0,), (2, 0)]:
        x = np.full(shape, -0.2, dtype=np.float32)
        ours = _np(getattr(framework, name)(framework.tensor(x)))
        theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        assert_same_values(ours, theirs, 1)
    fn = getattr(framework, name)
    step = framework.compile(lambda t: framework.autograd.grad(fn(t * 1), t)[0], fullgraph=True)
    for v in (0.3, -0.6, 0.1):  # captured at the first call, replayed on the next values
        a = framework.tensor(v, dtype=framework.float64, requires_grad=True)
        expected = 2 / math.sqrt(math.pi) * math.exp(-v * v) if name == "erf" else \
            0.5 * math.sqrt(math.pi) * math.exp(float(_np(framework.erfinv(a))) ** 2)
        assert float(_np(step(a))) == pytest.approx(expected, rel=1e-15)
