"""nn.RNN/LSTM/GRU and the cells: torch's parameter names/shapes, and with torch's weights (float64) the same
outputs, final states and gradients (inputs, initial states, every parameter)."""
import math

import numpy as np
import pytest

import framework
from framework.testing import assert_close

torch = pytest.importorskip("torch")


def copy_weights(t_module, f_module):
    """Load torch's state_dict into the framework module (the keys and shapes must agree)."""
    state = {k: framework.tensor(v.detach().cpu().numpy()) for k, v in t_module.state_dict().items()}
    f_module.load_state_dict(state)


def _pair(cls_name, *args, **kwargs):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    f = getattr(framework.nn, cls_name)(*args, **kwargs).double()
    assert [(n, tuple(p.shape)) for n, p in f.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    copy_weights(t, f)
    return t, f


def _grads_match(t_module, f_module, pairs):
    for (n, p), (tn, tp) in zip(f_module.named_parameters(), t_module.named_parameters()):
        assert n == tn
        assert_close(p.grad, tp.grad.cpu().numpy(), rtol=1e-9, atol=1e-11)
    for f, t in pairs:
        assert_close(f.grad, t.grad.cpu().numpy(), rtol=1e-9, atol=1e-11)


def _tensors(m, arrays):
    return [m.tensor(a, requires_grad=True) for a in arrays]


CONFIGS = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2)),
    ("LSTM", dict(num_layers=2)),
    ("LSTM", dict(bidirectional=True, batch_first=True)),
    ("LSTM", dict(num_layers=2, bidirectional=True, bias=False)),
    ("GRU", dict()),
    ("GRU", dict(num_layers=3, bidirectional=True, batch_first=True)),
]


@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{'-'.join(k)}" for n, k in CONFIGS])
def test_recurrent_layer_matches_torch(name, kwargs, with_state):
    t, f = _pair(name, 3, 4, **kwargs)
    rng = np.random.default_rng(0)
    T, N = 5, 2
    x = rng.standard_normal((N, T, 3) if kwargs.get("batch_first") else (T, N, 3))
    n_states = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    states = [rng.standard_normal((n_states, N, 4)) for _ in range(2 if name == "LSTM" else 1)]
    results = []
    for m, mod in ((framework, f), (torch, t)):
        xs = _tensors(m, [x] + (states if with_state else []))
        hx = None
        if with_state:
            hx = (xs[1], xs[2]) if name == "LSTM" else xs[1]
        out, h = mod(xs[0], hx)
        hs = list(h) if name == "LSTM" else [h]
        loss = (out * out).sum() + sum((s * s * s).sum() for s in hs)
        loss.backward()
        results.append((out, hs, xs))
    (out, hs, xs), (t_out, t_hs, t_xs) = results
    assert tuple(out.shape) == tuple(t_out.shape)
    assert_close(out.detach(), t_out.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    for h, th in zip(hs, t_hs):
        assert_close(h.detach(), th.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    _grads_match(t, f, zip(xs, t_xs))


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(name):
    t, f = _pair(name, 3, 4, num_layers=2)
    x = np.random.default_rng(1).standard_normal((6, 3))
    out, h = f(framework.tensor(x))
    t_out, t_h = t(torch.tensor(x))
    assert_close(out, t_out.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    assert_close(h[0] if name == "LSTM" else h, (t_h[0] if name == "LSTM" else t_h).detach().cpu().numpy(),
                 rtol=1e-10, atol=1e-12)


def test_dropout_between_layers():
    # p=1 zeroes the first layer's output: deterministic, so it is compared with torch exactly
    t, f = _pair("LSTM", 3, 4, num_layers=2, dropout=1.0)
    x = np.random.default_rng(2).standard_normal((4, 2, 3))
    out, _ = f(framework.tensor(x))
    t_out, _ = t(torch.tensor(x))
    assert_close(out, t_out.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    f.eval(), t.eval()
    assert_close(f(framework.tensor(x))[0], t(torch.tensor(x))[0].detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    # p=0.5 in training differs from eval; the last layer's output is never dropped (no zeros in it)
    f2 = framework.nn.GRU(3, 4, 2, dropout=0.5).double()
    xs = framework.tensor(x)
    assert not np.allclose(f2(xs)[0].detach().cpu().numpy(), f2.eval()(xs)[0].detach().cpu().numpy())


def test_default_init_is_torch_uniform():
    m = framework.nn.LSTM(10, 25, 2)
    bound = 1 / math.sqrt(25)
    for p in m.parameters():
        a = p.detach().cpu().numpy()
        assert a.min() >= -bound and a.max() <= bound and a.std() > bound / 2
    assert [n for n, _ in m.named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
        "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"]


def test_bad_input_errors():
    m = framework.nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        m(framework.ones(2, 1, 5))
    with pytest.raises(RuntimeError, match="Expected hidden size \\(1, 1, 4\\), got \\[1, 2, 4\\]"):
        m(framework.ones(2, 1, 3), framework.zeros(1, 2, 4))


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, batched):
    t, f = _pair(name, 3, 5)
    rng = np.random.default_rng(3)
    shape = (2,) if batched else ()
    x = rng.standard_normal(shape + (3,))
    states = [rng.standard_normal(shape + (5,)) for _ in range(2 if name == "LSTMCell" else 1)]
    outs = []
    for m, mod in ((framework, f), (torch, t)):
        xs = _tensors(m, [x] + states)
        h = mod(xs[0], (xs[1], xs[2]) if name == "LSTMCell" else xs[1])
        h2 = mod(xs[0] * 2, h)  # two steps, the second from the first's state
        hs = list(h2) if name == "LSTMCell" else [h2]
        sum((s * s).sum() for s in hs).backward()
        outs.append((hs, xs))
    (hs, xs), (t_hs, t_xs) = outs
    for h, th in zip(hs, t_hs):
        assert_close(h.detach(), th.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    _grads_match(t, f, zip(xs, t_xs))


def test_float32_lstm_close_to_torch():
    torch.manual_seed(0)
    t = torch.nn.LSTM(3, 4, 2, batch_first=True)
    f = framework.nn.LSTM(3, 4, 2, batch_first=True)
    copy_weights(t, f)
    x = np.random.default_rng(4).standard_normal((2, 6, 3)).astype(np.float32)
    out, (h, c) = f(framework.tensor(x))
    t_out, (t_h, t_c) = t(torch.tensor(x))
    assert out.dtype == framework.float32
    assert_close(out, t_out.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)
    assert_close(c, t_c.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_framework_weights_load_into_torch(name):
    """And back: a framework model's state_dict loads into torch's module (same keys/shapes), same outputs."""
    framework.manual_seed(0)
    f = getattr(framework.nn, name)(3, 4, 2, bidirectional=True).double()
    t = getattr(torch.nn, name)(3, 4, 2, bidirectional=True).double()
    t.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in f.state_dict().items()})
    x = np.random.default_rng(5).standard_normal((4, 2, 3))
    assert_close(f(framework.tensor(x))[0], t(torch.tensor(x))[0].detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
