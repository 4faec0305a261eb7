"""Grouped and depthwise convolutions (groups > 1) and the padding modes of the convolution modules, against torch:
values, gradients (first and second order), node edges, module arguments, reprs and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
from framework.autograd import gradcheck, gradgradcheck
from scenario import outcome

MODULES = [("Conv1d", 1), ("Conv2d", 2), ("Conv3d", 3), ("ConvTranspose1d", 1), ("ConvTranspose2d", 2),
           ("ConvTranspose3d", 3)]


def _torch():
    return pytest.importorskip("torch")


def _copy_params(ours, theirs) -> None:
    ours.weight.data = framework.tensor(theirs.weight.detach().numpy())
    if theirs.bias is not None:
        ours.bias.data = framework.tensor(theirs.bias.detach().numpy())


@pytest.mark.explicit_device
@pytest.mark.parametrize("name,dims", MODULES)
@pytest.mark.parametrize("kwargs", [dict(groups=2), dict(groups=4, bias=False), dict(groups=2, stride=2, padding=1),
                                    dict(padding_mode="reflect", padding=1), dict(padding_mode="circular", padding=2),
                                    dict(padding_mode="replicate", padding="same", dilation=2, groups=2)])
def test_module_matches_torch(name, dims, kwargs):
    torch = _torch()
    if name.startswith("ConvTranspose") and ("padding_mode" in kwargs):
        pytest.skip("transposed convolutions take padding_mode='zeros' only (tested below)")
    theirs = getattr(torch.nn, name)(4, 8, 3, **kwargs).double()
    ours = getattr(framework.nn, name)(4, 8, 3, **kwargs).double()
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) and repr(ours) == repr(theirs)
    _copy_params(ours, theirs)
    x = np.random.default_rng(0).standard_normal((2, 4) + (6,) * dims)
    xt, xf = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    yt, yf = theirs(xt), ours(xf)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    yf.backward(framework.tensor(g))
    np.testing.assert_allclose(yf.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(xf.grad.numpy(), xt.grad.numpy(), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-11, atol=1e-12)
    assert yf.grad_fn.name() == yt.grad_fn.name()


@pytest.mark.parametrize("name,dims", MODULES)
@pytest.mark.parametrize("args", [(4, 6, 3, dict(groups=4)), (3, 6, 3, dict(groups=2)), (4, 6, 3, dict(groups=0)),
                                  (4, 4, 3, dict(padding_mode="mirror")), (4, 4, 3, dict(padding="full")),
                                  (4, 4, 3, dict(padding="same", stride=2)),
                                  (4, 4, 3, dict(padding_mode="reflect"))])
def test_module_argument_errors_are_torchs(name, dims, args):
    torch = _torch()
    cin, cout, k, kwargs = args
    if name.startswith("ConvTranspose") and isinstance(kwargs.get("padding"), str):
        pytest.skip("transposed convolutions take no padding string")

    def make(m):
        return repr(getattr(m.nn, name)(cin, cout, k, **kwargs))

    ours, theirs = outcome(make, framework), outcome(make, torch)
    if theirs[0] == "error" and "padding_mode must be one of" in theirs[2]:  # torch prints a set: its order varies
        assert ours[:2] == theirs[:2] and sorted(ours[2]) == sorted(theirs[2])
    else:
        assert ours == theirs


@pytest.mark.parametrize("call", [
    lambda m, F: F.conv2d(m.ones(1, 4, 5, 5), m.ones(3, 2, 3, 3), groups=2),
    lambda m, F: F.conv2d(m.ones(1, 3, 5, 5), m.ones(4, 2, 3, 3), groups=2),
    lambda m, F: F.conv2d(m.ones(1, 4, 5, 5), m.ones(4, 2, 3, 3), groups=0),
    lambda m, F: F.conv1d(m.ones(1, 4, 5), m.ones(4, 2, 3), groups=-1),
    lambda m, F: F.conv_transpose2d(m.ones(1, 4, 5, 5), m.ones(3, 3, 3, 3), groups=2),
    lambda m, F: F.conv_transpose2d(m.ones(1, 3, 5, 5), m.ones(4, 3, 3, 3), groups=2),
    lambda m, F: F.conv3d(m.ones(1, 4, 3, 3, 3), m.ones(4, 2, 2, 2, 2, dtype=m.float64), groups=2),
    lambda m, F: F.conv2d(m.ones(1, 4, 5, 5), m.ones(4, 2, 3, 3), m.ones(4, dtype=m.float64), groups=2),
])
def test_functional_errors_are_torchs(call):
    torch = _torch()

    def run(m):
        return tuple(call(m, m.nn.functional).shape)

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours == theirs and ours[0] == "error"


@pytest.mark.parametrize("fn", [
    lambda F, x, w: F.conv2d(x, w), lambda F, x, w: F.conv_transpose2d(x, w.transpose(0, 1)),
    lambda F, x, w: F.conv1d(x[..., 0], w[..., 0]), lambda F, x, w: F.conv2d(x, w[:, :1], groups=2),
    lambda F, x, w: F.conv3d(x[..., None], w[..., None]),
])
def test_a_convolution_without_bias_has_torchs_three_edges(fn):
    """torch's ConvolutionBackward0 keeps an edge for the bias it was not given: (None, 0)."""
    torch = _torch()

    def edges(m):
        x, w = m.ones(1, 2, 4, 4, requires_grad=True), m.ones(2, 2, 2, 2, requires_grad=True)
        y = fn(m.nn.functional, x, w)
        return y.grad_fn.name(), [(type(n).__name__ if n is not None else None, nr) for n, nr in
                                  y.grad_fn.next_functions]

    assert edges(framework) == edges(torch)
    assert edges(framework)[1][-1] == (None, 0)


@pytest.mark.parametrize("case", ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d"])
def test_grouped_convolutions_pass_gradcheck_and_gradgradcheck(case, device):
    rng = np.random.default_rng(0)
    F = framework.nn.functional
    spec = {"conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, groups=3), (1, 6, 5), (3, 2, 2), 3),
            "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1, dilation=2, groups=2), (1, 4, 4, 4),
                       (4, 2, 2, 2), 4),
            "conv3d": (lambda x, w, b: F.conv3d(x, w, b, groups=2), (1, 2, 3, 3, 3), (2, 1, 2, 2, 2), 2),
            "conv_transpose1d": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, groups=2), (1, 4, 3),
                                 (4, 1, 3), 2),
            "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2),
                                 (1, 2, 3, 3), (2, 2, 2, 2), 4)}
    fn, xs, ws, nb = spec[case]
    args = [framework.tensor(rng.standard_normal(s), dtype=framework.float64, requires_grad=True, device=device)
            for s in (xs, ws, (nb,))]
    assert gradcheck(fn, args, eps=1e-6, atol=1e-5, rtol=1e-4)
    assert gradgradcheck(fn, args, eps=1e-6, atol=1e-4, rtol=1e-3)


@pytest.mark.explicit_device  # framework.compile captures NumPy steps (as tests/test_compile.py)
def test_a_compiled_depthwise_separable_step_equals_eager():
    """A MobileNet block (depthwise 3x3, pointwise 1x1) trained with SGD: compiled replays equal eager bit for bit."""
    def make():
        framework.manual_seed(0)
        net = framework.nn.Sequential(framework.nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False),
                                      framework.nn.ReLU(), framework.nn.Conv2d(4, 8, 1), framework.nn.Flatten(),
                                      framework.nn.Linear(8 * 5 * 5, 3))
        return net, framework.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

    def step_of(net, opt):
        def step(x, y):
            opt.zero_grad()
            loss = framework.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        return step

    (n1, o1), (n2, o2) = make(), make()
    eager, compiled = step_of(n1, o1), framework.compile(step_of(n2, o2))
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = framework.tensor(rng.standard_normal((2, 4, 5, 5)), dtype=framework.float32)
        y = framework.tensor(rng.integers(0, 3, 2))
        assert float(eager(x, y)) == float(compiled(x, y))
    for a, b in zip(n1.parameters(), n2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert compiled.replays >= 1


@pytest.mark.parametrize("op,xs,ws", [("conv1d", (2, 4, 7), (4, 4, 3)), ("conv2d", (2, 4, 5, 5), (6, 4, 3, 3)),
                                      ("conv2d", (1, 4, 5, 5), (6, 4, 3, 3)),
                                      ("conv3d", (1, 4, 3, 4, 3), (2, 4, 3, 3, 3))])
@pytest.mark.parametrize("padding", ["same", "valid", 1])
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("dts", [("float32", "float32", "float64"), ("float32", "float64", "float64"),
                                 ("float64", "float32", "float32"), ("float64", "float64", "float32"),
                                 ("float32", "float64", "float32")])
def test_mixed_dtypes_are_checked_as_torch(op, xs, ws, padding, groups, dts):
    """torch's string padding ('same'/'valid') checks the weight's dtype and, off its MKLDNN path, lets a bias of
    another dtype through (added in the input's dtype); a numeric padding checks the bias first."""
    torch = _torch()

    def run(m):
        x = m.ones(*xs, dtype=getattr(m, dts[0]))
        w = m.ones(ws[0], ws[1] // groups, *ws[2:], dtype=getattr(m, dts[1]))
        y = getattr(m.nn.functional, op)(x, w, m.ones(ws[0], dtype=getattr(m, dts[2])), padding=padding,
                                         groups=groups)
        return str(y.dtype).split(".")[-1], round(y.sum().item(), 3)

    assert outcome(run, framework) == outcome(run, torch)


@pytest.mark.parametrize("op,xs,ws,dilation", [("conv1d", (2, 3, 7), (4, 3, 4), 1),
                                               ("conv2d", (1, 2, 5, 6), (3, 2, 2, 3), 1),
                                               ("conv2d", (1, 2, 5, 6), (4, 1, 2, 2), 1),
                                               ("conv3d", (1, 2, 4, 3, 4), (2, 2, 2, 3, 2), (1, 1, 3))])
def test_same_padding_of_an_even_kernel_pads_the_input_first_as_torch(op, xs, ws, dilation):
    """An odd total padding: torch pads the input's right side first (ConstantPadNdBackward0), then both sides."""
    torch = _torch()
    rng = np.random.default_rng(0)
    X, W = rng.standard_normal(xs), rng.standard_normal(ws)
    groups = xs[1] // ws[1]

    def run(m):
        x, w = m.tensor(X, requires_grad=True), m.tensor(W, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(m.nn.functional, op)(x, w, padding="same", dilation=dilation, groups=groups)
        gx, gw = m.autograd.grad(y.pow(2).sum(), [x, w])
        return (tuple(y.shape), y.grad_fn.next_functions[0][0].name(), y.detach().cpu().numpy().round(10).tolist(),
                gx.cpu().numpy().round(9).tolist(), gw.cpu().numpy().round(9).tolist())

    assert run(framework) == run(torch)
