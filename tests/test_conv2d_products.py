"""conv2d's products (ops/conv/convolution_2d.py): shapes of several proportions (OH·OW below C·kh·kw, O below and
above OH·OW) against torch and a float64 gradcheck; the columns built a chunk of output rows at a time (several
chunks of two sizes, any stride, padding and dilation) against torch; a step's live memory below its columns'
size; and a LeNet-style step (conv, ReLU, 2×2 max-pool) replayed under framework.compile bit for bit."""
import tracemalloc

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework.testing import gradcheck

# (x shape, w shape, padding): OH·OW < C·kh·kw (one GEMM), O <= OH·OW (per sample), O > OH·OW (tensordot)
SHAPES = {
    "one_gemm": ((3, 6, 12, 12), (16, 6, 5, 5), 0),
    "per_sample": ((3, 1, 14, 14), (6, 1, 5, 5), 1),
    "tensordot": ((2, 1, 4, 4), (20, 1, 2, 2), 0),
}


def _case(name, seed=0):
    rng = np.random.default_rng(seed)
    xs, ws, pad = SHAPES[name]
    return rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0]), pad


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    x, w, b, pad = _case(name)
    grads = []
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = m.nn.functional.conv2d(*ts, padding=pad)
        out.backward(m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape))))
        grads.append([out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ts])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_float64_gradcheck(name):
    x, w, b, pad = _case(name)
    x, w = x[:1, :, :8, :8], w[:, :, :3, :3]  # (small enough for finite differences; the same branch choice)
    inputs = [framework.tensor(a, requires_grad=True) for a in (x, w, b)]
    assert gradcheck(lambda *t: F.conv2d(*t, padding=pad), inputs)


@pytest.mark.parametrize("stride,padding,dilation", [(1, 0, 1), (2, 1, 1), (1, 2, 2), ((2, 1), (0, 1), (1, 2))])
def test_chunked_columns_match_torch(monkeypatch, stride, padding, dilation):
    """A chunk budget of three output rows' columns: the OH rows come in several chunks, of two sizes."""
    torch = pytest.importorskip("torch")
    from framework.ops.conv import convolution_2d

    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((3, 4, 16, 13)), rng.standard_normal((5, 4, 3, 3)), rng.standard_normal(5)
    conf = dict(stride=stride, padding=padding, dilation=dilation)
    out_shape = tuple(torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), **conf).shape)
    assert out_shape[2] % 3  # (a last chunk shorter than the others)
    row_bytes = 4 * 3 * 3 * out_shape[3] * 3 * 8  # C·kh·kw · OW · N float64s
    monkeypatch.setattr(convolution_2d, "_CHUNK_BYTES", 3 * row_bytes)
    g = rng.standard_normal(out_shape)
    results = []
    for m in (framework, torch):
        ts = [m.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = m.nn.functional.conv2d(*ts, **conf)
        out.backward(m.tensor(g))
        results.append([out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ts])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


def test_step_keeps_no_columns():
    """A conv2d forward and backward never hold a whole batch's columns (C·kh·kw times the input's size): the
    peak of traced bytes stays below them."""
    rng = np.random.default_rng(3)
    x = framework.tensor(rng.standard_normal((64, 6, 12, 12)).astype(np.float32), requires_grad=True)
    conv = framework.nn.Conv2d(6, 16, 5)
    columns = 6 * 5 * 5 * 64 * 8 * 8 * 4
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        conv(x).sum().backward()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert 0 < peak < columns / 2, (peak, columns)


@pytest.mark.explicit_device
def test_lenet_step_replays_under_compile_bit_for_bit():
    def make():
        framework.manual_seed(0)
        nn = framework.nn
        model = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))
        opt = framework.optim.Adam(model.parameters(), lr=1e-2)

        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        return model, step

    rng = np.random.default_rng(0)
    batches = [(framework.tensor(rng.standard_normal((4, 1, 28, 28)).astype(np.float32)),
                framework.tensor(rng.integers(0, 10, 4))) for _ in range(5)]
    model_e, step_e = make()
    eager = [step_e(*b).numpy() for b in batches]
    model_c, step_c = make()
    compiled = framework.compile(step_c, fullgraph=True)
    replay = [compiled(*b).numpy() for b in batches]
    assert all(np.array_equal(a, r) for a, r in zip(eager, replay))
    for pe, pc in zip(model_e.parameters(), model_c.parameters()):
        assert np.array_equal(pe.detach().numpy(), pc.detach().numpy())
