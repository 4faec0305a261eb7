"""nn.utils.spectral_norm / remove_spectral_norm (torch's hook-based form) vs torch.

torch draws u and v from its own generator, so each comparison copies torch's weight_orig, weight_u and weight_v
in (load_state_dict), then trains both: outputs, input and weight_orig gradients, the u, v buffers after each
training-mode forward, and the weight the hook leaves on the module must agree step after step, then in eval.
"""
import numpy as np
import pytest

import framework
from framework.nn.utils import remove_spectral_norm, spectral_norm
from framework.testing import assert_close

from scenario import error_of

LAYERS = [
    ("linear", lambda m: m.nn.Linear(5, 3), (4, 5)),
    ("conv2d", lambda m: m.nn.Conv2d(3, 4, 3, padding=1), (2, 3, 5, 5)),
    ("conv_transpose2d", lambda m: m.nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1), (2, 3, 3, 3)),
    ("conv_transpose1d", lambda m: m.nn.ConvTranspose1d(3, 2, 3), (2, 3, 6)),
]


def _pair(torch, build, dtype, **kw):
    """torch's spectral-normed layer and ours with the same weight_orig, u and v."""
    torch.manual_seed(0)
    theirs = torch.nn.utils.spectral_norm(build(torch).to(getattr(torch, dtype)), **kw)
    ours = spectral_norm(build(framework).to(getattr(framework, dtype)), **kw)
    ours.load_state_dict({k: framework.tensor(v.detach().cpu().numpy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


def _tol(dtype):
    return dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=1e-6, atol=1e-6)


def _close(ours, theirs, tol):
    """assert_close with the absolute tolerance scaled to the tensor's largest entry: float32 sums in another
    order (conv gradients) differ by a few ulps of the largest terms, which a near-zero entry shows as relative."""
    expected = theirs.detach().cpu().numpy()
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    assert_close(ours.detach(), expected, rtol=tol["rtol"], atol=tol["atol"] * scale)


def _same_buffers(ours, theirs, tol):
    for (k, b), (tk, tb) in zip(ours.named_buffers(), theirs.named_buffers(), strict=True):
        assert k == tk
        assert_close(b, tb.cpu().numpy(), **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", [{}, {"n_power_iterations": 3}, {"dim": 1, "eps": 1e-6}], ids=["default", "n3", "dim1"])
@pytest.mark.parametrize("name,build,shape", LAYERS, ids=[x[0] for x in LAYERS])
def test_spectral_norm_hook_matches_torch_over_training_steps(torch, name, build, shape, dtype, kw):
    theirs, ours = _pair(torch, build, dtype, **kw)
    tol = _tol(dtype)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours.weight_orig, framework.nn.Parameter) and not isinstance(ours.weight, framework.nn.Parameter)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1)
    opt_f = framework.optim.SGD(ours.parameters(), lr=0.1)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    rng = np.random.default_rng(0)
    for step in range(5):
        if step == 4:  # eval: no power iteration, u and v as they are
            theirs.eval(), ours.eval()
        x = rng.standard_normal(shape)
        tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
        fx = framework.tensor(x, dtype=getattr(framework, dtype), requires_grad=True)
        t_out, f_out = theirs(tx), ours(fx)
        _close(f_out, t_out, tol)
        _close(ours.weight, theirs.weight, tol)
        _same_buffers(ours, theirs, tol)
        up = rng.standard_normal(tuple(t_out.shape))
        opt_t.zero_grad(), opt_f.zero_grad()
        t_out.backward(torch.tensor(up, dtype=t_out.dtype))
        f_out.backward(framework.tensor(up, dtype=f_out.dtype))
        _close(fx.grad, tx.grad, tol)
        _close(ours.weight_orig.grad, theirs.weight_orig.grad, tol)
        opt_t.step(), opt_f.step()
        _close(ours.weight_orig, theirs.weight_orig, tol)


@pytest.mark.parametrize("name,build,shape", LAYERS, ids=[x[0] for x in LAYERS])
def test_remove_spectral_norm_matches_torch(torch, name, build, shape):
    theirs, ours = _pair(torch, build, "float64")
    x = np.random.default_rng(1).standard_normal(shape)
    theirs(torch.tensor(x)), ours(framework.tensor(x))  # a training forward moves u, v first
    torch.nn.utils.remove_spectral_norm(theirs), remove_spectral_norm(ours)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours.weight, framework.nn.Parameter)
    assert_close(ours.weight.detach(), theirs.weight.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert not ours._forward_pre_hooks and not ours.__dict__.get("_state_dict_hooks")
    assert not ours.__dict__.get("_load_state_dict_pre_hooks")
    assert_close(ours(framework.tensor(x)).detach(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12,
                 atol=1e-12)
    spectral_norm(ours)  # and it can be applied again


def test_spectral_norm_new_vectors_are_unit_and_drawn_u_then_v(torch):
    """Without torch's values: u then v from the global generator, normalised, no power iteration yet."""
    framework.manual_seed(3)
    lin = spectral_norm(framework.nn.Linear(4, 3))
    framework.manual_seed(3)
    w = framework.nn.Linear(4, 3).weight
    u, v = framework.empty(3).normal_(0, 1), framework.empty(4).normal_(0, 1)
    assert_close(lin.weight_u, (u / u.norm()).detach())
    assert_close(lin.weight_v, (v / v.norm()).detach())
    assert_close(lin.weight, w.detach())  # until the first forward, the plain weight is the original's value


def test_state_dict_older_than_version_1_is_loaded_as_torch(torch):
    """A pre-1.1 state dict: weight, weight_orig and weight_u but no weight_v; v is solved so that sigma stays."""
    theirs, ours = _pair(torch, lambda m: m.nn.Linear(5, 3), "float64")
    theirs(torch.ones(1, 5, dtype=torch.float64)), ours(framework.ones(1, 5, dtype=framework.float64))
    old = {k: v.detach().clone() for k, v in theirs.state_dict().items() if k != "weight_v"}
    old["weight"] = theirs.weight.detach().clone()
    theirs.load_state_dict(dict(old))
    ours.load_state_dict({k: framework.tensor(v.numpy()) for k, v in old.items()})
    assert_close(ours.weight_v, theirs.weight_v.numpy(), rtol=1e-10, atol=1e-10)


def test_spectral_norm_in_eval_saves_the_buffers_themselves(torch):
    """In eval the graph saved u and v unchanged; a training forward before backward then changes them in place."""
    outcomes = []
    for m in (torch, framework):
        m.manual_seed(0)
        lin = m.nn.utils.spectral_norm(m.nn.Linear(3, 2)).eval()
        out = lin(m.ones(1, 3)).sum()
        lin.train()(m.ones(1, 3))
        outcomes.append(error_of(out.backward)[0])
    assert outcomes[0] == outcomes[1] == "RuntimeError"


def test_spectral_norm_errors_match_torch(torch):
    cases = [
        lambda m: m.nn.utils.spectral_norm(m.nn.utils.spectral_norm(m.nn.Linear(2, 2))),
        lambda m: m.nn.utils.spectral_norm(m.nn.Linear(2, 2), n_power_iterations=0),
        lambda m: m.nn.utils.spectral_norm(m.nn.Linear(2, 2, bias=False), name="bias"),
        lambda m: m.nn.utils.spectral_norm(m.nn.Linear(2, 2), name="nothing"),
        lambda m: m.nn.utils.spectral_norm(m.nn.LazyLinear(2)),
        lambda m: m.nn.utils.remove_spectral_norm(m.nn.Linear(2, 2)),
        lambda m: m.nn.utils.remove_spectral_norm(m.nn.utils.spectral_norm(m.nn.Linear(2, 2)), name="bias"),
    ]
    for case in cases:
        ours, theirs = error_of(lambda: case(framework)), error_of(lambda: case(torch))
        assert ours == theirs != ("ok",)


def test_parametrized_spectral_norm_default_dim_for_every_conv_transpose(torch):
    """parametrizations.spectral_norm takes dim=1 for ConvTranspose1d/3d too (it did for 2d only)."""
    for m in (torch, framework):
        m.manual_seed(0)
    for cls in ("ConvTranspose1d", "ConvTranspose3d"):
        layer = framework.nn.utils.parametrizations.spectral_norm(getattr(framework.nn, cls)(3, 2, 2))
        assert layer.parametrizations.weight[0].dim == 1
        assert tuple(layer.parametrizations.weight[0]._u.shape) == (2,)
        t = torch.nn.utils.parametrizations.spectral_norm(getattr(torch.nn, cls)(3, 2, 2))
        assert tuple(t.parametrizations.weight[0]._u.shape) == (2,)
