"""nn.utils.parametrize and nn.utils.parametrizations.spectral_norm vs torch.

torch draws the power iteration's start vectors u, v from its own generator, so the comparisons copy torch's
buffers in (load_state_dict) and then run both sides: outputs, the parametrized weight, the u, v buffers after
each training-mode forward, and the gradients w.r.t. the original weight must agree step after step.
"""
import copy

import numpy as np
import pytest

import framework
from framework import nn
from framework.nn.utils import parametrize
from framework.nn.utils.parametrizations import spectral_norm
from framework.testing import assert_close, gradcheck

LAYERS = [
    ("linear", lambda m: m.nn.Linear(5, 3), (4, 5)),
    ("conv2d", lambda m: m.nn.Conv2d(3, 4, 3, padding=1), (2, 3, 5, 5)),
    ("conv_transpose2d", lambda m: m.nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1), (2, 3, 3, 3)),
]


def _numpy(t) -> np.ndarray:
    return np.array(t.detach().tolist())


def _pair(torch, build, dtype, **kw):
    """torch's spectral-normed layer and ours with the same weights and the same u, v."""
    torch.manual_seed(0)
    theirs = torch.nn.utils.parametrizations.spectral_norm(build(torch).to(getattr(torch, dtype)), **kw)
    ours = spectral_norm(build(framework).to(getattr(framework, dtype)), **kw)
    ours.load_state_dict({k: framework.tensor(v.detach().cpu().numpy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,build,shape", LAYERS, ids=[x[0] for x in LAYERS])
def test_spectral_norm_matches_torch_over_training_steps_and_in_eval(torch, name, build, shape, dtype):
    theirs, ours = _pair(torch, build, dtype)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=2e-5, atol=2e-5)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1)
    opt_f = framework.optim.SGD(ours.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    for _ in range(4):  # each training forward moves u, v one power-iteration step; SGD moves the weight
        x = rng.standard_normal(shape)
        tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
        fx = framework.tensor(x, dtype=getattr(framework, dtype), requires_grad=True)
        t_out, f_out = theirs(tx), ours(fx)
        up = rng.standard_normal(tuple(t_out.shape))
        t_out.backward(torch.tensor(up, dtype=t_out.dtype))
        f_out.backward(framework.tensor(up, dtype=f_out.dtype))
        assert_close(f_out.detach(), t_out.detach().cpu().numpy(), **tol)
        assert_close(fx.grad, tx.grad.cpu().numpy(), **tol)
        assert_close(ours.parametrizations.weight.original.grad,
                     theirs.parametrizations.weight.original.grad.cpu().numpy(), **tol)
        assert_close(ours.bias.grad, theirs.bias.grad.cpu().numpy(), **tol)
        for (k, b), (tk, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
            assert k == tk
            assert_close(b, tb.cpu().numpy(), **tol)
        opt_t.step()
        opt_f.step()
        opt_t.zero_grad()
        opt_f.zero_grad()
    with torch.no_grad():
        assert_close(ours.weight.detach(), theirs.weight.cpu().numpy(), **tol)
    theirs.eval()
    ours.eval()
    u_before = _numpy(ours.parametrizations.weight[0]._u)
    x = rng.standard_normal(shape)
    for _ in range(2):  # eval: the stored u, v are used and left as they are
        t_out = theirs(torch.tensor(x, dtype=getattr(torch, dtype)))
        f_out = ours(framework.tensor(x, dtype=getattr(framework, dtype)))
        assert_close(f_out.detach(), t_out.detach().cpu().numpy(), **tol)
    np.testing.assert_array_equal(_numpy(ours.parametrizations.weight[0]._u), u_before)


def test_state_dict_parameters_and_repr_match_torch(torch):
    for _, build, _ in LAYERS:
        theirs, ours = _pair(torch, build, "float32")
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
        assert repr(ours) == repr(theirs)
        assert type(ours).__name__ == type(theirs).__name__  # ParametrizedLinear, ...
    assert list(ours.state_dict())[1:] == ["parametrizations.weight.original", "parametrizations.weight.0._u",
                                           "parametrizations.weight.0._v"]


def test_conv_transpose_normalises_along_dim_1(torch):
    theirs, ours = _pair(torch, LAYERS[2][1], "float64")
    assert ours.parametrizations.weight[0].dim == theirs.parametrizations.weight[0].dim == 1
    assert tuple(ours.parametrizations.weight[0]._u.shape) == (2,)  # out_channels of a (in, out, kh, kw) weight


def test_spectral_norm_of_a_vector_is_normalize(torch):
    theirs, ours = _pair(torch, lambda m: m.nn.Linear(4, 3), "float64", name="bias")
    assert_close(ours.bias.detach(), theirs.bias.detach().cpu().numpy(), rtol=1e-12, atol=1e-12)
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_matches_torch(torch, leave):
    theirs, ours = _pair(torch, LAYERS[0][1], "float64")
    param = ours.parametrizations.weight.original
    x = np.random.default_rng(0).standard_normal((2, 5))
    theirs(torch.tensor(x))
    ours(framework.tensor(x))
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight", leave_parametrized=leave)
    parametrize.remove_parametrizations(ours, "weight", leave_parametrized=leave)
    assert type(ours) is nn.Linear and not parametrize.is_parametrized(ours)
    assert ours.weight is param and isinstance(ours.weight, nn.Parameter)  # the optimizer's Parameter object
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]  # weight re-registered last
    assert_close(ours.weight.detach(), theirs.weight.detach().cpu().numpy(), rtol=1e-12, atol=1e-12)
    assert isinstance(nn.Linear(2, 2).weight, nn.Parameter)  # other Linears never had the property


def test_parametrized_weight_has_spectral_norm_one():
    m = spectral_norm(nn.Linear(6, 4).double())
    x = framework.randn(3, 6, dtype=framework.float64)
    for _ in range(30):  # power iteration converges to the top singular vectors
        m(x)
    assert np.linalg.svd(_numpy(m.weight), compute_uv=False)[0] == pytest.approx(1.0, abs=1e-6)
    w = _numpy(m.parametrizations.weight.original)
    assert_close(m.weight.detach(), w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-6, atol=1e-6)


def test_gradcheck_spectral_norm_wrt_the_original():
    m = spectral_norm(nn.Conv2d(2, 3, 2).double()).eval()  # eval: u, v stay fixed between gradcheck's calls
    sn = m.parametrizations.weight[0]
    w = framework.randn(3, 2, 2, 2, dtype=framework.float64, requires_grad=True)
    x = framework.randn(1, 2, 3, 3, dtype=framework.float64)
    assert gradcheck(lambda w: sn(w), [w])
    assert gradcheck(lambda w: nn.functional.conv2d(x, sn(w)), [w])
    lin = spectral_norm(nn.Linear(3, 4).double(), name="bias").eval()
    b = framework.randn(4, dtype=framework.float64, requires_grad=True)
    assert gradcheck(lambda b: lin.parametrizations.bias[0](b), [b])


def test_cached_computes_once_and_setter_goes_through_right_inverse():
    m = spectral_norm(nn.Linear(3, 2)).eval()
    assert m.weight is not m.weight
    with parametrize.cached():
        assert m.weight is m.weight
    value = framework.randn(2, 3)
    m.weight = value  # right_inverse is the identity: the original takes the value
    np.testing.assert_array_equal(_numpy(m.parametrizations.weight.original), _numpy(value))
    assert isinstance(m.parametrizations.weight.original, nn.Parameter)


def test_register_parametrization_custom_and_chained():
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Double(nn.Module):
        def forward(self, X):
            return 2 * X

    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    parametrize.register_parametrization(m, "weight", Double())
    W = _numpy(m.weight)
    np.testing.assert_allclose(W, W.T)
    A = _numpy(m.parametrizations.weight.original)
    np.testing.assert_allclose(W, 2 * (np.triu(A) + np.triu(A, 1).T), rtol=1e-6)
    assert len(m.parametrizations.weight) == 2 and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    m(framework.randn(2, 3)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    class Transpose(nn.Module):
        def forward(self, X):
            return X.t()

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(3, 2), "weight", Transpose())
    parametrize.register_parametrization(m2 := nn.Linear(3, 2), "weight", Transpose(), unsafe=True)
    assert tuple(m2.weight.shape) == (3, 2)


def test_deepcopy_and_module_to():
    m = spectral_norm(nn.Linear(3, 2))
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and c.parametrizations.weight.original is not \
        m.parametrizations.weight.original
    np.testing.assert_allclose(_numpy(c.weight), _numpy(m.weight), rtol=1e-5, atol=1e-6)
    m.double()
    assert m.weight.dtype == framework.float64 and m.parametrizations.weight[0]._u.dtype == framework.float64


def test_errors_match_torch(torch):
    for module in (torch, framework):
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
            module.nn.utils.parametrizations.spectral_norm(module.nn.Linear(2, 2), name="kernel")
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got "
                                             "n_power_iterations=0"):
            module.nn.utils.parametrizations.spectral_norm(module.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but "
                                             r"got 2\)"):
            module.nn.utils.parametrizations.spectral_norm(module.nn.Linear(2, 2), dim=2)
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            module.nn.utils.parametrize.remove_parametrizations(module.nn.Linear(2, 2), "weight")
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with "
                                             "name 'kernel'"):
            module.nn.utils.parametrize.register_parametrization(module.nn.Linear(2, 2), "kernel",
                                                                 module.nn.Identity())


def test_double_backward_through_spectral_norm_matches_torch(torch):
    """The R1 penalty differentiates D's input gradient again: weight / sigma must support create_graph."""
    theirs, ours = _pair(torch, LAYERS[0][1], "float64")
    x = np.random.default_rng(0).standard_normal((4, 5))
    grads = []
    for module, layer in ((torch, theirs), (framework, ours)):
        xi = module.tensor(x, requires_grad=True)
        (g,) = module.autograd.grad(layer(xi).tanh().sum(), xi, create_graph=True)
        (g ** 2).sum().backward()
        grads.append(_numpy(layer.parametrizations.weight.original.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)


def _sn_step():
    framework.manual_seed(3)
    D = nn.Sequential(spectral_norm(nn.Linear(2, 8)), nn.LeakyReLU(0.2), spectral_norm(nn.Linear(8, 1)))
    opt = framework.optim.Adam(D.parameters(), lr=1e-2)

    def step(x):
        loss = D(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.detach()
    return D, step


@pytest.mark.explicit_device  # framework.compile replays NumPy steps only (a CuPy step runs eagerly): on the CPU
def test_compiled_step_updates_u_v_as_eager():
    """A compiled step replays the power iteration's in-place buffer writes: same u, v, weights as eager."""
    xs = [framework.randn(16, 2) for _ in range(3)]
    D_e, step_e = _sn_step()
    losses_e = [float(step_e(xs[i % 3])) for i in range(12)]
    D_c, step_c = _sn_step()
    compiled = framework.compile(step_c)
    losses_c = [float(compiled(xs[i % 3])) for i in range(12)]
    assert losses_c == losses_e and compiled.replays >= 10
    for (k, a), (_, b) in zip(D_e.state_dict().items(), D_c.state_dict().items()):
        np.testing.assert_array_equal(_numpy(b), _numpy(a), err_msg=k)
    u0 = _numpy(_sn_step()[0].state_dict()["0.parametrizations.weight.0._u"])
    assert not np.allclose(_numpy(D_c.state_dict()["0.parametrizations.weight.0._u"]), u0)  # u did move
