"""layer_norm as one NativeLayerNormBackward0 node (ops/normalization.py), against torch and by gradcheck."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck

CASES = [((4, 6), (6,)), ((2, 3, 5), (5,)), ((2, 3, 4), (3, 4))]


def _run(m, x0, w0, b0, g0, shape, create_graph: bool):
    x = m.tensor(x0, requires_grad=True)
    w = None if w0 is None else m.tensor(w0, requires_grad=True)
    b = None if b0 is None else m.tensor(b0, requires_grad=True)
    out = m.nn.functional.layer_norm(x, shape, w, b, eps=1e-5)
    leaves = [t for t in (x, w, b) if t is not None]
    grads = m.autograd.grad(out, leaves, m.tensor(g0), create_graph=create_graph)
    second = None
    if create_graph:  # the second derivative of <grad_x, grad_x> with respect to every leaf
        second = m.autograd.grad((grads[0] * grads[0]).sum(), leaves, allow_unused=True)  # bias: unused (None)
    host = [None if t is None else np.array(t.detach().cpu().numpy()) for t in (out, *grads, *(second or ()))]
    return out.grad_fn.name(), host


@pytest.mark.parametrize("xs,shape", CASES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("create_graph", [False, True])
def test_layer_norm_matches_torch_values_grads_node_and_double_backward(xs, shape, affine, create_graph):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(xs) + 3 * affine)
    x0, g0 = rng.standard_normal(xs), rng.standard_normal(xs)
    w0 = rng.standard_normal(shape) if affine else None
    b0 = rng.standard_normal(shape) if affine else None
    ours_name, ours = _run(framework, x0, w0, b0, g0, shape, create_graph)
    theirs_name, theirs = _run(torch, x0, w0, b0, g0, shape, create_graph)
    assert ours_name == theirs_name == "NativeLayerNormBackward0"
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_layer_norm_float32_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x0, w0, b0, g0 = (rng.standard_normal(s).astype(np.float32) for s in ((8, 16, 32), (32,), (32,), (8, 16, 32)))
    got = [_run(m, x0, w0, b0, g0, (32,), False)[1] for m in (framework, torch)]
    for a, b in zip(*got):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("xs,shape", CASES)
def test_layer_norm_gradcheck_float64(xs, shape):
    rng = np.random.default_rng(len(xs))
    x = framework.tensor(rng.standard_normal(xs), requires_grad=True)
    w = framework.tensor(rng.standard_normal(shape), requires_grad=True)
    b = framework.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda x, w, b: framework.nn.functional.layer_norm(x, shape, w, b), [x, w, b])
    assert gradcheck(lambda x: framework.nn.functional.layer_norm(x, shape), [x])


def test_layer_norm_graph_holds_one_output_sized_buffer():
    """The node keeps x (alive anyway), weight, bias and per-row statistics, not a normalised copy: the forward
    leaves one output-sized buffer live (the composite of sub/div/mul/add kept three or four)."""
    import tracemalloc

    x = framework.randn(256, 512, requires_grad=True)
    w = framework.ones(512, requires_grad=True)
    b = framework.zeros(512, requires_grad=True)
    nbytes = 256 * 512 * 4
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = framework.nn.functional.layer_norm(x, (512,), w, b)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert nbytes <= held < 1.5 * nbytes
