"""In-place ops that save their input's old values (torch's original_self = self.clone()): under create_graph the
gradient's graph goes through that clone's CloneBackward0 node, as torch's does, and the values are torch's."""
from __future__ import annotations

import numpy as np
import pytest

import framework

OPS = {
    "sin_": lambda x, w: x.sin_(),
    "cos_": lambda x, w: x.cos_(),
    "log_": lambda x, w: x.abs().add(0.5).log_(),
    "abs_": lambda x, w: x.abs_(),
    "clamp_": lambda x, w: x.clamp_(min=-0.2, max=0.7),
    "log1p_": lambda x, w: x.abs().log1p_(),
    "mul_": lambda x, w: x.mul_(w),
    "div_": lambda x, w: x.div_(w.add(2.0)),
}


def _graph(f) -> str:
    if f is None:
        return "-"
    kids = ",".join(_graph(n) for n, _ in f.next_functions)
    return type(f).__name__ + (f"({kids})" if kids else "")


def _run(m, name):
    a = m.tensor(np.linspace(-0.9, 0.8, 5), dtype=m.float64, requires_grad=True)
    w = m.tensor(np.linspace(0.3, 1.5, 5), dtype=m.float64, requires_grad=True)
    y = OPS[name](a * 1.5, w)
    gs = m.autograd.grad((y * y).sum(), [a, w], create_graph=True, allow_unused=True)
    gg = m.autograd.grad(sum(g.sum() for g in gs if g is not None), [a, w], allow_unused=True)
    return [_graph(y.grad_fn)] + [_graph(None if g is None else g.grad_fn) for g in gs], \
        [None if t is None else t.detach().cpu().numpy() for t in gg]


@pytest.mark.parametrize("name", sorted(OPS))
def test_create_graph_through_original_self_matches_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(framework, name), _run(torch, name)
    assert ours[0] == theirs[0]  # node names of the forward and of both create_graph gradients
    for mine, ref in zip(ours[1], theirs[1]):
        assert (mine is None) == (ref is None)
        if mine is not None:
            np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-14)
