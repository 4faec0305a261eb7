"""Padding modules (1-D/3-D constant and zero, circular, 3-D reflection/replication), Fold/Unfold, ChannelShuffle,
Dropout3d / AlphaDropout / FeatureAlphaDropout, UpsamplingNearest2d / UpsamplingBilinear2d: reprs, values,
gradients and grad_fn names against torch, errors, dropout's formula and statistics, compile replay.

unfold, fold, channel_shuffle and the 3-D pads are also op-table rows (tests/op_table.py: torch comparison and
float64 gradcheck); circular padding's gradcheck is below.
"""
import warnings

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


def _name(t):
    return t.grad_fn.name().replace("torch::autograd::", "") if t.grad_fn is not None else None


MODULES = {  # spec: input shapes (batched and unbatched where torch takes both)
    "ConstantPad1d(2, 3.5)": [(2, 3, 4), (3, 5)],
    "ConstantPad1d((1, 0), -1.0)": [(2, 3, 4)],
    "ConstantPad3d((1, 2, 0, 1, 1, 0), 0.0)": [(1, 2, 3, 4, 5), (2, 3, 4, 5)],
    "ConstantPad3d(1, 2)": [(1, 2, 3, 4, 5)],
    "ZeroPad1d(2)": [(2, 3, 4)],
    "ZeroPad1d((0, 3))": [(3, 4)],
    "ZeroPad3d(1)": [(1, 2, 3, 4, 5)],
    "ZeroPad3d((1, 0, 2, 1, 0, 1))": [(2, 3, 4, 5)],
    "CircularPad1d(2)": [(2, 3, 4), (3, 5)],
    "CircularPad1d((1, 3))": [(2, 3, 4)],
    "CircularPad2d((1, 2, 0, 1))": [(2, 3, 4, 5), (3, 4, 5)],
    "CircularPad2d((-1, 2, 1, -1))": [(2, 3, 4, 5)],
    "CircularPad3d(1)": [(1, 2, 3, 4, 5), (2, 3, 4, 5)],
    "CircularPad3d((1, 0, 2, 1, 0, 2))": [(1, 2, 3, 4, 5)],
    "ReflectionPad3d(1)": [(1, 2, 3, 4, 5), (2, 3, 4, 5)],
    "ReflectionPad3d((1, 0, 2, 1, 0, 1))": [(1, 2, 3, 4, 5)],
    "ReplicationPad3d((1, 0, 2, 1, 0, 1))": [(1, 2, 3, 4, 5)],
    "ReplicationPad3d(2)": [(2, 3, 4, 5)],
    "Unfold((2, 3), padding=1)": [(2, 3, 4, 5), (3, 4, 5)],
    "Unfold(2, 2, 1, 2)": [(2, 3, 5, 6)],
    "Fold((4, 5), 2)": [(2, 8, 12), (8, 12)],
    "Fold((5, 5), (2, 3), 1, 1, (2, 1))": [(1, 12, 15)],
    "ChannelShuffle(3)": [(2, 6, 3), (2, 6, 2, 3)],
    "UpsamplingNearest2d(scale_factor=2)": [(2, 3, 4, 5)],
    "UpsamplingNearest2d(size=(5, 7))": [(2, 3, 4, 5)],
    "UpsamplingBilinear2d(size=(7, 9))": [(2, 3, 4, 5)],
    "UpsamplingBilinear2d(scale_factor=(2, 3))": [(1, 2, 3, 4)],
    "Dropout3d(0.3)": [],
    "AlphaDropout(0.2)": [],
    "FeatureAlphaDropout(0.1)": [],
}


@pytest.mark.parametrize("spec", sorted(MODULES))
def test_module_repr_values_gradients_and_names_match_torch(spec):
    torch = pytest.importorskip("torch")
    ours, theirs = eval("framework.nn." + spec), eval("torch.nn." + spec)
    assert repr(ours) == repr(theirs)
    assert repr(framework.nn.Sequential(ours)) == repr(torch.nn.Sequential(theirs))
    for shape in MODULES[spec]:
        a, got = _arrays(shape), []
        for mod, m in ((ours, framework), (theirs, torch)):
            x = m.tensor(a, requires_grad=True)
            out = mod(x)
            out.backward(m.tensor(_arrays(tuple(out.shape), 1)))
            got.append((_np(out), _np(x.grad), _name(out)))
        np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12, atol=1e-12)
        assert got[0][2] == got[1][2]


def test_modules_are_under_torch_module_paths():
    from framework.nn.modules import channelshuffle, dropout, fold, padding, upsampling
    names = {padding: ["ConstantPad1d", "ConstantPad3d", "ZeroPad1d", "ZeroPad3d", "CircularPad1d", "CircularPad2d",
                       "CircularPad3d", "ReflectionPad3d", "ReplicationPad3d"],
             fold: ["Fold", "Unfold"], channelshuffle: ["ChannelShuffle"],
             dropout: ["Dropout3d", "AlphaDropout", "FeatureAlphaDropout"],
             upsampling: ["UpsamplingNearest2d", "UpsamplingBilinear2d"]}
    for mod, ns in names.items():
        for n in ns:
            assert getattr(mod, n) is getattr(framework.nn, n)


@pytest.mark.parametrize("pad", [(2, 1), (1, 2, 2, -1), (1, 0, 0, 1, 1, 1)])
def test_circular_pad_gradcheck_and_version(pad):
    shape = {2: (2, 3, 4), 4: (2, 3, 4), 6: (1, 2, 3, 2, 3)}[len(pad)]
    x = framework.tensor(_arrays(shape), requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode="circular"), [x])
    torch = pytest.importorskip("torch")
    ours, theirs = F.pad(x, pad, mode="circular"), torch.nn.functional.pad(torch.tensor(_arrays(shape)), pad,
                                                                          mode="circular")
    assert ours._version == theirs._version  # one in-place copy per written region, as torch's


def test_unfold_fold_double_backward_gradcheck():
    x = framework.tensor(_arrays((1, 2, 4, 5)), requires_grad=True)
    v = framework.tensor(_arrays((1, 8, 18), 1), requires_grad=True)

    def grad_of_unfold(v):
        t = x.detach().requires_grad_()
        return framework.autograd.grad(F.unfold(t, 2, padding=(0, 1), stride=(1, 1)), t, v, create_graph=True)[0]

    assert gradcheck(grad_of_unfold, [v])
    assert grad_of_unfold(v).grad_fn.name() == "Col2ImBackward0"


ERRORS = {
    "unfold_2d": lambda m: m.nn.functional.unfold(m.ones(3, 4), 2),
    "unfold_big_kernel": lambda m: m.nn.functional.unfold(m.ones(1, 3, 4, 4), 5),
    "fold_channels": lambda m: m.nn.functional.fold(m.ones(1, 7, 9), (4, 4), 2),
    "fold_blocks": lambda m: m.nn.functional.fold(m.ones(1, 8, 8), (4, 4), 2),
    "fold_dims": lambda m: m.nn.functional.fold(m.ones(8, 8, 9, 3), (4, 4), 2),
    "channel_shuffle_dims": lambda m: m.nn.functional.channel_shuffle(m.ones(6, 3), 3),
    "channel_shuffle_groups": lambda m: m.nn.functional.channel_shuffle(m.ones(2, 5, 3), 3),
    "channel_shuffle_zero": lambda m: m.nn.functional.channel_shuffle(m.ones(2, 6, 3), 0),
    "circular_wraps_twice": lambda m: m.nn.functional.pad(m.ones(3, 4), (5, 1), mode="circular"),
    "circular_module_dims": lambda m: m.nn.CircularPad2d(1)(m.ones(2, 3, 4, 5, 6)),
    "alpha_dropout_p": lambda m: m.nn.functional.alpha_dropout(m.ones(4), 1.5),
    "feature_alpha_dropout_1d": lambda m: m.nn.functional.feature_alpha_dropout(m.ones(4), 0.5, True),
    "dropout3d_p": lambda m: m.nn.functional.dropout3d(m.ones(2, 3, 4, 5), -0.1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = outcome(ERRORS[name], framework), outcome(ERRORS[name], torch)
    assert ours[0] == theirs[0] == "error"
    assert ours[1:3] == theirs[1:3]


# ---- dropout: torch's formula on torch's own mask, and the statistics of ours ----------------------------------

def _alpha_constants(p):
    alpha = 1.7580993408473766
    a = 1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    return alpha, a


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_formula_on_torchs_mask(feature):
    torch = pytest.importorskip("torch")
    from framework.ops.dropout import alpha_dropout_with_mask
    p = 0.3
    a = _arrays((4, 5, 3, 2))
    torch.manual_seed(0)
    fn = torch.nn.functional.feature_alpha_dropout if feature else torch.nn.functional.alpha_dropout
    theirs = fn(torch.tensor(a), p, True).numpy()
    alpha, scale = _alpha_constants(p)
    dropped = np.isclose(theirs, -alpha * scale * (1 - p), rtol=0, atol=1e-12)  # dropped: a constant
    keep = (~dropped).astype(np.float64)
    if feature:  # one draw per (sample, channel)
        assert (keep == keep[:, :, :1, :1]).all()
    ours = alpha_dropout_with_mask(framework.tensor(a), framework.tensor(keep), p)
    np.testing.assert_allclose(_np(ours), theirs, rtol=1e-12, atol=1e-12)


def test_alpha_dropout_statistics_and_graph():
    torch = pytest.importorskip("torch")
    framework.manual_seed(0)
    x = framework.randn(200, 500, dtype=framework.float64)
    y = F.alpha_dropout(x, 0.2, training=True)
    alpha, a = _alpha_constants(0.2)
    dropped = np.isclose(_np(y), -alpha * a * 0.8, rtol=0, atol=1e-12)
    assert abs(dropped.mean() - 0.2) < 0.01
    assert abs(float(y.mean()) - 0.0) < 0.02 and abs(float(y.std()) - 1.0) < 0.02  # self-normalising
    xr = x.detach().requires_grad_()
    yr = F.alpha_dropout(xr, 0.2, training=True)
    tr = torch.nn.functional.alpha_dropout(torch.randn(3, requires_grad=True), 0.2, True)
    assert yr.grad_fn.name() == tr.grad_fn.name() == "AddBackward0"
    yr.sum().backward()
    kept_grad = _np(xr.grad)
    assert set(np.round(np.unique(kept_grad), 12)) <= {0.0, round(a, 12)}
    assert F.alpha_dropout(x, 0.2, training=False) is x and F.alpha_dropout(x, 0.0, training=True) is x
    assert (_np(F.alpha_dropout(x, 1.0, training=True)) == 0).all()


def test_feature_alpha_dropout_and_dropout3d_drop_whole_channels():
    framework.manual_seed(0)
    x = framework.ones(50, 40, 2, 3, 2, dtype=framework.float64)
    y = _np(F.feature_alpha_dropout(x, 0.5, training=True))
    assert (y == y[:, :, :1, :1, :1]).all() and abs((y[:, :, 0, 0, 0] < 0).mean() - 0.5) < 0.05
    z = _np(F.dropout3d(x, 0.25))
    assert (z == z[:, :, :1, :1, :1]).all() and set(np.unique(z)) <= {0.0, 1 / 0.75}
    assert abs((z[:, :, 0, 0, 0] == 0).mean() - 0.25) < 0.05
    torch = pytest.importorskip("torch")
    for shape in [(2, 3, 4, 5), (1, 2, 3, 4, 5)]:  # unbatched: torch's unsqueeze / squeeze graph
        xr = framework.ones(*shape, requires_grad=True)
        tr = torch.ones(*shape, requires_grad=True)
        assert _name(F.dropout3d(xr, 0.5)) == _name(torch.nn.functional.dropout3d(tr, 0.5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.dropout3d(framework.ones(2, 3, 4), 0.5)
    assert any("Received a 3-D input to dropout3d" in str(w.message) for w in caught)


@pytest.mark.explicit_device
def test_layers_replay_under_compile_bit_for_bit():
    def make():
        framework.manual_seed(0)
        conv = framework.nn.Conv2d(2, 6, 3)
        net = framework.nn.Sequential(framework.nn.CircularPad2d(1), conv, framework.nn.ChannelShuffle(3),
                                      framework.nn.UpsamplingBilinear2d(scale_factor=2),
                                      framework.nn.ReflectionPad2d(1))
        opt = framework.optim.SGD(net.parameters(), lr=0.05)

        def step(x):
            opt.zero_grad()
            y = net(x)
            cols = F.unfold(y, 3, stride=2)
            back = F.fold(cols, y.shape[-2:], 3, stride=2)
            loss = back.pow(2).mean() + F.pad(y.unsqueeze(1), (1, 1, 1, 1, 1, 1), mode="replicate").mean()
            loss.backward()
            opt.step()
            return loss.detach()
        return net, step

    rng = np.random.default_rng(0)
    xs = [framework.tensor(rng.standard_normal((2, 2, 5, 4)).astype(np.float32)) for _ in range(4)]
    net_e, step_e = make()
    eager = [step_e(x).numpy() for x in xs]
    net_c, step_c = make()
    compiled = framework.compile(step_c, fullgraph=True)
    replay = [compiled(x).numpy() for x in xs]
    assert all(np.array_equal(a, b) for a, b in zip(eager, replay))
    for p, q in zip(net_e.parameters(), net_c.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
