"""grad_fn names, next_functions chains, saves and _version as torch's (issue 15, "Metadata").

Each case builds the same graph in framework and in torch and compares the names along the
next_functions tree; the losses also compare values and gradients. New ops get float64 gradchecks
that need no torch.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework.testing import gradcheck


def chain(t, depth: int = 4) -> str:
    """'Name(child, child)' down next_functions to ``depth``, with torch's C++ prefix removed."""
    def walk(fn, d):
        if fn is None:
            return "None"
        name = fn.name().replace("torch::autograd::", "")
        if d == 0:
            return name
        return name + "(" + ",".join(walk(n, d - 1) for n, _ in fn.next_functions) + ")"
    return walk(t.grad_fn, depth)


def _pair(torch, array, requires_grad=True):
    """The same values as a framework tensor and a torch tensor."""
    return (framework.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def _lib(torch, which):
    return (framework, F) if which == 0 else (torch, torch.nn.functional)


# ---- losses --------------------------------------------------------------------------------------

_rng = np.random.default_rng(0)
_X = _rng.standard_normal((3, 4))
_Y = _rng.standard_normal((3, 4))
_P = 1 / (1 + np.exp(-_X))
_T = 1 / (1 + np.exp(-_Y))
_W4 = _rng.random(4)
_CLS = np.array([0, 1, 3])
_X4 = _rng.standard_normal((2, 4, 3, 5))
_T4 = _rng.integers(0, 4, (2, 3, 5))
_X3 = _rng.standard_normal((2, 4, 3))
_T3 = _rng.integers(0, 4, (2, 3))
_X5 = _rng.standard_normal((2, 4, 3, 2, 2))
_T5 = _rng.integers(0, 4, (2, 3, 2, 2))


def _loss_cases():
    """name -> fn(lib, F, make, long, const) building a loss; make(array) is a tensor that requires grad."""
    return {
        "mse": lambda L, F, m, k, f: F.mse_loss(m(_X), f(_Y), reduction=R),
        "mse_target_grad": lambda L, F, m, k, f: F.mse_loss(m(_X), m(_Y), reduction=R),
        "mse_broadcast": lambda L, F, m, k, f: F.mse_loss(m(_X), f(_Y[0]), reduction=R),
        "bce": lambda L, F, m, k, f: F.binary_cross_entropy(m(_X).sigmoid(), f(_T), reduction=R),
        "bce_weight": lambda L, F, m, k, f: F.binary_cross_entropy(m(_X).sigmoid(), f(_T),
                                                                weight=f(_W4), reduction=R),
        "bce_target_grad": lambda L, F, m, k, f: F.binary_cross_entropy(m(_P), m(_T), reduction=R),
        "nll": lambda L, F, m, k, f: F.nll_loss(m(_X), k(_CLS), reduction=R),
        "nll_weight_ignore": lambda L, F, m, k, f: F.nll_loss(m(_X), k([0, 2, 3]), weight=f(_W4),
                                                          ignore_index=2, reduction=R),
        "nll_1d": lambda L, F, m, k, f: F.nll_loss(m(_X[0]), k(2), reduction=R),
        "nll_2d": lambda L, F, m, k, f: F.nll_loss(m(_X4), k(_T4), reduction=R),
        "nll_3d": lambda L, F, m, k, f: F.nll_loss(m(_X3), k(_T3), reduction=R),
        "nll_5d": lambda L, F, m, k, f: F.nll_loss(m(_X5), k(_T5), reduction=R),
        "ce": lambda L, F, m, k, f: F.cross_entropy(m(_X), k(_CLS), reduction=R),
        "ce_weight_ignore": lambda L, F, m, k, f: F.cross_entropy(m(_X), k([0, 2, 3]), weight=f(_W4),
                                                              ignore_index=2, reduction=R),
        "ce_1d": lambda L, F, m, k, f: F.cross_entropy(m(_X[0]), k(1), reduction=R),
        "ce_2d": lambda L, F, m, k, f: F.cross_entropy(m(_X4), k(_T4), reduction=R),
        "ce_smooth": lambda L, F, m, k, f: F.cross_entropy(m(_X), k([0, 2, 3]), ignore_index=2,
                                                       label_smoothing=0.1, reduction=R),
        "ce_smooth_weight": lambda L, F, m, k, f: F.cross_entropy(m(_X), k([0, 2, 3]), weight=f(_W4),
                                                              label_smoothing=0.2, reduction=R),
        "ce_probs": lambda L, F, m, k, f: F.cross_entropy(m(_X), f(_T), reduction=R),
        "ce_probs_smooth_weight": lambda L, F, m, k, f: F.cross_entropy(m(_X), f(_T), weight=f(_W4),
                                                                    label_smoothing=0.1, reduction=R),
        "l1": lambda L, F, m, k, f: F.l1_loss(m(_X), f(_Y), reduction=R),
        "smooth_l1": lambda L, F, m, k, f: F.smooth_l1_loss(m(_X), f(_Y), reduction=R),
        "huber": lambda L, F, m, k, f: F.huber_loss(m(_X), f(_Y), reduction=R),
        "kl_div": lambda L, F, m, k, f: F.kl_div(m(_X), f(_T), reduction=R),
        "bce_logits": lambda L, F, m, k, f: F.binary_cross_entropy_with_logits(m(_X), f(_T), reduction=R),
    }


R = "mean"  # set per test (the case lambdas read it)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", list(_loss_cases()))
def test_loss_graph_values_and_grads_match_torch(case, reduction, dtype):
    torch = pytest.importorskip("torch")
    global R
    R = reduction
    results = []
    for which in (0, 1):
        L, FF = _lib(torch, which)
        dt = getattr(L, dtype)
        leaves = []

        def make(a, L=L, dt=dt, leaves=leaves):
            t = L.tensor(np.asarray(a), dtype=dt, requires_grad=True)
            leaves.append(t)
            return t

        def long(a, L=L):
            return L.tensor(np.asarray(a), dtype=L.int64)

        def const(a, L=L, dt=dt):
            return L.tensor(np.asarray(a), dtype=dt)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _loss_cases()[case](L, FF, make, long, const)
        names = chain(out, 6)
        (out * L.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=dt)).sum().backward()
        results.append((names, out.detach().cpu().numpy(), [leaf.grad.cpu().numpy() for leaf in leaves], str(out.dtype)))
    (n0, v0, g0, d0), (n1, v1, g1, d1) = results
    assert n0 == n1
    assert d0.replace("framework.", "torch.") == d1
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(v0, v1, **tol)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("which", ["mse", "bce", "nll", "ce"])
def test_loss_saves_its_input_like_torch(which):
    """Modifying the loss's input in place after the loss: the version error at backward where the node
    saved it (mse, bce, nll), none where it did not (cross_entropy: log_softmax saved its own output)."""
    torch = pytest.importorskip("torch")
    for L, FF in (_lib(torch, 0), _lib(torch, 1)):
        leaf = L.tensor(_X, requires_grad=True)
        x = leaf.sigmoid() * 1  # a non-leaf in (0, 1), so the in-place write is allowed
        loss = {"mse": lambda: FF.mse_loss(x, L.tensor(_Y)),
                "bce": lambda: FF.binary_cross_entropy(x, L.tensor(_T)),
                "nll": lambda: FF.nll_loss(x, L.tensor(_CLS)),
                "ce": lambda: FF.cross_entropy(x, L.tensor(_CLS))}[which]()
        x.mul_(0.5)
        if which != "ce":
            with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has "
                                                   "been modified by an inplace operation"):
                loss.backward()
        else:
            loss.backward()


def test_nll_all_ignored_is_nan_like_torch():
    torch = pytest.importorskip("torch")
    outs = []
    for L, FF in (_lib(torch, 0), _lib(torch, 1)):
        x = L.tensor(_X, requires_grad=True)
        out = FF.nll_loss(x, L.tensor([1, 1, 1]), ignore_index=1)
        out.backward()
        outs.append((float(out.detach()), x.grad.cpu().numpy()))
    assert np.isnan(outs[0][0]) and np.isnan(outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1])


# ---- gradchecks of the new nodes (float64, no torch) ----------------------------------------------

def _f64(a, rg=True):
    return framework.tensor(np.asarray(a, dtype=np.float64), requires_grad=rg)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradcheck_mse_loss(reduction):
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (_f64(_X), _f64(_Y)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradcheck_binary_cross_entropy(reduction):
    w = framework.tensor(_W4)
    assert gradcheck(lambda p, t: F.binary_cross_entropy(p, t, weight=w, reduction=reduction),
                     (_f64(_P * 0.8 + 0.1), _f64(_T)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", ["1d", "2d", "4d", "3d"])
def test_gradcheck_nll_loss(reduction, shape):
    x, t = {"1d": (_X[0], np.array(1)), "2d": (_X, np.array([0, 2, 3])), "4d": (_X4, _T4), "3d": (_X3, _T3)}[shape]
    w = framework.tensor(_W4)
    t = framework.tensor(t)
    assert gradcheck(lambda a: F.nll_loss(a, t, weight=w, ignore_index=2, reduction=reduction), (_f64(x),))


def test_gradcheck_loss_double_backward():
    """The nodes' backward is differentiable: the create_graph gradient has the right derivative."""
    t = framework.tensor(np.array([0, 2, 3]))

    def mse_grad(a):
        (g,) = framework.autograd.grad(F.mse_loss(a * a, _f64(_Y, False)), (a,), create_graph=True)
        return g

    def nll_grad(a):
        (g,) = framework.autograd.grad(F.cross_entropy(a, t), (a,), create_graph=True)
        return g

    def bce_grad(a):
        (g,) = framework.autograd.grad(F.binary_cross_entropy(a, _f64(_T, False)), (a,), create_graph=True)
        return g
    assert gradcheck(mse_grad, (_f64(_X),))
    assert gradcheck(nll_grad, (_f64(_X),))
    assert gradcheck(bce_grad, (_f64(_P * 0.8 + 0.1),))


def test_gradcheck_masked_fill_inplace():
    mask = framework.tensor(_X > 0)

    def f(a):
        b = a * 1
        b.masked_fill_(mask, 0.5)
        return b
    assert gradcheck(f, (_f64(_Y),))


# ---- graph shapes of other ops -----------------------------------------------------------------------

def _graph_cases():
    def R(L, *s):
        return L.tensor(_rng.standard_normal(s), requires_grad=True)

    def masked_fill_(L):
        a = R(L, 3, 4) * 1
        return a.masked_fill_(a.detach() > 0, 0.0)

    def masked_fill_tensor_value(L):
        a = R(L, 3, 4) * 1
        return a.masked_fill_(a.detach() > 0, L.tensor(2.0))
    def masked_fill_grad_value(L):
        a = R(L, 3, 4) * 1
        return a.masked_fill_(a.detach() > 0, R(L) * 2)

    def masked_fill_out_of_place(L):
        a = R(L, 3, 4)
        return a.masked_fill(a.detach() > 0, L.tensor(2.0))

    return {"masked_fill_": masked_fill_, "masked_fill_tensor_value": masked_fill_tensor_value,
            "masked_fill_grad_value": masked_fill_grad_value, "masked_fill_out_of_place": masked_fill_out_of_place}


@pytest.mark.parametrize("case", list(_graph_cases()))
def test_graph_names_and_version_match_torch(case):
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        out = _graph_cases()[case](L)
        got.append((chain(out, 5), out._version, out.requires_grad, out.is_leaf))
    assert got[0] == got[1]


def test_gradcheck_masked_fill_tensor_value():
    mask = framework.tensor(_X > 0)

    def f(a, v):
        b = a.masked_fill(mask, v)
        c = a * 1
        c.masked_fill_(~mask, v * 2)
        return b + c
    assert gradcheck(f, (_f64(_Y), _f64(0.3)))


# ---- matmul, linear, reshape -----------------------------------------------------------------------

_MATMUL_SHAPES = [((3,), (3, 4)), ((3, 4), (4,)), ((3,), (3,)), ((2, 3, 4), (4,)), ((3,), (2, 3, 4)),
                  ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((3, 4), (4, 5)),
                  ((2, 2, 3, 4), (4,)), ((3,), (2, 2, 3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((5, 3, 4), (2, 1, 4, 2))]


@pytest.mark.parametrize("sa,sb", _MATMUL_SHAPES)
def test_matmul_graph_version_values_and_grads_match_torch(sa, sb):
    torch = pytest.importorskip("torch")
    a0, b0 = _rng.standard_normal(sa), _rng.standard_normal(sb)
    got = []
    for L in (framework, torch):
        a, b = L.tensor(a0, requires_grad=True), L.tensor(b0, requires_grad=True)
        out = a @ b
        meta = (chain(out, 6), out._version, out._base is not None, tuple(out.shape))
        (out * out).sum().backward()
        got.append((meta, out.detach().cpu().numpy(), a.grad.cpu().numpy(), b.grad.cpu().numpy()))
    assert got[0][0] == got[1][0]
    for x, y in zip(got[0][1:], got[1][1:]):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sa,sb", [s for s in _MATMUL_SHAPES if len(s[0]) + len(s[1]) > 2])
def test_gradcheck_matmul_compositions(sa, sb):
    assert gradcheck(lambda a, b: a @ b, (_f64(_rng.standard_normal(sa)), _f64(_rng.standard_normal(sb))))


def _linear_inputs():
    return {"1d": (3,), "2d": (2, 3), "3d": (5, 2, 3), "4d": (2, 2, 2, 3), "3d_noncontig": "nc"}


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", list(_linear_inputs()))
def test_linear_graph_values_and_grads_match_torch(case, bias):
    torch = pytest.importorskip("torch")
    shape = _linear_inputs()[case]
    x0 = _rng.standard_normal((5, 3, 2) if shape == "nc" else shape)
    w0, b0 = _rng.standard_normal((4, 3)), _rng.standard_normal(4)
    got = []
    for L in (framework, torch):
        x, w, b = (L.tensor(v, requires_grad=True) for v in (x0, w0, b0))
        xin = x.transpose(-1, -2) if shape == "nc" else x
        out = L.nn.functional.linear(xin, w, b if bias else None)
        meta = (chain(out, 5), out._version, tuple(out.shape))
        (out * out).sum().backward()
        got.append((meta, out.detach().cpu().numpy(), x.grad.cpu().numpy(), w.grad.cpu().numpy(),
                    b.grad.cpu().numpy() if bias else None))
    assert got[0][0] == got[1][0]
    for x, y in zip(got[0][1:], got[1][1:]):
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_linear_weight_grad_is_c_ordered():
    """addmm's backward computes weight.t()'s gradient transposed, so weight.grad is C-ordered (as torch's)."""
    w = framework.randn(4, 3, requires_grad=True)
    F.linear(framework.randn(2, 3), w, framework.zeros(4)).sum().backward()
    assert w.grad.cpu().numpy().flags.c_contiguous


def test_gradcheck_linear_addmm():
    x, w, b = _f64(_rng.standard_normal((5, 2, 3))), _f64(_rng.standard_normal((4, 3))), _f64(_rng.standard_normal(4))
    assert gradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))
    assert gradcheck(lambda x, w, b: F.linear(x[0, 0], w, b), (x, w, b))
    assert gradcheck(lambda x, w, b: F.linear(x.transpose(-1, -2).transpose(-1, -2)[:, :, :3], w, b), (x, w, b))


def _reshape_cases():
    return {"contiguous": lambda t: t.reshape(12), "same_shape": lambda t: t.reshape(3, 4),
            "transposed_same": lambda t: t.t().reshape(4, 3), "sliced_viewable": lambda t: t[:, ::2].reshape(6),
            "transposed_copy": lambda t: t.t().reshape(-1), "flatten_copy": lambda t: t.t().flatten(),
            "flatten_viewable": lambda t: t[:, ::2].flatten(), "expanded_copy": lambda t: t[:, :1].expand(3, 4).reshape(12),
            "permuted_viewable": lambda t: t.reshape(2, 3, 2).permute(2, 0, 1).reshape(2, 6),
            "size_one_dims": lambda t: t[:1].t().reshape(4)}


@pytest.mark.parametrize("case", list(_reshape_cases()))
def test_reshape_graph_and_aliasing_match_torch(case):
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        leaf = L.tensor(_rng.standard_normal((3, 4)), requires_grad=True)
        out = _reshape_cases()[case](leaf)
        got.append((chain(out, 5), out._base is not None, tuple(out.shape)))
    assert got[0] == got[1]


def test_gradcheck_reshape_paths():
    for fn in _reshape_cases().values():
        assert gradcheck(fn, (_f64(_rng.standard_normal((3, 4))),))


# ---- gradients accumulated into .grad ----------------------------------------------------------------

def _grad_cases():
    def plain_twice(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        (x * x).sum().backward()  # accumulates in place: grad's _version 1
        return x.grad

    def create_graph_leaf(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)  # empty.copy_(g): CopyBackwards, _version 1
        return x.grad

    def create_graph_twice(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        (x * x).sum().backward(create_graph=True)
        return x.grad

    def create_graph_constant_grad(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward(create_graph=True)
        return x.grad

    def retained_create_graph(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)  # retain_grad clones: CloneBackward0
        return y.grad

    return {"plain_twice": plain_twice, "create_graph_leaf": create_graph_leaf,
            "create_graph_twice": create_graph_twice, "create_graph_constant_grad": create_graph_constant_grad,
            "retained_create_graph": retained_create_graph}


@pytest.mark.parametrize("case", list(_grad_cases()))
def test_accumulated_grad_graph_and_version_match_torch(case):
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = _grad_cases()[case](L)
        got.append((chain(g, 4), g._version, g.requires_grad, g.detach().cpu().numpy().tolist()))
    assert got[0] == got[1]


def test_linear_version_error_names_the_regenerated_view_node():
    """addmm saves weight.t(); after optimizer.step() changed weight, the error names the view's regenerated node
    as torch does (AsStridedBackward0, shortened to "AsStrided" in this message)."""
    w = framework.nn.Parameter(framework.randn(2, 2))
    out = F.linear(framework.randn(2, requires_grad=True), w, framework.zeros(2))
    with framework.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[framework\.FloatTensor \[2, 2\]\], "
                                           r"which is output 0 of AsStrided, is at version 1; expected version 0 "
                                           r"instead\."):
        out.sum().backward()


# ---- double backward ---------------------------------------------------------------------------------

def _double_cases():
    return {"sigmoid": lambda x: x.sigmoid(), "tanh": lambda x: x.tanh(), "relu": lambda x: x.relu(),
            "relu_": lambda x: (x * 1).relu_(), "softmax": lambda x: x.softmax(0),
            "log_softmax": lambda x: x.log_softmax(0), "exp": lambda x: x.exp(), "pow": lambda x: x ** 3,
            "sqrt": lambda x: x.sqrt(), "reciprocal": lambda x: 1 / x, "abs": lambda x: x.abs() * x,
            "mul": lambda x: x * x, "log": lambda x: x.log(), "sin": lambda x: x.sin()}


@pytest.mark.parametrize("how", ["grad", "backward"])
@pytest.mark.parametrize("case", list(_double_cases()))
def test_double_backward_graph_matches_torch(case, how):
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        x = L.tensor([0.5, 1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        y = _double_cases()[case](x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if how == "grad":
                (g,) = L.autograd.grad((y * L.tensor([1.0, -2.0, 3.0, 0.5], dtype=L.float64)).sum(), x,
                                       create_graph=True)
            else:
                (y * L.tensor([1.0, -2.0, 3.0, 0.5], dtype=L.float64)).sum().backward(create_graph=True)
                g = x.grad
        meta = (chain(g, 4), g._version, g.requires_grad)
        (gg,) = L.autograd.grad((g * g).sum(), x, allow_unused=True) if g.requires_grad else (None,)
        got.append((meta, g.detach().cpu().numpy(), None if gg is None else gg.cpu().numpy()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12)
    if got[1][2] is None:
        assert got[0][2] is None
    else:
        np.testing.assert_allclose(got[0][2], got[1][2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "relu", "softmax", "log_softmax"])
def test_gradcheck_double_backward_nodes(name):
    """The gradient (a double-backward node) has correct derivatives: gradcheck of x -> grad(f)(x) * v."""
    f = _double_cases()[name]
    v = framework.tensor([1.0, -2.0, 3.0, 0.5], dtype=framework.float64)

    def grad_of(x, u):
        (g,) = framework.autograd.grad((f(x) * u).sum(), x, create_graph=True)
        return g * v
    x = _f64([0.5, -1.0, 2.0, 3.0] if name != "relu" else [0.5, -1.0, 2.0, -3.0])
    assert gradcheck(grad_of, (x, _f64([0.3, 0.7, -1.1, 2.0])))


# ---- setitem with tensor values -----------------------------------------------------------------------

def _setitem_cases():
    def R(L, *s):
        return L.tensor(_rng.standard_normal(s), requires_grad=True)

    def case(idx, value_shape):
        def f(L):
            a = R(L, 3, 4) * 1
            i = idx(L, a) if callable(idx) else idx
            a[i] = R(L, *value_shape)
            return a
        return f
    return {"int_same": case(1, (4,)), "int_broadcast": case(1, (1,)), "int_0d": case(1, ()),
            "int_lead_ones": case(1, (1, 4)), "slice": case(slice(0, 2), (2, 4)),
            "slice_broadcast": case(slice(0, 2), (4,)), "column": case((slice(None), 1), (3,)),
            "ellipsis": case(Ellipsis, (3, 4)), "ellipsis_broadcast": case(Ellipsis, (1, 4)),
            "mask": case(lambda L, a: a.detach() > 0, (1,)),
            "index_tensor": case(lambda L, a: L.tensor([0, 2]), (4,)),
            "index_tensor_lead_ones": case(lambda L, a: L.tensor([0, 2]), (1, 1, 4))}


@pytest.mark.parametrize("case", list(_setitem_cases()))
def test_setitem_graph_values_and_grads_match_torch(case):
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        global _rng
        _rng = np.random.default_rng(5)
        a = _setitem_cases()[case](L)
        meta = (chain(a, 5), a._version)
        leaves = [fn.variable for fn, _ in _leaf_edges(a.grad_fn)]
        (a * a).sum().backward()
        got.append((meta, a.detach().cpu().numpy(), [leaf.grad.cpu().numpy() for leaf in leaves]))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1])
    for x, y in zip(got[0][2], got[1][2]):
        np.testing.assert_allclose(x, y)


def _leaf_edges(fn, seen=None):
    """AccumulateGrad edges reachable from fn, in next_functions order (depth first)."""
    seen = set() if seen is None else seen
    out = []
    for nxt, nr in fn.next_functions:
        if nxt is None or id(nxt) in seen:
            continue
        seen.add(id(nxt))
        if hasattr(nxt, "variable"):
            out.append((nxt, nr))
        else:
            out.extend(_leaf_edges(nxt, seen))
    return out


def test_setitem_number_into_0d_is_copy_like_torch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        t = L.tensor(3.0, requires_grad=True) * 1
        t[...] = 5.0
        got.append((chain(t, 2), t._version, t.item()))
    assert got[0] == got[1]


def test_setitem_leading_ones_value_into_0d_slot_like_torch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        t = L.tensor([1.0], requires_grad=True) * 1
        t[0] = t
        v = L.tensor(2.0, requires_grad=True) * 1
        v[()] = L.tensor([5.0], requires_grad=True)
        got.append((chain(t, 3), t._version, t.tolist(), chain(v, 3), v.item()))
    assert got[0] == got[1]


def test_binary_cross_entropy_rejects_nan_input_like_torch():
    torch = pytest.importorskip("torch")
    for L, FF in (_lib(torch, 0), _lib(torch, 1)):
        with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
            FF.binary_cross_entropy(L.tensor([0.5, float("nan")]), L.tensor([1.0, 0.0]))


def test_0d_output_saved_by_its_op_is_tracked_like_torch():
    """tanh of a 0-d tensor saves its output: a create_graph gradient depends on it, and an in-place change
    of the output is caught at backward (numpy's ufuncs return scalars for 0-d inputs)."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        x = L.tensor(-0.36, requires_grad=True)
        y = L.tanh(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.backward(create_graph=True, inputs=[x])
        got.append((chain(x.grad, 3), x.grad.requires_grad))
        y2 = L.tanh(L.tensor(0.5, requires_grad=True))
        y2.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y2.backward()
    assert got[0] == got[1]


def test_non_leaf_inputs_grad_is_cloned_like_torch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (framework, torch):
        t0 = L.tensor(1.64, dtype=L.float64, requires_grad=True)
        t1 = t0.reshape(())
        t2 = t1.reshape(())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (t2 * t2).sum().backward(create_graph=True, inputs=[t1, t2])
        got.append((chain(t1.grad, 3), chain(t2.grad, 3), t1.grad._version, t1.grad.item()))
    assert got[0] == got[1]
