"""conv2d's products (ops/conv/convolution_2d.py): each weight-gradient strategy (one GEMM over all samples, per-sample
products, tensordot) against torch and a float64 gradcheck, and a LeNet-style step (conv, ReLU, 2×2 max-pool) replayed
under framework.compile bit for bit."""
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
