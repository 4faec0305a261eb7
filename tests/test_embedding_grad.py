"""Embedding's weight gradient (one bincount over (token, column) bins): repeated tokens add up, as torch's."""
import numpy as np
import pytest

import framework
from framework.testing import assert_close, gradcheck

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_weight_grad_matches_torch(dtype, padding_idx):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((7, 5)).astype(dtype)
    idx = rng.integers(0, 7, (4, 9))  # 36 tokens over 7 rows: many repeats
    g = rng.standard_normal((4, 9, 5)).astype(dtype)
    wt, wf = torch.tensor(w, requires_grad=True), framework.tensor(w, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(idx), wt, padding_idx=padding_idx).backward(torch.tensor(g))
    framework.nn.functional.embedding(framework.tensor(idx), wf, padding_idx=padding_idx).backward(
        framework.tensor(g))
    tol = 1e-12 if dtype == "float64" else 1e-5
    assert_close(wf.grad, wt.grad.numpy(), rtol=tol, atol=tol)
    assert wf.grad.dtype == getattr(framework, dtype)


def test_embedding_gradcheck_and_double_backward_node():
    rng = np.random.default_rng(1)
    w = framework.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    idx = framework.tensor([[0, 5, 0], [3, 3, 3]])
    assert gradcheck(lambda w: framework.nn.functional.embedding(idx, w) ** 2, [w])
    g = framework.tensor(rng.standard_normal((2, 3, 3)), requires_grad=True)
    (gw,) = framework.autograd.grad(framework.nn.functional.embedding(idx, w), w, g, create_graph=True)
    assert gw.grad_fn.name() == "EmbeddingDenseBackwardBackward0"
    (gw * gw).sum().backward()
    expected = np.zeros((6, 3))
    np.add.at(expected, idx.cpu().numpy(), g.detach().cpu().numpy())
    assert_close(gw, expected, rtol=1e-12, atol=1e-12)
    assert_close(g.grad, 2 * expected[idx.cpu().numpy()], rtol=1e-12, atol=1e-12)
