"""PyTorch-exactness, round two of the create_graph family (issue 15): causes the fuzzer (tests/fuzz.py) found in
`--seed 0`, each checked against torch: grad_fn names and requires_grad of create_graph gradients, and graphs.
"""
from __future__ import annotations

import numpy as np
import pytest

import framework

torch = pytest.importorskip("torch")


def _graph(f) -> str:
    """The node names of a graph, nested: 'TransposeBackward0(UnsafeViewBackward0(...))'."""
    if f is None:
        return "-"
    kids = ",".join(_graph(n) for n, _ in f.next_functions)
    return type(f).__name__ + (f"({kids})" if kids else "")


def _meta(t) -> tuple:
    """What the fuzzer compares of a tensor besides its values."""
    return (tuple(t.shape), t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__)


def _both(fn):
    """fn(m) under framework and torch: the two results (equal metadata asserted by the caller)."""
    return fn(framework), fn(torch)


@pytest.mark.parametrize("shapes", [((1, 4, 2), (4, 2, 1)), ((1, 4, 2), (3, 2, 5)), ((3, 4, 2), (1, 2, 5)),
                                    ((1, 4, 2), (1, 2, 5)), ((1, 1, 4, 2), (4, 2, 1)), ((1, 4, 2), (2, 3, 2, 5))])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_matmul_squeezes_a_single_batch_that_requires_grad(shapes, needs):
    """3-D @ 3-D where one side's batch is 1 and it requires grad: ATen squeezes it and folds into one mm (the
    fuzzer's seed 1879: TransposeBackward0 over UnsafeViewBackward0 over MmBackward0, not a bmm)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]

    def fn(m):
        a, b = (m.tensor(x, requires_grad=r) for x, r in zip(arrays, needs))
        out = a @ b
        out.sum().backward()
        return _graph(out.grad_fn), out.detach().numpy(), a.grad is None, b.grad is None

    ours, theirs = _both(fn)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2:] == theirs[2:]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")  # torch's own warning
@pytest.mark.parametrize("layout", ["expand", "step_slice", "transposed", "contiguous"])
def test_create_graph_first_grad_of_a_leaf_that_is_not_dense_is_a_clone(layout):
    """torch's clone_obey_contract: a leaf's first .grad under create_graph is empty_strided(...).copy_(g)
    (CopyBackwards) when the leaf is non-overlapping and dense, else g.clone() (CloneBackward0; seed 7466: the
    detach of an autograd.grad result that is an expand)."""
    base = np.arange(1.0, 13.0).reshape(3, 4)

    def fn(m):
        x = m.tensor(base, dtype=m.float64)
        leaf = {"expand": x[0].expand(3, 4), "step_slice": x[:, ::2], "transposed": x.t(),
                "contiguous": x}[layout].detach().requires_grad_()
        (leaf * leaf).sum().backward(create_graph=True)
        return _meta(leaf.grad), type(leaf.grad.grad_fn).__name__, leaf.grad.detach().numpy().tolist()

    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((), (2, 1))])
def test_maximum_create_graph_gradient_is_masked_fill(op, shapes):
    """torch's formula where(a == b, grad / 2, grad).masked_fill_(lost, 0): under create_graph with a gradient
    that requires grad, each side's gradient is a MaskedFillBackward0 node (seed 9090), then summed to its
    shape; a tie splits it, a NaN gives both sides all of it, and an infinite gradient is 0 where a side lost."""
    rng = np.random.default_rng(1)
    xa, xb = (np.round(rng.standard_normal(s), 0) for s in shapes)  # rounded: some ties

    def fn(m):
        a = m.tensor(xa, dtype=m.float64, requires_grad=True)
        b = m.tensor(xb, dtype=m.float64, requires_grad=True)
        out = getattr(m, op)(a, b)
        w = m.tensor(np.full(out.shape, 1.5), dtype=m.float64, requires_grad=True)
        ga, gb = m.autograd.grad((out * w).sum(), [a, b], create_graph=True)
        second = m.autograd.grad((ga * ga).sum() + gb.sum(), [w])[0]
        return _meta(ga), _meta(gb), ga.detach().numpy().tolist(), gb.detach().numpy().tolist(), \
            second.numpy().tolist()

    ours, theirs = _both(fn)
    assert ours == theirs


def test_maximum_gradient_with_nan_and_inf():
    def fn(m):
        a = m.tensor([1.0, float("nan"), 2.0, 3.0], requires_grad=True)
        b = m.tensor([1.0, 0.0, 5.0, 1.0], requires_grad=True)
        m.maximum(a, b).backward(m.tensor([2.0, 3.0, float("inf"), float("-inf")]))
        return a.grad.numpy().tolist(), b.grad.numpy().tolist()

    ours, theirs = _both(fn)
    np.testing.assert_array_equal(np.array(ours), np.array(theirs))
