"""F.grid_sample and F.affine_grid (ops/vision/grid_sampling.py), the spatial transformer's ops, against torch: values,
gradients to the input, the grid and theta, second derivatives, node names, errors; float64 gradchecks without
torch; a spatial-transformer training step under framework.compile."""
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
MODES = [(m, p, a) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection") for a in (True, False)]


def _np(t):
    return t.detach().cpu().numpy()


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, 3, 5, 6)), rng.uniform(-1.3, 1.3, (2, 4, 3, 2)),
            rng.standard_normal((2, 3, 4, 3)))


@pytest.mark.parametrize("mode,padding,align", MODES)
def test_grid_sample_values_gradients_and_double_backward_match_torch(mode, padding, align):
    x, g, gout = _inputs()
    outs = []
    for m in (framework, torch):
        xt, gt = m.tensor(x, requires_grad=True), m.tensor(g, requires_grad=True)
        y = m.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=padding, align_corners=align)
        gx, gg = m.autograd.grad(y, (xt, gt), m.tensor(gout, requires_grad=True), create_graph=True)
        (hx,) = m.autograd.grad((gg * gg).sum() + (gx * gx).sum(), xt, allow_unused=True)
        outs.append((y.grad_fn.name(), _np(y), _np(gx), _np(gg), np.zeros(x.shape) if hx is None else _np(hx)))
    assert outs[0][0] == outs[1][0]
    for o, t in zip(outs[0][1:], outs[1][1:]):  # (an unused input's second derivative: None or zeros, both 0)
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_and_a_spatial_transformer_match_torch(align):
    rng = np.random.default_rng(1)
    theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.2, 0.1, 0.0], [-0.1, 0.8, 0.3]]])
    x = rng.standard_normal((2, 1, 6, 5))
    outs = []
    for m in (framework, torch):
        th, xt = m.tensor(theta, requires_grad=True), m.tensor(x, requires_grad=True)
        grid = m.nn.functional.affine_grid(th, (2, 1, 4, 7), align_corners=align)
        y = m.nn.functional.grid_sample(xt, grid, align_corners=align)
        (y * y).sum().backward()
        outs.append((grid.grad_fn.name(), _np(grid), _np(y), _np(th.grad), _np(xt.grad)))
    assert outs[0][0] == outs[1][0]
    for o, t in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


def test_gradchecks_without_torch():
    x, g, _ = _inputs(2)
    xt = framework.tensor(x[:1, :2, :4, :4], requires_grad=True)
    gt = framework.tensor(g[:1, :2, :2] * 0.9 + 0.013, requires_grad=True)  # away from pixel edges (floor)
    for padding in ("zeros", "border", "reflection"):
        fn = lambda a, b: framework.nn.functional.grid_sample(a, b, padding_mode=padding,  # noqa: E731
                                                              align_corners=False)
        assert gradcheck(fn, [xt, gt])
        assert gradgradcheck(fn, [xt, gt])
    theta = framework.tensor(np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]]), requires_grad=True)
    assert gradcheck(lambda t: framework.nn.functional.affine_grid(t, (1, 1, 3, 4), align_corners=True), [theta])


def test_errors_and_the_default_warning_match_torch():
    cases = [lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), mode="x"),
             lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), padding_mode="y"),
             lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 3), align_corners=False),
             lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(2, 2, 2, 2), align_corners=False),
             lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2, dtype=m.float64),
                                                   align_corners=False),
             lambda m: m.nn.functional.affine_grid(m.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False),
             lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 2), align_corners=False),
             lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3, dtype=m.int64), (1, 1, 2, 2),
                                                   align_corners=False)]
    for fn in cases:
        errors = []
        for m in (framework, torch):
            try:
                fn(m)
                errors.append(None)
            except Exception as e:  # noqa: BLE001 - compared with torch's
                errors.append((type(e).__name__, str(e).replace("torch.", "framework.")))
        assert errors[0] == errors[1] and errors[0] is not None
    for m in (framework, torch):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2))


@pytest.mark.explicit_device  # framework.compile records NumPy steps
def test_a_spatial_transformer_step_replays_under_compile_bit_for_bit():
    rng = np.random.default_rng(3)
    xs = [framework.tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32)) for _ in range(5)]

    def build():
        framework.manual_seed(0)
        loc = framework.nn.Linear(36, 6)
        with framework.no_grad():
            loc.weight.mul_(0.01)
            loc.bias.copy_(framework.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]))
        return loc, framework.optim.SGD(loc.parameters(), lr=0.1)

    def make_step(loc, opt):
        def step(x):
            opt.zero_grad()
            theta = loc(x.flatten(1)).view(-1, 2, 3)
            grid = framework.nn.functional.affine_grid(theta, (2, 1, 6, 6), align_corners=False)
            loss = framework.nn.functional.grid_sample(x, grid, align_corners=False).pow(2).mean()
            loss.backward()
            opt.step()
            return loss
        return step

    loc, opt = build()
    compiled = framework.compile(make_step(loc, opt))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no graph break
        replayed = [compiled(x).item() for x in xs]
    assert compiled.replays >= 3
    loc2, opt2 = build()
    eager = [make_step(loc2, opt2)(x).item() for x in xs]
    assert replayed == eager
    assert np.array_equal(_np(loc.weight), _np(loc2.weight))
