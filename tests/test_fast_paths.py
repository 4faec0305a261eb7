"""Fast paths give exactly what the plain formulas (and torch) give: views' own apply path, relu through a zero
buffer, relu's backward as a bit mask, an outer product as a multiply, zeros and full buffers replayed as a fill,
maximum's output passed by keyword; relu and clamp keep torch's sign of zero."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework import nn, optim
from framework.ops.backward_ops import threshold_grad
from framework.ops.linalg.blas import _mm

SPECIAL = [-0.0, 0.0, float("nan"), -1.0, 2.0, -float("inf"), float("inf"), 1e-30, -1e-30]


def _values(n, dtype):
    """The special values first, then random ones: n = 1000 reaches numpy's SIMD loops, n = 9 the scalar ones."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(dtype)
    x[:len(SPECIAL)] = SPECIAL
    return x


@pytest.mark.parametrize("n", [len(SPECIAL), 1000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_matches_torch_bit_for_bit_sign_of_zero_and_nan(n, dtype):
    torch = pytest.importorskip("torch")
    x = _values(n, dtype)
    ours = framework.relu(framework.from_numpy(x.copy())).numpy()
    theirs = torch.relu(torch.from_numpy(x.copy())).numpy()
    assert ours.tobytes() == theirs.tobytes()  # relu(-0.0) is -0.0, relu(nan) is nan, as torch
    assert np.signbit(ours[0])


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_backward_is_exactly_zero_where_dropped_even_for_infinite_grads(create_graph, dtype):
    torch = pytest.importorskip("torch")
    x = _values(len(SPECIAL), dtype)
    g = np.array([np.inf, np.nan, 5.0, -np.inf, 3.0, np.nan, 1.0, 2.0, -np.inf], dtype=dtype)
    out = []
    for m, make in ((framework, framework.from_numpy), (torch, torch.from_numpy)):
        xt = make(x.copy()).requires_grad_()
        gt = make(g.copy()).requires_grad_(create_graph)
        (gx,) = m.autograd.grad(m.relu(xt), xt, gt, create_graph=create_graph)
        out.append(gx.detach().numpy())
    assert out[0].tobytes() == out[1].tobytes()  # 0 at dropped places (not nan from inf * 0); nan input passes g


def test_threshold_grad_equals_where_for_every_layout_and_dtype():
    rng = np.random.default_rng(1)
    y = rng.standard_normal((6, 5)).astype(np.float32)
    y[0, :3] = [np.nan, -0.0, 0.0]
    g = rng.standard_normal((6, 5)).astype(np.float32)
    g[1, :2] = [np.inf, -np.inf]
    for gg, yy in ((g, y), (g.T, y.T), (g[::2], y[::2]), (g.astype(np.float64), y), (g.astype(np.int64), y)):
        want = np.where(np.logical_not(yy <= 0), gg, 0).astype(gg.dtype)
        got = threshold_grad(gg, yy)
        assert got.dtype == gg.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shapes", [((256, 1), (1, 128)), ((3, 1), (1, 0)), ((0, 1), (1, 4)), ((5, 2), (2, 3))])
def test_outer_product_as_multiply_is_bit_equal_to_matmul(shapes):
    rng = np.random.default_rng(2)
    for dtype in (np.float32, np.float64):
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
        got, want = _mm(a, b), a @ b
        assert got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_linear_to_one_output_backward_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((7, 4)), rng.standard_normal((1, 4)), rng.standard_normal(1)
    grads = []
    for m in (framework, torch):
        h = m.tensor(x, requires_grad=True)
        h2 = m.nn.functional.linear(h, m.tensor(w), m.tensor(b))  # D's last layer: its input grad is an outer product
        m.nn.functional.linear(h2, m.tensor(w.T.copy()), None).sum().backward()  # and a layer from 1 input
        grads.append(h.grad.cpu().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=0)


def _step():
    framework.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Linear(16, 3))
    opt = optim.Adam(model.parameters(), lr=1e-2)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return model, step


@pytest.mark.explicit_device  # compile records NumPy steps only
def test_replay_fills_zero_buffers_and_passes_maximum_its_output_by_keyword():
    rng = np.random.default_rng(4)
    x = framework.from_numpy(rng.standard_normal((8, 6)).astype(np.float32))
    y = framework.from_numpy(rng.integers(0, 3, 8))
    eager_model, eager_step = _step()
    model, step = _step()
    compiled = framework.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # numpy 2.4 warns on maximum(a, b, out) positional
        for _ in range(4):
            assert float(compiled(x, y)) == float(eager_step(x, y))
    assert compiled.replays >= 2
    rec = [r for r in compiled.cache.values() if not isinstance(r, str)][-1]
    for name, value in (("np.zeros_like", 0), ("np.full_like", 0.2)):  # relu's zeros, leaky relu's slopes
        fills = [call for call, text in zip(rec.calls, rec.texts) if text == name]
        assert fills and all(fn is np.copyto and args[1] == value for fn, args, _ in fills)  # a fill, not a new array
    maxima = [call for call in rec.calls if call[0] is np.maximum]
    assert maxima and all("out" in kw for _, _, kw in maxima)
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


@pytest.mark.parametrize("bounds", [dict(min=0.0), dict(max=-0.0), dict(min=0.0, max=1.0), dict(min=1.0, max=0.0),
                                    dict(min=-0.0), dict(max=0.0)])
@pytest.mark.parametrize("n", [len(SPECIAL), 1000])
def test_clamp_matches_torch_bit_for_bit_sign_of_zero_and_nan(bounds, n):
    torch = pytest.importorskip("torch")
    x = _values(n, "float32")
    ours = framework.clamp(framework.from_numpy(x.copy()), **bounds).numpy()
    theirs = torch.clamp(torch.from_numpy(x.copy()), **bounds).numpy()
    assert ours.tobytes() == theirs.tobytes()  # np.clip made clamp(-0.0, min=0) +0.0
    inplace = framework.from_numpy(x.copy())
    inplace.clamp_(**bounds)
    assert inplace.numpy().tobytes() == theirs.tobytes()


# ---- views' own apply path (function.py's _apply_view) against the general Function.apply ----------------------

def _general_apply(cls, *args):
    """Function.apply as every op took it before the view fast path: the reference the fast path must equal."""
    from framework.autograd.function import Function
    return Function.__dict__["apply"].__func__(cls, *args)


def _view_cases():
    from framework.ops.indexing import subscript as indexing
    from framework.ops.shape import diagonals as shape_more, views
    return [("t", views.T, ()), ("transpose", views.Transpose, (0, 1)), ("view", views.View, ((6,),)),
            ("unsqueeze", views.Unsqueeze, (1,)), ("expand", views.Expand, ((4, 2, 3),)), ("alias", views.Alias, ()),
            ("permute", views.Permute, ((1, 0),)), ("reshape_alias", views.ReshapeAlias, ((3, 2),)),
            ("select", indexing.Select, (1, 2)), ("slice", indexing.Slice, (1, slice(0, 2))),
            ("diagonal", shape_more.Diagonal, (0, 0, 1))]


def _meta(t):
    fn = t._grad_fn
    return (t.shape, t.requires_grad, t.is_leaf, t._base is not None, t.is_inference(),
            None if t.is_inference() else t._version, t._creation_meta,
            None if fn is None else (fn.name(), len(fn.next_functions),
                                     [type(n).__name__ if n is not None else None for n, _ in fn.next_functions]))


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference", "no_requires_grad", "view_of_view"])
@pytest.mark.parametrize("case", _view_cases(), ids=lambda c: c[0])
def test_view_fast_path_equals_the_general_apply(case, mode):
    name, cls, rest = case
    results = []
    data = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    for apply in (cls.apply, lambda *a: _general_apply(cls, *a)):
        ctx = framework.inference_mode() if mode == "inference" else \
            framework.no_grad() if mode == "no_grad" else framework.enable_grad()
        with ctx:
            leaf = framework.tensor(data, requires_grad=mode != "no_requires_grad")
            src = leaf * 1 if mode != "view_of_view" else (leaf * 1)[:, :]
            out = apply(src, *rest)
        results.append((out, _meta(out)))
        assert out._version_counter is src._version_counter or mode == "inference"
        if out.requires_grad and out.grad_fn is not None:
            out.sum().backward()
            results[-1] += (leaf.grad.cpu().numpy().copy(),)
    (a, meta_a, *grad_a), (b, meta_b, *grad_b) = results
    assert meta_a == meta_b
    np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    assert [g.tobytes() for g in grad_a] == [g.tobytes() for g in grad_b]


def test_t_backward_gives_a_c_ordered_weight_grad_through_a_view_of_the_incoming_gradient():
    lin = nn.Linear(3, 4)
    x = framework.randn(5, 3)
    seen = {}
    t_node = None

    out = lin(x)
    t_node = out.grad_fn.next_functions[2][0]
    assert t_node.name() == "TBackward0"
    t_node.register_hook(lambda grad_inputs, grad_outputs: seen.update(g=grad_inputs[0]))
    out.sum().backward()
    assert seen["g"].shape == (4, 3) and seen["g"]._base is not None  # a view of the gradient, as grad.t() is
    assert lin.weight.grad.is_contiguous()
    torch = pytest.importorskip("torch")
    tl = torch.nn.Linear(3, 4)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(lin.weight.detach().cpu().numpy()))
        tl.bias.copy_(torch.from_numpy(lin.bias.detach().cpu().numpy()))
    tl(torch.from_numpy(x.cpu().numpy())).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.cpu().numpy(), tl.weight.grad.numpy(), rtol=1e-6)
