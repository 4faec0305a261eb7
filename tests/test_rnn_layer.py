"""The fused LSTM layer (framework/ops/recurrent.py, torch's MkldnnRnnLayerBackward0): its outputs and gradients
equal the step-by-step ops' (float64, 1e-10), gradcheck, double backward, and float32 nn.LSTM against torch."""
import numpy as np
import pytest

import framework
from framework.ops.recurrent import lstm_layer, lstm_layer_reference
from framework.testing import assert_close, gradcheck

T, N, I, H = 5, 3, 4, 6


def _inputs(bias=True, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((T, N, I)), rng.uniform(-0.5, 0.5, (4 * H, I)), rng.uniform(-0.5, 0.5, (4 * H, H)),
              rng.uniform(-0.5, 0.5, 4 * H) if bias else None, rng.uniform(-0.5, 0.5, 4 * H) if bias else None,
              rng.standard_normal((N, H)), rng.standard_normal((N, H))]
    return [None if a is None else framework.tensor(a.astype(dtype), requires_grad=True) for a in arrays]


def _host(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_equals_step_by_step_float64(reverse, bias):
    xs = _inputs(bias)
    fused = lstm_layer(*xs, reverse)
    ref = lstm_layer_reference(*xs, reverse)
    assert fused[0].grad_fn.name() == "MkldnnRnnLayerBackward0"
    for a, b in zip(fused, ref):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(1)
    weights = [framework.tensor(rng.standard_normal(tuple(o.shape))) for o in fused]
    leaves = [x for x in xs if x is not None]
    g_fused = framework.autograd.grad([(o * w).sum() for o, w in zip(fused, weights)], leaves)
    g_ref = framework.autograd.grad([(o * w).sum() for o, w in zip(ref, weights)], leaves)
    for a, b in zip(g_fused, g_ref):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_in_row_blocks_equals_step_by_step(reverse):
    """A layer large enough that each step's product runs in row blocks (forward and backward through time)."""
    from framework.ops import recurrent
    t, n, i, h = 3, 16, 16, 128
    assert len(recurrent._row_blocks(np.empty((4 * h, h + i + 1)), (h + i + 1, n))) > 1  # the forward's
    assert len(recurrent._row_blocks(np.empty((h, 4 * h)), (4 * h, n))) > 1  # backward through time's
    rng = np.random.default_rng(7)
    shapes = [(t, n, i), (4 * h, i), (4 * h, h), (4 * h,), (4 * h,), (n, h), (n, h)]
    xs = [framework.tensor(rng.uniform(-0.3, 0.3, s), requires_grad=True) for s in shapes]
    fused, ref = lstm_layer(*xs, reverse), lstm_layer_reference(*xs, reverse)
    for a, b in zip(fused, ref):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)
    weights = [framework.tensor(rng.standard_normal(tuple(o.shape))) for o in fused]
    g_fused = framework.autograd.grad([(o * w).sum() for o, w in zip(fused, weights)], xs)
    g_ref = framework.autograd.grad([(o * w).sum() for o, w in zip(ref, weights)], xs)
    for a, b in zip(g_fused, g_ref):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_backward_twice_leaves_saved_records_alone(reverse):
    """A second backward through the retained graph gives the same gradients: the backward computes its factors
    from the saved gate and cell records without writing into them."""
    xs = _inputs(seed=4)
    y, h, c = lstm_layer(*xs, reverse)
    loss = (y * y).sum() + (h * 2).sum() + c.sum()
    leaves = [x for x in xs if x is not None]
    first = framework.autograd.grad(loss, leaves, retain_graph=True)
    second = framework.autograd.grad(loss, leaves)
    for a, b in zip(first, second):
        assert np.array_equal(_host(a), _host(b))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_fused_gradient_of_one_output(which):
    """Only y, only h_n or only c_n used: the other outputs' gradients are absent, not zeros."""
    xs = _inputs()
    out = lstm_layer(*xs)[which]
    ref = lstm_layer_reference(*xs)[which]
    leaves = [x for x in xs if x is not None]
    for a, b in zip(framework.autograd.grad(out.sum(), leaves), framework.autograd.grad(ref.sum(), leaves)):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_gradcheck(reverse):
    xs = _inputs(seed=3)
    assert gradcheck(lambda *a: lstm_layer(*a, reverse), xs)


def test_fused_double_backward():
    """create_graph=True gives differentiable gradients (recomputed step by step), as torch's layer."""
    xs = _inputs(seed=4)
    leaves = [x for x in xs if x is not None]

    def second(fn):
        y, h, c = fn(*xs)
        grads = framework.autograd.grad((y * y).sum() + (c * h).sum(), leaves, create_graph=True)
        return framework.autograd.grad(sum((g * g).sum() for g in grads), leaves)

    for a, b in zip(second(lstm_layer), second(lstm_layer_reference)):
        assert_close(a, _host(b), rtol=1e-9, atol=1e-11)


def test_fused_output_modified_in_place_is_refused():
    y, _, _ = lstm_layer(*_inputs())
    with framework.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_no_grad_records_nothing():
    with framework.no_grad():
        y, h, c = lstm_layer(*_inputs())
    assert y.grad_fn is None and not y.requires_grad and h.shape == (N, H) and c.shape == (N, H)


# ---- nn.LSTM in float32 against torch (its CPU oneDNN layer) -----------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"bias": False},
                                    {"batch_first": True}, {"num_layers": 2}])
@pytest.mark.parametrize("with_state", [False, True])
def test_lstm_float32_matches_torch(kwargs, with_state):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    t = torch.nn.LSTM(I, H, **kwargs)
    f = framework.nn.LSTM(I, H, **kwargs)
    f.load_state_dict({k: framework.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((T, N, I)).astype(np.float32)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch = T if kwargs.get("batch_first") else N
    h0, c0 = (rng.standard_normal((layers, batch, H)).astype(np.float32) for _ in range(2))
    xt, xf = torch.tensor(x, requires_grad=True), framework.tensor(x, requires_grad=True)
    st = (torch.tensor(h0, requires_grad=True), torch.tensor(c0, requires_grad=True)) if with_state else None
    sf = (framework.tensor(h0, requires_grad=True), framework.tensor(c0, requires_grad=True)) if with_state else None
    yt, (ht, ct) = t(xt, st)
    yf, (hf, cf) = f(xf, sf)
    assert type(yf.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert type(hf.grad_fn).__name__ == type(ht.grad_fn).__name__
    for a, b in ((yf, yt), (hf, ht), (cf, ct)):
        assert_close(a, b.detach().numpy(), rtol=1e-4, atol=1e-5)
    ((yt * yt).sum() + ht.sum() + (ct * 3).sum()).backward()
    ((yf * yf).sum() + hf.sum() + (cf * 3).sum()).backward()
    pairs = [(xf, xt)] + (list(zip(sf, st)) if with_state else [])
    pairs += [(p, q) for (_, p), (_, q) in zip(f.named_parameters(), t.named_parameters())]
    for a, b in pairs:
        assert_close(a.grad, b.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_float32_graph_like_torch():
    """The layer node's edges: input, the four weights, h0 and c0, as torch's MkldnnRnnLayerBackward0."""
    torch = pytest.importorskip("torch")
    t, f = torch.nn.LSTM(I, H, bias=False), framework.nn.LSTM(I, H, bias=False)
    x = np.ones((T, N, I), np.float32)
    yt, _ = t(torch.tensor(x, requires_grad=True))
    yf, _ = f(framework.tensor(x, requires_grad=True))
    names = lambda node: [None if n is None else type(n).__name__ for n, _ in node.next_functions]  # noqa: E731
    assert names(yf.grad_fn) == names(yt.grad_fn)


def test_lstm_float64_stays_step_by_step():
    """torch runs a float64 LSTM step by step (no oneDNN): its output is a StackBackward0, and so is ours."""
    f = framework.nn.LSTM(I, H).double()
    y, _ = f(framework.tensor(np.ones((T, N, I)), requires_grad=True))
    assert y.grad_fn.name() == "StackBackward0"


def _node_names(fn, seen=None, out=None):
    """The graph's node class names, depth first (each node once)."""
    out = [] if out is None else out
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return out
    seen.add(id(fn))
    out.append(type(fn).__name__)
    for n, _ in fn.next_functions:
        _node_names(n, seen, out)
    return out


@pytest.mark.parametrize("cls", ["GRU", "RNN", "LSTM"])
def test_step_by_step_graph_is_torchs(cls):
    """GRU, RNN and a float64 LSTM record torch's CPU cell graph node for node (unbind, unsafe_chunk, its
    operand order), on two layers and three steps."""
    torch = pytest.importorskip("torch")
    names = []
    for m in (torch, framework):
        net = getattr(m.nn, cls)(3, 4, num_layers=2).double()
        y, _ = net(m.ones(3, 2, 3, dtype=m.float64, requires_grad=True))
        names.append(_node_names(y.grad_fn))
    assert names[1] == names[0]


@pytest.mark.parametrize("rows", [1, 5, 32, 33])
def test_few_row_linear_equals_plain_product(rows):
    """F.linear on a few rows runs the transposed product (weight @ x.T): same values, C-contiguous, same grads."""
    rng = np.random.default_rng(7)
    x = framework.tensor(rng.standard_normal((rows, 16)), requires_grad=True)
    w = framework.tensor(rng.standard_normal((200, 16)), requires_grad=True)
    b = framework.tensor(rng.standard_normal(200), requires_grad=True)
    out = framework.nn.functional.linear(x, w, b)
    assert out.is_contiguous() and out.grad_fn.name() == "AddmmBackward0"
    xa, wa = _host(x), _host(w)
    assert_close(out, xa @ wa.T + _host(b), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal((rows, 200))
    out.backward(framework.tensor(g))
    assert_close(x.grad, g @ wa, rtol=1e-12, atol=1e-12)
    assert_close(w.grad, g.T @ xa, rtol=1e-12, atol=1e-12)


def test_lstm_float16_stays_step_by_step():
    """torch's CPU runs a float16 LSTM step by step too (oneDNN's layer is for float32 here)."""
    f = framework.nn.LSTM(I, H).half()
    y, _ = f(framework.tensor(np.ones((T, N, I), np.float16), requires_grad=True))
    assert y.grad_fn.name() == "StackBackward0"


def test_batch_of_one_leaves_states_and_incoming_gradients_alone():
    """With one sequence h0.T and the incoming (1, H) gradients' .T are already contiguous: the layer's in-place
    state buffers must still be its own, not h0 or the caller's gradient tensors."""
    rng = np.random.default_rng(8)
    xs = [framework.tensor(a, requires_grad=True) for a in (
        rng.standard_normal((T, 1, I)), rng.uniform(-0.5, 0.5, (4 * H, I)), rng.uniform(-0.5, 0.5, (4 * H, H)),
        rng.uniform(-0.5, 0.5, 4 * H), rng.uniform(-0.5, 0.5, 4 * H), rng.standard_normal((1, H)),
        rng.standard_normal((1, H)))]
    h0, c0 = _host(xs[5]).copy(), _host(xs[6]).copy()
    outs = lstm_layer(*xs)
    assert np.array_equal(_host(xs[5]), h0) and np.array_equal(_host(xs[6]), c0)
    seeds = [framework.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    kept = [_host(s).copy() for s in seeds]
    got = framework.autograd.grad(list(outs), xs, seeds)
    assert all(np.array_equal(_host(s), k) for s, k in zip(seeds, kept))
    want = framework.autograd.grad(list(lstm_layer_reference(*xs)), xs, seeds)
    for a, b in zip(got, want):
        assert_close(a, _host(b), rtol=1e-10, atol=1e-12)
