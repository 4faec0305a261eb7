"""F.interpolate's modes beyond nearest/(bi)linear: nearest-exact (1-3 D), bicubic, area (torch's adaptive average
pools), antialiased bilinear / bicubic and lanczos.  Values and gradients against torch (float64 to 1e-12), node
names (also the create_graph backward's), torch's errors and warnings word for word, float64 gradchecks without
torch, the nn layers, and a compiled step replaying them."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework.testing import gradcheck, gradgradcheck
from scenario import error_of

# (input shape, interpolate's keyword arguments); no (C, W) = (1, 1) inputs: torch reads those as channels-last
CASES = [
    ((2, 3, 7), dict(mode="nearest-exact", size=11)),
    ((2, 3, 7), dict(mode="nearest-exact", scale_factor=0.6)),
    ((2, 3, 5, 7), dict(mode="nearest-exact", size=(9, 4))),
    ((2, 3, 5, 7), dict(mode="nearest-exact", scale_factor=1.37)),
    ((2, 3, 5, 7), dict(mode="nearest-exact", scale_factor=(1.7, 0.5), recompute_scale_factor=True)),
    ((1, 2, 3, 4, 5), dict(mode="nearest-exact", scale_factor=(0.7, 2, 1.5))),
    ((1, 2, 3, 4, 5), dict(mode="nearest-exact", size=(5, 3, 8))),
    ((2, 3, 5, 7), dict(mode="bicubic", size=(9, 4))),
    ((2, 3, 5, 7), dict(mode="bicubic", size=(9, 4), align_corners=True)),
    ((2, 3, 5, 7), dict(mode="bicubic", scale_factor=1.7)),
    ((2, 3, 5, 7), dict(mode="bicubic", scale_factor=(0.6, 2.3), recompute_scale_factor=True)),
    ((2, 3, 5, 7), dict(mode="bicubic", size=(1, 2))),
    ((2, 3, 5, 7), dict(mode="bicubic", size=(1, 2), align_corners=True)),
    ((2, 3, 13), dict(mode="area", scale_factor=0.4)),
    ((2, 3, 13), dict(mode="area", size=1)),
    ((2, 3, 13, 11), dict(mode="area", size=(5, 7))),
    ((2, 3, 13, 11), dict(mode="area", scale_factor=0.5)),
    ((2, 3, 13, 11), dict(mode="area", size=1)),
    ((1, 2, 4, 5, 6), dict(mode="area", size=(3, 2, 4))),
    ((1, 2, 4, 5, 6), dict(mode="area", size=1)),
    ((2, 3, 13, 11), dict(mode="bilinear", size=(4, 3), antialias=True)),
    ((2, 3, 13, 11), dict(mode="bilinear", scale_factor=0.37, antialias=True)),
    ((2, 3, 13, 11), dict(mode="bilinear", size=(5, 20), antialias=True, align_corners=True)),
    ((2, 3, 13, 11), dict(mode="bicubic", size=(4, 3), antialias=True)),
    ((2, 3, 13, 11), dict(mode="bicubic", size=(4, 3), antialias=True, align_corners=True)),
    ((2, 3, 13, 11), dict(mode="bicubic", size=(17, 3), antialias=True)),
    ((2, 3, 13, 11), dict(mode="bicubic", scale_factor=(0.3, 0.5), antialias=True)),
    ((2, 3, 20, 11), dict(mode="lanczos", size=(6, 15), antialias=True)),
    ((2, 3, 5, 7), dict(mode="nearest", scale_factor=1.37)),
]
# sizes where torch's nearest kernels pick a source pixel that float64 arithmetic does not (forward: floorf of the
# opmath product; backward: float32 scale and product, so its map is not the forward's transpose there)
FLOAT32_PICKS = [
    ((2, 3, 26), dict(mode="nearest", size=22)),
    ((1, 2, 14, 6), dict(mode="nearest", size=(46, 74))),
    ((2, 3, 3), dict(mode="nearest", scale_factor=2.2)),
    ((1, 2, 4, 18), dict(mode="nearest-exact", size=(41, 20))),
    ((1, 2, 3, 18), dict(mode="nearest-exact", scale_factor=(1.0, 2.7))),
]
SMOOTH_IDS = [f"{len(s) - 2}d-" + "-".join(f"{k}={v}" for k, v in kw.items()) for s, kw in CASES]
CASES = CASES + FLOAT32_PICKS
IDS = [f"{len(s) - 2}d-" + "-".join(f"{k}={v}" for k, v in kw.items()) for s, kw in CASES]


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a, framework.tensor(a, requires_grad=True)


@pytest.mark.parametrize("shape, kw", CASES, ids=IDS)
def test_values_gradients_and_names_match_torch(shape, kw):
    torch = pytest.importorskip("torch")
    a, x = _pair(shape)
    xt = torch.tensor(a, requires_grad=True)
    y, yt = F.interpolate(x, **kw), torch.nn.functional.interpolate(xt, **kw)
    assert tuple(y.shape) == tuple(yt.shape)
    np.testing.assert_allclose(y.detach().cpu().numpy(), yt.detach().cpu().numpy(), rtol=0, atol=1e-12)
    assert y.grad_fn.name() == yt.grad_fn.name()
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    y.backward(framework.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.cpu().numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape, kw", CASES, ids=IDS)
def test_create_graph_backward_is_torchs_node(shape, kw):
    """Under create_graph the backward is a node (``*BackwardBackward0``) linear in the incoming gradient."""
    torch = pytest.importorskip("torch")
    a, x = _pair(shape)
    xt = torch.tensor(a, requires_grad=True)
    (g,) = framework.autograd.grad(F.interpolate(x, **kw).pow(2).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.interpolate(xt, **kw).pow(2).sum(), xt, create_graph=True)
    assert g.grad_fn.name() == gt.grad_fn.name()
    w = np.random.default_rng(2).standard_normal(shape)
    (gg,) = framework.autograd.grad((g * framework.tensor(w)).sum(), x)
    (ggt,) = torch.autograd.grad((gt * torch.tensor(w)).sum(), xt)
    np.testing.assert_allclose(gg.cpu().numpy(), ggt.cpu().numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape, kw", [c for c in CASES[:len(SMOOTH_IDS)] if min(c[0][2:]) <= 7], ids=[
    i for i, c in zip(SMOOTH_IDS, CASES) if min(c[0][2:]) <= 7])
def test_gradcheck_and_gradgradcheck(shape, kw):
    small = shape[:1] + (1,) + shape[2:]
    _, x = _pair(small)
    assert gradcheck(lambda t: F.interpolate(t, **kw), [x])
    assert gradgradcheck(lambda t: F.interpolate(t, **kw).pow(2), [x])


@pytest.mark.parametrize("shape, kw", FLOAT32_PICKS + [((2, 3, 5, 7), dict(mode="nearest-exact", size=(9, 4)))])
def test_nearest_float32_inputs_pick_torchs_pixels(shape, kw):
    """float32 inputs: the forward's arithmetic is float32 too, so values and gradients equal torch's exactly."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x, xt = framework.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, yt = F.interpolate(x, **kw), torch.nn.functional.interpolate(xt, **kw)
    assert np.array_equal(y.detach().cpu().numpy(), yt.detach().cpu().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(np.float32)
    y.backward(framework.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.cpu().numpy(), rtol=1e-5, atol=1e-5)  # float32 sums


def test_antialias_weights_gradcheck_without_torch():
    """The antialiased maps (the widest supports) against central differences, downsampling and upsampling."""
    _, x = _pair((1, 2, 9, 8))
    for mode in ("bilinear", "bicubic"):
        assert gradcheck(lambda t, mode=mode: F.interpolate(t, size=(4, 11), mode=mode, antialias=True), [x])
    assert gradcheck(lambda t: F.interpolate(t, size=(3, 5), mode="lanczos", antialias=True), [x])


def test_every_mode_keeps_constants():
    """Each row's weights sum to 1 (the border taps clamped, the antialiasing filters normalised)."""
    x = framework.full((1, 2, 6, 5), 3.0, dtype=framework.float64)
    for kw in (dict(mode="bicubic", size=(11, 3)), dict(mode="bicubic", size=(2, 2), antialias=True),
               dict(mode="bilinear", size=(4, 2), antialias=True), dict(mode="nearest-exact", size=(9, 9)),
               dict(mode="area", size=(4, 3)), dict(mode="lanczos", size=(4, 3), antialias=True)):
        np.testing.assert_allclose(F.interpolate(x, **kw).cpu().numpy(), 3.0, rtol=0, atol=1e-12)


ERRORS = {
    "align_corners with nearest-exact": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), scale_factor=2, mode="nearest-exact", align_corners=False),
    "align_corners with area": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), size=1, mode="area", align_corners=True),
    "antialias with nearest": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), scale_factor=2, antialias=True),
    "antialias with area": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), size=1, mode="area", antialias=True),
    "antialias on 5-D": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2, 2), size=1, mode="trilinear", antialias=True),
    "antialias bilinear on 3-D": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2), size=1, mode="bilinear", antialias=True),
    "bicubic on 3-D": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), size=3, mode="bicubic"),
    "bicubic on 5-D": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2, 2), size=3, mode="bicubic"),
    "bilinear on 3-D": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), size=3, mode="bilinear"),
    "linear on 5-D": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2, 2), size=3, mode="linear"),
    "2-D input": lambda m: m.nn.functional.interpolate(m.ones(2, 2), size=3, mode="nearest-exact"),
    "unknown mode": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=3, mode="cubic"),
    "size and scale": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=3, scale_factor=2),
    "neither size nor scale": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), mode="bicubic"),
    "recompute with size": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), size=3, mode="bicubic", recompute_scale_factor=True),
    "size of the wrong length": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=(3,), mode="area"),
    "scale of the wrong length": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 2, 2), scale_factor=(2, 2, 2), mode="nearest-exact"),
    "float size": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), size=(3, 2.5), mode="bicubic"),
    "empty output": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2), scale_factor=0.3, mode="bicubic"),
    "empty output 1-D": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2), size=0, mode="nearest-exact"),
    "lanczos without antialias": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), size=2, mode="lanczos"),
    "lanczos with align_corners": lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 4, 4), size=2, mode="lanczos", antialias=True, align_corners=True),
    "Upsample nearest-exact with align_corners": lambda m: m.nn.Upsample(
        scale_factor=2, mode="nearest-exact", align_corners=True)(m.ones(1, 1, 2, 2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = error_of(lambda: ERRORS[name](framework)), error_of(lambda: ERRORS[name](torch))
    assert theirs != ("ok",)
    assert ours == theirs


@pytest.mark.parametrize("fn", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_functions_warn_as_torch(fn):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    caught = {}
    for name, m in (("ours", framework), ("torch", torch)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = getattr(m.nn.functional, fn)(m.tensor(a), scale_factor=2)
        caught[name] = ([(type(x.message), str(x.message)) for x in w], out.cpu().numpy())
    assert [(c.__name__, t) for c, t in caught["ours"][0]] == [(c.__name__, t) for c, t in caught["torch"][0]]
    np.testing.assert_allclose(caught["ours"][1], caught["torch"][1], rtol=0, atol=1e-12)


LAYERS = [
    ("Upsample", dict(scale_factor=1.5, mode="nearest-exact"), (2, 3, 4)),
    ("Upsample", dict(size=(5, 7), mode="bicubic"), (2, 3, 4, 5)),
    ("Upsample", dict(scale_factor=2, mode="bicubic", align_corners=True), (2, 3, 4, 5)),
    ("Upsample", dict(size=(2, 3), mode="area"), (2, 3, 4, 5)),
    ("Upsample", dict(scale_factor=(0.5, 1.5, 2), mode="area"), (1, 2, 4, 4, 3)),
    ("UpsamplingNearest2d", dict(scale_factor=2), (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", dict(size=(3, 9)), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name, kw, shape", LAYERS, ids=[f"{n}-{kw}" for n, kw, _ in LAYERS])
def test_layers_pass_the_modes_through(name, kw, shape):
    torch = pytest.importorskip("torch")
    a, x = _pair(shape)
    xt = torch.tensor(a, requires_grad=True)
    layer, layer_t = getattr(framework.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(layer) == repr(layer_t)
    y, yt = layer(x), layer_t(xt)
    np.testing.assert_allclose(y.detach().cpu().numpy(), yt.detach().cpu().numpy(), rtol=0, atol=1e-12)
    assert y.grad_fn.name() == yt.grad_fn.name()
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.cpu().numpy(), rtol=0, atol=1e-12)


@pytest.mark.explicit_device
def test_a_compiled_step_replays_the_new_modes_bit_for_bit():
    def make():
        framework.manual_seed(0)
        conv = framework.nn.Conv2d(2, 3, 3, padding=1)
        opt = framework.optim.SGD(conv.parameters(), lr=0.05)

        def step(x):
            opt.zero_grad()
            y = conv(x)
            loss = (F.interpolate(y, scale_factor=1.5, mode="bicubic").pow(2).mean()
                    + F.interpolate(y, size=(3, 2), mode="bilinear", antialias=True).pow(2).mean()
                    + F.interpolate(y, size=(2, 3), mode="bicubic", antialias=True).mean()
                    + F.interpolate(y, scale_factor=1.7, mode="nearest-exact").pow(2).mean()
                    + F.interpolate(y, scale_factor=0.5, mode="area").pow(2).mean())
            loss.backward()
            opt.step()
            return loss.detach()
        return conv, step

    rng = np.random.default_rng(0)
    xs = [framework.tensor(rng.standard_normal((2, 2, 6, 5)).astype(np.float32)) for _ in range(4)]
    net_e, step_e = make()
    eager = [step_e(x).cpu().numpy() for x in xs]
    net_c, step_c = make()
    compiled = framework.compile(step_c, fullgraph=True)
    replay = [compiled(x).cpu().numpy() for x in xs]
    assert all(np.array_equal(a, b) for a, b in zip(eager, replay))
    for p, q in zip(net_e.parameters(), net_c.parameters()):
        assert np.array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())
