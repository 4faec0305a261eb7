"""Engine corner cases that the fast paths must keep (torch is the oracle)."""
from __future__ import annotations

import numpy as np
import pytest

import framework as fw

# engine bookkeeping on CPU tensors (compared with torch through .numpy())
pytestmark = pytest.mark.explicit_device

torch = pytest.importorskip("torch")


def _run(m):
    x = m.ones(3, requires_grad=True)
    s = (x * 2).sum()
    m.autograd.backward([s, s])  # the same root twice: its gradients add up, each edge counted once
    return x.grad


def test_same_root_twice_accumulates_like_torch():
    np.testing.assert_allclose(_run(fw).numpy(), _run(torch).numpy())


def test_fan_in_sums_and_retain_graph_reuses_saved_values():
    for m in (fw, torch):
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        h = x.tanh()
        y = (h * 3 + h * h + h).sum()  # h fans out three ways: its buffer sums three gradients
        y.backward(retain_graph=True)
        y.backward()
        if m is fw:
            got = x.grad.numpy()
        else:
            want = x.grad.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
