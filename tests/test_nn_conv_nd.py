"""conv3d, conv_transpose1d, conv_transpose3d (ops/conv/convolution_nd.py), their modules (nn/modules/conv.py), BatchNorm3d and
InstanceNorm3d: second derivatives against torch, module forwards, reprs, errors, compile replay.

Values, first derivatives, grad_fn names and float64 gradchecks of the functional ops are the op-table rows
(tests/op_table.py); the second-derivative gradchecks below need no torch.
"""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome


def _np(t):
    return t.detach().cpu().numpy()


def _arrays(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


CONVS = {
    "conv3d": (lambda m, x, w, b: m.nn.functional.conv3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1),
                                                          dilation=(1, 2, 1)),
               [(2, 2, 4, 5, 4), (3, 2, 2, 2, 3), (3,)]),
    "conv3d_unbatched": (lambda m, x, w, b: m.nn.functional.conv3d(x, w, b, padding="same"),
                         [(2, 3, 4, 3), (2, 2, 3, 1, 3), (2,)]),
    "conv_transpose1d": (lambda m, x, w, b: m.nn.functional.conv_transpose1d(x, w, b, 2, 1, 1, 1, 2),
                         [(2, 3, 5), (3, 4, 3), (4,)]),
    "conv_transpose3d": (lambda m, x, w, b: m.nn.functional.conv_transpose3d(x, w, b, (2, 1, 3), (1, 0, 1),
                                                                              (1, 0, 2), 1, (1, 2, 1)),
                         [(1, 3, 3, 4, 3), (3, 2, 3, 2, 3), (2,)]),
}


def _second(m, name):
    fn, shapes = CONVS[name]
    xs = [m.tensor(_arrays(s, i), requires_grad=True) for i, s in enumerate(shapes)]
    out = fn(m, *xs)
    grads = m.autograd.grad(out, xs, m.tensor(_arrays(tuple(out.shape), 7)), create_graph=True)
    total = sum((g * m.tensor(_arrays(tuple(g.shape), 8 + i))).sum() for i, g in enumerate(grads))
    second = m.autograd.grad(total, xs, allow_unused=True)
    return ([_np(g) for g in grads], [g.grad_fn.name() for g in grads],
            [None if s is None else _np(s) for s in second])


@pytest.mark.parametrize("name", sorted(CONVS))
def test_first_and_second_derivatives_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _second(framework, name), _second(torch, name)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[2], theirs[2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(CONVS))
def test_double_backward_gradcheck(name):
    fn, shapes = CONVS[name]
    xs = [framework.tensor(_arrays(s, i), requires_grad=True) for i, s in enumerate(shapes)]
    out_shape = tuple(fn(framework, *xs).shape)
    v = framework.tensor(_arrays(out_shape, 7), requires_grad=True)

    def grads_of(x, w, b, v):
        return framework.autograd.grad(fn(framework, x, w, b), (x, w), v, create_graph=True)

    assert gradcheck(grads_of, xs + [v])


MODULES = [
    "Conv3d(3, 4, 3)", "Conv3d(3, 4, (1, 2, 3), stride=2, padding=1, dilation=2, bias=False)",
    "Conv3d(3, 4, 3, padding='same')", "ConvTranspose1d(3, 4, 3)",
    "ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1, dilation=2, bias=False)",
    "ConvTranspose3d(3, 2, 2, stride=2)", "ConvTranspose3d(3, 2, (2, 1, 3), stride=(2, 1, 2), padding=1)",
    "BatchNorm3d(3)", "BatchNorm3d(3, momentum=None, affine=False)", "InstanceNorm3d(3)",
    "InstanceNorm3d(3, affine=True, track_running_stats=True)",
]


@pytest.mark.parametrize("spec", MODULES)
def test_module_repr_forward_and_backward_match_torch(spec):
    torch = pytest.importorskip("torch")
    ours, theirs = eval("framework.nn." + spec), eval("torch.nn." + spec)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [(n, tuple(b.shape)) for n, b in ours.named_buffers()] == \
        [(n, tuple(b.shape)) for n, b in theirs.named_buffers()]
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):  # torch's weights in ours
        assert tuple(p.shape) == tuple(q.shape)
        with framework.no_grad():
            p.copy_(framework.tensor(_np(q), dtype=p.dtype))
    shape = (2, 3, 5) if "1d" in spec else (2, 3, 4, 5, 3)
    a = _arrays(shape).astype(np.float32)
    results = []
    for mod, m in ((ours, framework), (theirs, torch)):
        x = m.tensor(a, requires_grad=True)
        for _ in range(2):  # twice: the running statistics' updates too
            out = mod(x)
        out.pow(2).sum().backward()
        results.append((_np(out), _np(x.grad), [_np(p.grad) for p in mod.parameters()],
                        [_np(b) for b in mod.buffers()], out.grad_fn.name()))
        mod.eval()
        results[-1] += (_np(mod(x)),)
    ours_r, theirs_r = results
    np.testing.assert_allclose(ours_r[0], theirs_r[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours_r[1], theirs_r[1], rtol=1e-4, atol=1e-4)
    for a_, b_ in zip(ours_r[2] + ours_r[3], theirs_r[2] + theirs_r[3]):
        np.testing.assert_allclose(a_, b_, rtol=1e-4, atol=1e-4)
    assert ours_r[4] == theirs_r[4]
    np.testing.assert_allclose(ours_r[5], theirs_r[5], rtol=1e-4, atol=1e-5)


def test_conv_transpose_output_size_matches_torch():
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        m.manual_seed(0)
        up = m.nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1)
        with m.no_grad():
            up.weight.copy_(m.tensor(_arrays((2, 3, 3)), dtype=up.weight.dtype))
        x = m.tensor(_arrays((1, 2, 5)).astype(np.float32))
        outs.append((tuple(up(x, output_size=[10]).shape), tuple(up(x, output_size=(1, 3, 9)).shape),
                     outcome(lambda m_: up(x, output_size=[12]), m)[:3]))
    assert outs[0][:2] == outs[1][:2] == ((1, 3, 10), (1, 3, 9))
    assert outs[0][2] == outs[1][2]


def test_new_modules_are_under_torch_module_paths():
    from framework.nn.modules import batchnorm, conv, instancenorm
    assert conv.Conv3d is framework.nn.Conv3d and conv.ConvTranspose1d is framework.nn.ConvTranspose1d
    assert conv.ConvTranspose3d is framework.nn.ConvTranspose3d
    assert batchnorm.BatchNorm3d is framework.nn.BatchNorm3d
    assert instancenorm.InstanceNorm3d is framework.nn.InstanceNorm3d


ERRORS = {
    "conv3d_3d_input": lambda m: m.nn.functional.conv3d(m.ones(5, 5, 5), m.ones(4, 3, 3, 3, 3)),
    "conv3d_channels": lambda m: m.nn.functional.conv3d(m.ones(2, 2, 5, 5, 5), m.ones(4, 3, 3, 3, 3)),
    "conv3d_weight_dtype": lambda m: m.nn.functional.conv3d(m.ones(2, 3, 5, 5, 5),
                                                            m.ones(4, 3, 3, 3, 3, dtype=m.float64)),
    "conv3d_weight_dims": lambda m: m.nn.functional.conv3d(m.ones(2, 3, 5, 5, 5), m.ones(4, 3, 3, 3)),
    "conv3d_bias_dtype": lambda m: m.nn.functional.conv3d(m.ones(2, 3, 5, 5, 5), m.ones(4, 3, 3, 3, 3),
                                                          m.zeros(4, dtype=m.float64)),
    "conv3d_kernel_too_big": lambda m: m.nn.functional.conv3d(m.ones(1, 3, 2, 2, 2), m.ones(4, 3, 3, 3, 3)),
    "conv3d_same_strided": lambda m: m.nn.functional.conv3d(m.ones(1, 2, 3, 3, 3), m.ones(2, 2, 2, 2, 2),
                                                            padding="same", stride=2),
    "conv_transpose1d_1d_input": lambda m: m.nn.functional.conv_transpose1d(m.ones(7), m.ones(3, 4, 3)),
    "conv_transpose1d_channels": lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 2, 7), m.ones(3, 4, 3)),
    "conv_transpose1d_output_padding": lambda m: m.nn.functional.conv_transpose1d(
        m.ones(2, 3, 7), m.ones(3, 4, 3), stride=2, padding=1, output_padding=2),
    "conv_transpose3d_output_padding": lambda m: m.nn.functional.conv_transpose3d(
        m.ones(1, 2, 3, 3, 3), m.ones(2, 3, 2, 2, 2), stride=2, output_padding=(0, 2, 0)),
    # torch's text depends on whether its CPU backend is MKLDNN (float32 and a batch > 1, or a large input/kernel)
    "conv_transpose1d_dtype_small": lambda m: m.nn.functional.conv_transpose1d(m.ones(3, 4),
                                                                              m.ones(3, 2, 2, dtype=m.float64)),
    "conv_transpose1d_dtype_batch": lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 3, 4),
                                                                              m.ones(3, 2, 2, dtype=m.float64)),
    "conv_transpose3d_dtype_double": lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 2, 2, 3, 2,
                                                                                       dtype=m.float64),
                                                                                m.ones(2, 3, 2, 3, 2)),
    "conv3d_dtype_small": lambda m: m.nn.functional.conv3d(m.ones(1, 2, 2, 3, 2), m.ones(2, 2, 2, 3, 2,
                                                                                          dtype=m.float64)),
    "conv3d_dtype_big_kernel": lambda m: m.nn.functional.conv3d(m.ones(1, 2, 5, 5, 5), m.ones(2, 2, 4, 4, 4,
                                                                                               dtype=m.float64)),
    "conv_transpose3d_bias_dtype_small": lambda m: m.nn.functional.conv_transpose3d(
        m.ones(1, 2, 2, 3, 2), m.ones(2, 3, 2, 3, 2), m.ones(3, dtype=m.float64)),
    "conv_transpose3d_bias_dtype_batch": lambda m: m.nn.functional.conv_transpose3d(
        m.ones(2, 2, 2, 3, 2), m.ones(2, 3, 2, 3, 2), m.ones(3, dtype=m.float64)),
    "conv_transpose1d_bias_dtype_batch": lambda m: m.nn.functional.conv_transpose1d(
        m.ones(2, 2, 4), m.ones(2, 3, 2), m.ones(3, dtype=m.float64)),
    "batch_norm3d_dims": lambda m: m.nn.BatchNorm3d(3)(m.ones(2, 3, 4, 4)),
    "instance_norm3d_dims": lambda m: m.nn.InstanceNorm3d(3)(m.ones(2, 3, 4)),
}


def test_conv_transpose1d_small_input_adds_a_bias_of_another_dtype_as_torch():
    torch = pytest.importorskip("torch")
    fn = lambda m: m.nn.functional.conv_transpose1d(m.ones(1, 2, 4), m.ones(2, 3, 2), m.ones(3, dtype=m.float64))  # noqa
    ours, theirs = fn(framework), fn(torch)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] == "float32"
    np.testing.assert_allclose(_np(ours), _np(theirs))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = outcome(ERRORS[name], framework), outcome(ERRORS[name], torch)
    assert ours[0] == theirs[0] == "error"
    assert ours[1:3] == theirs[1:3]


@pytest.mark.explicit_device
def test_conv3d_and_transposes_replay_under_compile_bit_for_bit():
    def make():
        framework.manual_seed(0)
        net = framework.nn.Sequential(framework.nn.Conv3d(2, 3, 2, padding=1), framework.nn.BatchNorm3d(3),
                                      framework.nn.ReLU(), framework.nn.ConvTranspose3d(3, 2, 2, stride=2))
        up = framework.nn.ConvTranspose1d(2, 2, 3, stride=2)
        opt = framework.optim.SGD(list(net.parameters()) + list(up.parameters()), lr=0.05)

        def step(x):
            opt.zero_grad()
            y = net(x)
            loss = y.pow(2).mean() + up(y.flatten(2)).abs().mean()
            loss.backward()
            opt.step()
            return loss.detach()
        return net, step

    rng = np.random.default_rng(0)
    xs = [framework.tensor(rng.standard_normal((2, 2, 3, 4, 3)).astype(np.float32)) for _ in range(4)]
    net_e, step_e = make()
    eager = [step_e(x).numpy() for x in xs]
    net_c, step_c = make()
    compiled = framework.compile(step_c, fullgraph=True)
    replay = [compiled(x).numpy() for x in xs]
    assert all(np.array_equal(a, b) for a, b in zip(eager, replay))
    for p, q in zip(net_e.parameters(), net_c.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
