"""Pooling with indices, unpooling, 3-D / adaptive / LP pools (ops/pooling/pool_nd.py, nn/functional/pooling.py, nn/modules/pooling.py):
indices, values, gradients and grad_fn names against torch; second derivatives; module reprs; errors; compile.

First derivatives of each op against torch and their float64 gradchecks are the op-table rows (tests/op_table.py);
the second-derivative gradchecks below need no torch.
"""
import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework.testing import gradcheck
from scenario import outcome


def _np(t):
    return t.detach().cpu().numpy()


def _arrays(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# fn(m, x) -> (values, indices); the same text runs under framework and torch
WITH_INDICES = {
    "max_pool2d": (lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True), (2, 3, 6, 7)),
    "max_pool2d_pad_stride": (lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
                              (2, 3, 7, 7)),
    "max_pool2d_dilation_ceil": (lambda m, x: m.nn.functional.max_pool2d(x, (3, 2), (2, 1), (1, 1), dilation=(2, 3),
                                                                          ceil_mode=True, return_indices=True),
                                 (2, 2, 9, 8)),
    "max_pool2d_unbatched": (lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True), (3, 6, 7)),
    "max_pool2d_with_indices": (lambda m, x: m.nn.functional.max_pool2d_with_indices(x, 3, 1, 1), (1, 2, 5, 5)),
    "max_pool1d": (lambda m, x: m.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True), (2, 3, 9)),
    "max_pool1d_unbatched_ceil": (lambda m, x: m.nn.functional.max_pool1d(x, 2, ceil_mode=True,
                                                                           return_indices=True), (3, 9)),
    "max_pool1d_with_indices": (lambda m, x: m.nn.functional.max_pool1d_with_indices(x, 2, dilation=2), (2, 2, 9)),
    "max_pool3d": (lambda m, x: m.nn.functional.max_pool3d(x, 2, return_indices=True), (2, 2, 4, 5, 6)),
    "max_pool3d_args": (lambda m, x: m.nn.functional.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True,
                                                                 True), (2, 2, 5, 6, 7)),
    "max_pool3d_unbatched": (lambda m, x: m.nn.functional.max_pool3d_with_indices(x, 2), (2, 4, 5, 6)),
    "adaptive_max_pool2d": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (3, 4), True), (2, 3, 7, 9)),
    "adaptive_max_pool2d_none": (lambda m, x: m.nn.functional.adaptive_max_pool2d_with_indices(x, (None, 4)),
                                 (3, 7, 9)),
    "adaptive_max_pool2d_grow": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 5, True), (1, 2, 3, 4)),
    "adaptive_max_pool1d": (lambda m, x: m.nn.functional.adaptive_max_pool1d(x, 4, return_indices=True), (2, 3, 9)),
    "adaptive_max_pool3d": (lambda m, x: m.nn.functional.adaptive_max_pool3d(x, (2, 3, None), True), (2, 2, 5, 7, 3)),
    "adaptive_max_pool3d_unbatched": (lambda m, x: m.nn.functional.adaptive_max_pool3d_with_indices(x, 2),
                                      (2, 3, 5, 4)),
    "adaptive_max_pool1d_with_indices": (lambda m, x: m.nn.functional.adaptive_max_pool1d_with_indices(x, 3),
                                         (3, 10)),
}


@pytest.mark.parametrize("name", sorted(WITH_INDICES))
def test_values_indices_gradients_and_names_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, shape = WITH_INDICES[name]
    a, g = _arrays(shape), None
    got = {}
    for m in (framework, torch):
        x = m.tensor(a, requires_grad=True)
        out, idx = fn(m, x)
        g = _arrays(tuple(out.shape), 1) if g is None else g
        out.backward(m.tensor(g))
        got[m.__name__] = (_np(out), _np(idx), _np(x.grad), out.grad_fn.name(), idx.requires_grad,
                           idx.grad_fn, str(idx.dtype).split(".")[1])
    ours, theirs = got["framework"], got["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=0)
    assert ours[1].shape == theirs[1].shape and np.array_equal(ours[1], theirs[1])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12, atol=1e-12)
    assert ours[3:] == theirs[3:] == (ours[3], False, None, "int64")


def test_indices_of_ties_are_the_first_maximum_as_torch():
    torch = pytest.importorskip("torch")
    a = np.zeros((1, 1, 4, 4))
    a[0, 0, 1, 1] = a[0, 0, 1, 0] = 1.0
    ours = _np(F.max_pool2d(framework.tensor(a), 2, return_indices=True)[1])
    theirs = _np(torch.nn.functional.max_pool2d(torch.tensor(a), 2, return_indices=True)[1])
    assert np.array_equal(ours, theirs) and ours[0, 0, 0, 0] == 4


@pytest.mark.parametrize("call", ["max_pool1d(x, 2)", "max_pool1d(x, 2, ceil_mode=True)", "max_pool1d(x, 3, 2, 1)",
                                  "max_pool1d(x, 2, dilation=2)", "max_pool1d(x, 2, return_indices=True)[0]",
                                  "max_pool1d(x.unsqueeze(0), 2, ceil_mode=True)"])
def test_max_pool1d_result_versions_match_torch(call):
    torch = pytest.importorskip("torch")
    versions = []
    for m in (framework, torch):
        versions.append(eval("m.nn.functional." + call, {"m": m, "x": m.ones(2, 7)})._version)
    assert versions[0] == versions[1]


# fn(m, x) -> a tensor whose gradient (with create_graph) is differentiated again
SECOND_ORDER = {
    "max_pool2d_indices": lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)[0],
    "max_pool2d_dilated": lambda m, x: m.nn.functional.max_pool2d(x, 2, 1, dilation=2),
    "max_pool3d": lambda m, x: m.nn.functional.max_pool3d(x.reshape(1, 1, 2, 4, 4), 2, 1),
    "avg_pool3d": lambda m, x: m.nn.functional.avg_pool3d(x.reshape(1, 1, 2, 4, 4), 2, 1, 1, count_include_pad=False),
    "avg_pool2d_ceil": lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    "adaptive_max_pool2d": lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (3, 2)),
    "max_unpool2d": lambda m, x: m.nn.functional.max_unpool2d(*m.nn.functional.max_pool2d(x, 2, return_indices=True),
                                                              2),
    "max_unpool3d": lambda m, x: m.nn.functional.max_unpool3d(*m.nn.functional.max_pool3d(
        x.reshape(1, 1, 2, 4, 4), 2, return_indices=True), 2),
    "adaptive_max_pool3d": lambda m, x: m.nn.functional.adaptive_max_pool3d(x.reshape(1, 2, 2, 2, 4), (1, 2, 3)),
    "lp_pool3d": lambda m, x: m.nn.functional.lp_pool3d(x.reshape(1, 2, 2, 2, 4) + 3, 2, (1, 2, 2)),
}


def _second(m, fn, a, v_arr, w_arr):
    """d/d(x, v) of <grad_x <fn(x), v>, w>: the double-backward nodes' values."""
    x = m.tensor(a, requires_grad=True)
    out = fn(m, x)
    v = m.tensor(v_arr(tuple(out.shape)), requires_grad=True)
    (gx,) = m.autograd.grad(out, x, v, create_graph=True)
    name = gx.grad_fn.name() if gx.grad_fn is not None else None
    (gx * m.tensor(w_arr)).sum().backward()
    return _np(gx), name, _np(v.grad), None if x.grad is None else _np(x.grad)


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_double_backward_matches_torch(name):
    torch = pytest.importorskip("torch")
    a, w = _arrays((1, 2, 4, 4)), _arrays((1, 2, 4, 4), 2)
    vs = lambda shape: _arrays(shape, 3)  # noqa: E731
    ours = _second(framework, SECOND_ORDER[name], a, vs, w)
    theirs = _second(torch, SECOND_ORDER[name], a, vs, w)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12, atol=1e-12)
    assert (ours[3] is None) == (theirs[3] is None)
    if ours[3] is not None:
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_gradient_of_the_gradient_gradcheck(name):
    a = framework.tensor(_arrays((1, 2, 4, 4)), dtype=framework.float64)
    out_shape = tuple(SECOND_ORDER[name](framework, a).shape)
    v = framework.tensor(_arrays(out_shape, 3), requires_grad=True)

    def grad_of(v):
        x = a.detach().requires_grad_()
        return framework.autograd.grad(SECOND_ORDER[name](framework, x), x, v, create_graph=True)[0]

    assert gradcheck(grad_of, [v])


def test_unpool_module_round_trip_with_output_size_matches_torch():
    torch = pytest.importorskip("torch")
    a = _arrays((2, 3, 7, 9))
    outs = []
    for m in (framework, torch):
        pool, unpool = m.nn.MaxPool2d(3, 2, 1, return_indices=True), m.nn.MaxUnpool2d(3, 2, 1)
        x = m.tensor(a, requires_grad=True)
        y, idx = pool(x)
        z = unpool(y, idx, output_size=x.size())
        z.sum().backward()
        outs.append((_np(z), _np(x.grad), z.grad_fn.name()))
        pool1, unpool1 = m.nn.MaxPool1d(2, return_indices=True), m.nn.MaxUnpool1d(2)
        y1, i1 = pool1(x.detach()[0])
        outs.append((_np(unpool1(y1, i1, output_size=[9])),))
    np.testing.assert_allclose(outs[0][0], outs[2][0])
    np.testing.assert_allclose(outs[0][1], outs[2][1])
    assert outs[0][2] == outs[2][2] == "MaxUnpool2DBackward0"
    np.testing.assert_allclose(outs[1][0], outs[3][0])


MODULES = [
    "MaxPool1d(2, return_indices=True)", "MaxPool1d(3, 2, 1, 2, ceil_mode=True)", "MaxPool2d(2)",
    "MaxPool2d(3, 2, 1, return_indices=True)", "MaxPool2d((2, 3), dilation=(1, 2))", "MaxPool3d(2)",
    "MaxPool3d((2, 3, 2), stride=1, padding=1, dilation=2, ceil_mode=True)", "AvgPool1d(3)", "AvgPool2d(2)",
    "AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False, divisor_override=2)", "AvgPool3d(2)",
    "AvgPool3d((2, 3, 2), 1, 1, ceil_mode=True, count_include_pad=False, divisor_override=3)",
    "MaxUnpool1d(2)", "MaxUnpool2d(2, 1, 1)", "MaxUnpool2d((2, 3))", "AdaptiveMaxPool1d(3)",
    "AdaptiveMaxPool2d((3, None), return_indices=True)", "AdaptiveMaxPool2d(4)", "AdaptiveAvgPool1d(3)",
    "AdaptiveAvgPool3d((2, None, 3))", "AdaptiveAvgPool3d(1)", "LPPool1d(2, 3)",
    "LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True)", "MaxUnpool3d(2)", "MaxUnpool3d((2, 1, 2), 1, (1, 0, 1))",
    "AdaptiveMaxPool3d((2, None, 3))", "AdaptiveMaxPool3d(2, return_indices=True)", "LPPool3d(2, 2)",
    "LPPool3d(1.5, (2, 1, 2), stride=1, ceil_mode=True)",
]


@pytest.mark.parametrize("spec", MODULES)
def test_module_repr_and_forward_match_torch(spec):
    torch = pytest.importorskip("torch")
    ours, theirs = eval("framework.nn." + spec), eval("torch.nn." + spec)
    assert repr(ours) == repr(theirs)
    assert repr(framework.nn.Sequential(ours)) == repr(torch.nn.Sequential(theirs))
    if "Unpool" in spec:
        return
    dims = 3 if "3d" in spec else 2 if "2d" in spec else 1
    a = np.abs(_arrays((2, 3) + (7, 8, 9)[:dims])) + 0.1
    o, t = ours(framework.tensor(a)), theirs(torch.tensor(a))
    if isinstance(t, tuple):
        assert np.array_equal(_np(o[1]), _np(t[1]))
        o, t = o[0], t[0]
    np.testing.assert_allclose(_np(o), _np(t), rtol=1e-12, atol=1e-12)


def test_new_modules_are_under_torch_module_paths():
    from framework.nn.modules import pooling
    for name in ("MaxPool3d", "AvgPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AdaptiveMaxPool1d",
                 "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "LPPool1d",
                 "LPPool2d", "LPPool3d"):
        assert getattr(pooling, name) is getattr(framework.nn, name)


ERRORS = {
    "max_pool2d_2d_input": lambda m: m.nn.functional.max_pool2d(m.ones(3, 3), 2, return_indices=True),
    "max_pool2d_big_pad": lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 8, 8), 2, padding=2, return_indices=True),
    "max_pool2d_pad_vs_kernel": lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 8, 8), 3, padding=2, dilation=2),
    "max_pool2d_too_small": lambda m: m.nn.functional.max_pool2d(m.ones(2, 3, 8, 8), 10, return_indices=True),
    "max_pool2d_stride_zero": lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, 0, return_indices=True),
    "max_pool3d_4d_batch": lambda m: m.nn.functional.max_pool3d(m.ones(2, 3, 4), 2),
    "max_pool3d_too_small": lambda m: m.nn.functional.max_pool3d(m.ones(1, 2, 6, 6, 6), 7),
    "max_pool3d_pad_vs_kernel": lambda m: m.nn.functional.max_pool3d(m.ones(1, 1, 6, 6, 6), 3, padding=2,
                                                                     dilation=2),
    "max_pool1d_1d": lambda m: m.nn.functional.max_pool1d(m.ones(3), 2, return_indices=True),
    "avg_pool3d_dims": lambda m: m.nn.functional.avg_pool3d(m.ones(2, 3, 4), 2),
    "avg_pool3d_small": lambda m: m.nn.functional.avg_pool3d(m.ones(1, 1, 2, 2, 2), 3),
    "avg_pool3d_pad": lambda m: m.nn.functional.avg_pool3d(m.ones(1, 1, 6, 6, 6), 3, padding=2),
    "avg_pool2d_pad": lambda m: m.nn.functional.avg_pool2d(m.ones(1, 1, 6, 6), 2, padding=2, ceil_mode=True),
    "adaptive_max_pool2d_dims": lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(3), 2),
    "adaptive_max_pool1d_dims": lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(3), 2),
    "adaptive_avg_pool1d_dims": lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(3), 2),
    "adaptive_avg_pool3d_dims": lambda m: m.nn.functional.adaptive_avg_pool3d(m.ones(3, 3), 2),
    # one invalid index (with several, torch's threads race to report one)
    "unpool_bad_index": lambda m: m.nn.functional.max_unpool2d(
        *[t.masked_fill(t == 10, 99) if i else t for i, t in enumerate(m.nn.functional.max_pool2d(
            m.ones(1, 1, 4, 4), 2, return_indices=True))], 2),
    "unpool_output_size": lambda m: m.nn.functional.max_unpool2d(
        *m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, return_indices=True), 2, output_size=(9, 9)),
    "unpool_output_size_len": lambda m: m.nn.functional.max_unpool2d(
        *m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, return_indices=True), 2, output_size=(4, 4, 4)),
    "unpool_1d_output_size": lambda m: m.nn.functional.max_unpool1d(
        *m.nn.functional.max_pool1d(m.ones(1, 1, 8), 2, return_indices=True), 2, output_size=(3,)),
    "unpool_dims": lambda m: m.nn.functional.max_unpool2d(m.ones(2, 2), m.zeros(2, 2, dtype=m.int64), 2),
    "adaptive_max_pool3d_dims": lambda m: m.nn.functional.adaptive_max_pool3d(m.ones(3, 4), 2),
    "unpool3d_dims": lambda m: m.nn.functional.max_unpool3d(m.ones(2, 2, 2), m.zeros(2, 2, 2, dtype=m.int64), 2),
    "unpool3d_bad_index": lambda m: m.nn.functional.max_unpool3d(
        *[t.masked_fill(t == 0, 10000) if i else t for i, t in enumerate(m.nn.functional.max_pool3d(
            m.ones(1, 1, 2, 2, 4), 2, return_indices=True))], 2),
    "unpool3d_output_size": lambda m: m.nn.functional.max_unpool3d(
        *m.nn.functional.max_pool3d(m.ones(1, 1, 4, 4, 4), 2, return_indices=True), 2, output_size=(9, 9, 9)),
    "unpool_index_shape": lambda m: m.nn.functional.max_unpool2d(m.ones(1, 2, 2, 2), m.zeros(1, 1, 2, 2,
                                                                                              dtype=m.int64), 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = outcome(ERRORS[name], framework), outcome(ERRORS[name], torch)
    assert ours[0] == theirs[0] == "error"
    assert ours[1:3] == theirs[1:3]


@pytest.mark.explicit_device
def test_pools_replay_under_compile_bit_for_bit():
    def make():
        framework.manual_seed(0)
        conv = framework.nn.Conv2d(2, 4, 3, padding=1)
        opt = framework.optim.SGD(conv.parameters(), lr=0.1)

        def step(x):
            opt.zero_grad()
            h = conv(x)
            y, idx = F.max_pool2d(h, 2, return_indices=True)
            u = F.max_unpool2d(y, idx, 2, output_size=h.shape[-2:])
            v = F.adaptive_max_pool2d(u + h, (3, 2)).sum() + F.avg_pool3d(h.unsqueeze(1), 2, ceil_mode=True).sum()
            w = F.max_pool3d(h.unsqueeze(0), 2, 1).sum() + F.lp_pool1d(h.flatten(2).abs() + 1, 2, 3).sum()
            loss = v + w + F.adaptive_avg_pool3d(h.unsqueeze(0), (2, 3, 2)).pow(2).sum()
            loss.backward()
            opt.step()
            return loss.detach()
        return conv, step

    rng = np.random.default_rng(0)
    xs = [framework.tensor(rng.standard_normal((2, 2, 7, 6)).astype(np.float32)) for _ in range(4)]
    conv_e, step_e = make()
    eager = [step_e(x).numpy() for x in xs]
    conv_c, step_c = make()
    compiled = framework.compile(step_c, fullgraph=True)
    replay = [compiled(x).numpy() for x in xs]
    assert all(np.array_equal(a, b) for a, b in zip(eager, replay))
    assert np.array_equal(conv_e.weight.detach().numpy(), conv_c.weight.detach().numpy())


def _segnet(m):
    """A small SegNet-like model written once for torch and framework (``import framework as torch``)."""
    nn = m.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
            self.pool = nn.MaxPool2d(2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2)
            self.vol = nn.Sequential(nn.Conv3d(1, 2, 3, padding=1), nn.BatchNorm3d(2), nn.ReLU(), nn.MaxPool3d(2),
                                     nn.AvgPool3d(1), nn.AdaptiveAvgPool3d((1, 2, 2)))
            self.head = nn.Sequential(nn.ConvTranspose1d(4, 2, 3, stride=2), nn.AdaptiveMaxPool1d(5),
                                      nn.LPPool1d(2, 2), nn.Flatten(), nn.Linear(4, 3))

        def forward(self, x):
            h = self.enc(x)
            p, idx = self.pool(h)
            u = self.unpool(p, idx, output_size=h.size())
            v = self.vol((u + h).unsqueeze(1)).flatten(1)
            return self.head(m.nn.functional.adaptive_avg_pool2d(u, (1, 6)).squeeze(2)) + v.sum(1, keepdim=True)

    return Net()


def test_an_ordinary_model_with_the_new_layers_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs, ours = _segnet(torch), _segnet(framework)
    assert repr(ours) == repr(theirs)
    with framework.no_grad():
        for (name, p), (tname, q) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert name == tname and tuple(p.shape) == tuple(q.shape)
            p.copy_(framework.tensor(q.detach().numpy(), dtype=p.dtype))
    a = _arrays((3, 2, 6, 8)).astype(np.float32)
    results = []
    for model, m in ((ours, framework), (theirs, torch)):
        x = m.tensor(a, requires_grad=True)
        out = model(x)
        out.pow(2).sum().backward()
        results.append((_np(out), _np(x.grad), [_np(p.grad) for p in model.parameters()]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-3, atol=1e-4)
    for g, tg in zip(results[0][2], results[1][2]):
        np.testing.assert_allclose(g, tg, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (2, 3, 9, 7)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_2x2_ties_nan_inf_and_signed_zeros_match_torch(shape, dtype):
    # nn.MaxPool2d(2)'s own path: the first maximum of a tie, the last NaN, a gradient of inf or NaN kept only at
    # the argmax, a -0 gradient landing as +0, and an odd row or column outside every window getting 0
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for trial in range(10):
        a = rng.integers(-2, 3, shape).astype(dtype)
        a[rng.random(shape) < 0.1], a[rng.random(shape) < 0.05], a[rng.random(shape) < 0.05] = np.nan, np.inf, -0.0
        g = rng.integers(-2, 3, shape[:2] + (shape[2] // 2, shape[3] // 2)).astype(dtype)
        g[rng.random(g.shape) < 0.1], g[rng.random(g.shape) < 0.1] = -0.0, np.inf
        results = []
        for m in (framework, torch):
            x = m.tensor(a, requires_grad=True)
            y = m.nn.functional.max_pool2d(x, 2)
            y.backward(m.tensor(g))
            results.append((_np(y), _np(x.grad)))
        (y_ours, gx_ours), (y_theirs, gx_theirs) = results
        assert np.array_equal(y_ours, y_theirs, equal_nan=True), trial
        assert np.array_equal(gx_ours, gx_theirs, equal_nan=True), trial
        assert np.array_equal(np.signbit(gx_ours), np.signbit(gx_theirs)), trial


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_pool_double_backward_input_gradient_is_torchs_zeros_like(dims):
    """The double-backward node's gradient in x is torch's zeros_like(self), made by an in-place zero_(): a leaf
    that takes it keeps _version 1 (fuzz seed 3701386)."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(dims).standard_normal((2, 3) + (7,) * dims)
    out = []
    for m in (torch, framework):
        x = m.tensor(a, dtype=m.float32, requires_grad=True)
        pool = getattr(m.nn.functional, f"max_pool{dims}d")
        y = pool(x, 3, 2, 1, return_indices=True)[0]
        (g,) = m.autograd.grad(y.sum(), [x], create_graph=True)
        g.sum().backward(retain_graph=True)
        out.append((type(g.grad_fn).__name__ if m is framework else g.grad_fn.name(), x.grad._version,
                    x.grad.stride(), float(x.grad.abs().sum())))
    assert out[0] == out[1]
