"""Searching/counting helpers (bucketize, searchsorted, histc, bincount, isin, unique_consecutive, tril/triu_indices,
aminmax, msort) and shape helpers (tensor_split, h/v/dsplit, *stack, atleast_*d, broadcast_tensors, meshgrid, rot90,
diff, vander, combinations, cartesian_prod) against torch: values, dtypes, grad_fn names, gradients, errors; and
float64 gradchecks without torch. The differentiable ones have op-table rows too (tests/op_table.py).
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck


def _torch():
    return pytest.importorskip("torch")


def _first_sentence(e: BaseException) -> str:
    line = str(e).split("\n")[0]
    return re.split(r"(?<=[.!])\s", line)[0]


def _host(x):
    if isinstance(x, (tuple, list)):
        return [_host(t) for t in x]
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def _result(fn, m):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ran", _host(fn(m))
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        return type(e).__name__, _first_sentence(e)


def _assert_same(ours, theirs):
    assert ours[0] == theirs[0]
    if ours[0] != "ran":
        assert ours == theirs
        return
    a, b = ours[1], theirs[1]
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_allclose(x, y, rtol=1e-6)
    else:
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6)


B = [1.0, 3.0, 5.0, 7.0]
V = [[0.0, 1.0, 3.5], [5.0, 7.0, 9.0]]
U = [1, 1, 2, 2, 3, 1, 1, 2]

VALUES = [
    lambda m: m.bucketize(m.tensor(V), m.tensor(B)),
    lambda m: m.bucketize(m.tensor(V), m.tensor(B), right=True, out_int32=True),
    lambda m: m.bucketize(3.0, m.tensor(B)),
    lambda m: m.searchsorted(m.tensor(B), m.tensor(V)),
    lambda m: m.searchsorted(m.tensor(B), m.tensor(V), side="right"),
    lambda m: m.searchsorted(m.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), m.tensor([[3.0, 6.0], [1.0, 4.0]]),
                             right=True),
    lambda m: m.searchsorted(m.tensor([5.0, 1.0, 3.0]), m.tensor([3.0, 4.0]), sorter=m.tensor([1, 2, 0])),
    lambda m: m.searchsorted(m.tensor(B), 5.0),
    lambda m: m.histc(m.tensor([1.0, 2, 1, 4, 2.5]), bins=4),
    lambda m: m.histc(m.tensor([1.0, 2, 1, 4, 2.5, -1, 7]), bins=5, min=0, max=5),
    lambda m: m.tensor([1.0, 1.0]).histc(3),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3, 1])),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3]), weights=m.tensor([1.0, 2.0, 3.0, 4.0]), minlength=6),
    lambda m: m.tensor([0, 1, 1, 3]).bincount(m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)),
    lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([2, 4, 7])),
    lambda m: m.isin(m.tensor([1.0, 2.0, 3.0]), 2.0, invert=True),
    lambda m: m.isin(3, m.tensor([2, 3])),
    lambda m: m.tril_indices(3, 4),
    lambda m: m.tril_indices(4, 3, -1),
    lambda m: m.triu_indices(3, 4, 1),
    lambda m: m.triu_indices(4, 3, -2),
    lambda m: m.unique_consecutive(m.tensor(U)),
    lambda m: m.unique_consecutive(m.tensor(U), return_inverse=True, return_counts=True),
    lambda m: m.tensor(U).reshape(2, 4).unique_consecutive(return_counts=True),
    lambda m: m.unique_consecutive(m.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), return_inverse=True,
                                   return_counts=True, dim=0),
    lambda m: m.unique_consecutive(m.tensor([[1, 1, 2], [1, 1, 3]]), return_counts=True, dim=1),
    lambda m: m.aminmax(m.tensor(V)),
    lambda m: m.aminmax(m.tensor(V), dim=1, keepdim=True),
    lambda m: m.tensor(V).aminmax(dim=-2),
    lambda m: m.msort(m.tensor(V[::-1])),
    lambda m: m.vander(m.tensor([1.5, 2.0, -3.0]), 4),
    lambda m: m.vander(m.tensor([1.5, 2.0, -3.0]), increasing=True),
    lambda m: m.vander(m.tensor([1, 2, 3]), 0),
    lambda m: m.vander(m.tensor([1, 2, 3])),
    lambda m: m.combinations(m.tensor([1, 2, 3, 4]), 3),
    lambda m: m.combinations(m.tensor([1.0, 2.0]), with_replacement=True),
    lambda m: m.cartesian_prod(m.tensor([1, 2]), m.tensor([3, 4, 5]), m.tensor([6])),
    lambda m: m.cartesian_prod(m.tensor([1, 2])),
    lambda m: m.tensor_split(m.arange(7), 3),
    lambda m: m.tensor_split(m.arange(7), [1, 5, 9, -1]),
    lambda m: m.arange(12).reshape(3, 4).hsplit(2),
    lambda m: m.hstack([m.tensor(1.0), m.tensor([2.0, 3.0])]),
    lambda m: m.column_stack([m.tensor(1.0), m.tensor([2.0])]),
    lambda m: m.meshgrid(m.tensor(1), m.tensor([2, 3]), indexing="xy"),
    lambda m: m.diff(m.tensor([True, False, False, True])),
    lambda m: m.diff(m.tensor([1, 4, 9, 16]), n=2),
    lambda m: m.diff(m.tensor([[1.0, 2.0]]), dim=0, append=m.tensor([[4.0, 0.0]])),
    lambda m: m.rot90(m.arange(6).reshape(2, 3), 0),
    lambda m: m.diff(m.ones(2, 3), n=0, dim=0, append=m.ones(1, 3)),
    lambda m: m.diff(m.ones(2, 3, dtype=m.int64), prepend=m.ones(2, 1)),
    lambda m: m.histc(m.tensor([1.5, 2.0]), min=0.5, max=2.5, bins=3),
    lambda m: m.unique_consecutive(m.tensor(3.0), return_inverse=True),
    lambda m: m.isin(m.tensor([1, 2]), m.tensor([1.0, 2.5])),
    lambda m: m.tril_indices(3, 3, dtype=m.int32),
    lambda m: m.tril_indices(0, 3),
    lambda m: m.aminmax(m.tensor(2.0), dim=0),
    lambda m: m.atleast_1d(m.tensor(1), m.tensor([2])),
]


@pytest.mark.parametrize("k", range(len(VALUES)))
def test_values_match_torch(k):
    torch = _torch()
    _assert_same(_result(VALUES[k], framework), _result(VALUES[k], torch))


ERRORS = [
    lambda m: m.bincount(m.tensor([-1])),
    lambda m: m.bincount(m.tensor([[1]])),
    lambda m: m.bincount(m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([1]), minlength=-1),
    lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), right=True, side="left"),
    lambda m: m.searchsorted(m.tensor([[1, 2, 3]]), m.tensor([2, 3])),
    lambda m: m.searchsorted(m.tensor([[1, 2, 3], [1, 2, 3]]), m.tensor([[2], [3], [4]])),
    lambda m: m.histc(m.tensor([1, 2])),
    lambda m: m.histc(m.tensor([1.0, 2.0]), bins=0),
    lambda m: m.histc(m.tensor([1.0, 2.0]), min=3, max=1),
    lambda m: m.isin(m.zeros(2), m.zeros(2, dtype=m.bool)),
    lambda m: m.aminmax(m.zeros(0)),
    lambda m: m.rot90(m.zeros(2, 2), 1, [0]),
    lambda m: m.rot90(m.zeros(2), 1),
    lambda m: m.rot90(m.zeros(2, 2), 1, [1, 1]),
    lambda m: m.rot90(m.zeros(2, 2), 1, [0, 2]),
    lambda m: m.hsplit(m.zeros(2, 3), 2),
    lambda m: m.vsplit(m.zeros(3), 1),
    lambda m: m.dsplit(m.zeros(2, 3), 1),
    lambda m: m.hsplit(m.zeros(()), 1),
    lambda m: m.tensor_split(m.zeros(3), 0),
    lambda m: m.diff(m.zeros(())),
    lambda m: m.diff(m.zeros(3), n=-1),
    lambda m: m.vander(m.zeros(2, 2)),
    lambda m: m.vander(m.zeros(2), -1),
    lambda m: m.unique_consecutive(m.zeros(2, 2), dim=3),
    lambda m: m.combinations(m.zeros(2, 2)),
    lambda m: m.cartesian_prod(m.zeros(2, 2)),
    lambda m: m.meshgrid(m.zeros(2), indexing="foo"),
    lambda m: m.hstack([]),
    lambda m: m.diff(m.tensor([1.0, 4.0, 9.0]), prepend=m.tensor(0.0)),
    lambda m: m.diff(m.ones(2, 3), dim=0, append=m.ones(1, 2)),
    lambda m: m.histc(m.tensor([1.0, float("nan")]), bins=2),
    lambda m: m.histc(m.tensor([1.0, 2.0]), min=float("-inf"), max=1),
    lambda m: m.tensor_split(m.ones(3), m.tensor([1], dtype=m.int32)),
    lambda m: m.tensor_split(m.ones(3), m.tensor([1.0])),
    lambda m: m.cartesian_prod(m.zeros(2), m.zeros(2, dtype=m.float64)),
    lambda m: m.meshgrid(m.zeros(2), m.zeros(2, dtype=m.int64), indexing="ij"),
    lambda m: m.broadcast_tensors(m.zeros(2), m.zeros(3)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    torch = _torch()
    ours, theirs = _result(ERRORS[k], framework), _result(ERRORS[k], torch)
    assert ours[0] != "ran"
    assert ours == theirs


def _graph(fn, m, shapes):
    rng = np.random.default_rng(0)
    xs = [m.tensor(np.asarray(np.round(rng.uniform(-2, 2, s) * 2) / 2), requires_grad=True) for s in shapes]  # ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = fn(m, *xs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    names = [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]
    identity = [o is x for o in outs for x in xs]
    total = sum((o * (k + 1.5)).sum() for k, o in enumerate(outs) if o.requires_grad)
    total.backward()
    return names, identity, [_host(o) for o in outs], [_host(x.grad) if x.grad is not None else None for x in xs]


GRAPHS = [
    (lambda m, a: m.tensor_split(a, [1, -1, 7], dim=1), [(5, 4)]),
    (lambda m, a: a.tensor_split(m.tensor([2, 3])), [(5, 4)]),
    (lambda m, a: m.hsplit(a, 3), [(3,)]),
    (lambda m, a: a.dsplit([1]), [(2, 3, 4)]),
    (lambda m, a, b: m.hstack([a, b[:, None]]), [(3, 2), (3,)]),
    (lambda m, a, b: m.dstack([a, b]), [(1, 3), (3,)]),
    (lambda m, a, b: m.column_stack([a, b, b]), [(3, 2), (3,)]),
    (lambda m, a, b: m.atleast_1d(a, b), [(), (2,)]),
    (lambda m, a, b: m.atleast_2d([a, b]), [(), (2,)]),
    (lambda m, a, b: m.atleast_3d(a, b), [(3,), (2, 2)]),
    (lambda m, a, b: m.broadcast_tensors(a, b), [(3, 1), (3, 4)]),
    (lambda m, a, b, c: m.meshgrid(a, b, c, indexing="xy"), [(3,), (4,), (2,)]),
    (lambda m, a, b: m.meshgrid([a, b], indexing="ij"), [(3,), ()]),
    (lambda m, a: [m.rot90(a, k, [1, 0]) for k in range(-1, 5)], [(2, 3)]),
    (lambda m, a, b: m.diff(a, 3, dim=0, append=b), [(3, 2), (2, 2)]),
    (lambda m, a: m.diff(a, 5), [(2, 3)]),
    (lambda m, a: m.aminmax(a, dim=0, keepdim=True), [(4, 3)]),
    (lambda m, a: m.aminmax(a), [(4, 3)]),
    (lambda m, a: m.msort(a), [(4, 3)]),
    (lambda m, a: m.combinations(a, 3, with_replacement=True), [(3,)]),
    (lambda m, a, b: m.cartesian_prod(a, b, a), [(2,), (3,)]),
]


@pytest.mark.parametrize("k", range(len(GRAPHS)))
def test_graphs_match_torch(k):
    """grad_fn names (and which outputs are the inputs themselves), values and gradients (ties shared as torch)."""
    torch = _torch()
    fn, shapes = GRAPHS[k]
    ours, theirs = _graph(fn, framework, shapes), _graph(fn, torch, shapes)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2] + ours[3], theirs[2] + theirs[3]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_vander_has_a_gradient_where_torch_raises():
    """deviation from torch: torch 2.13's vander backward raises for N > 1 (a saved tensor its own cumprod_out
    changes); ours is x ** k's derivative."""
    x = framework.tensor([1.5, -2.0, 0.5], dtype=framework.float64, requires_grad=True)
    y = framework.vander(x)
    assert y.grad_fn.name() == "FlipBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2 * 1.5 + 1, 2 * -2.0 + 1, 2 * 0.5 + 1])
    assert gradcheck(lambda t: framework.vander(t, 4, increasing=True), [x])


def test_meshgrid_without_indexing_warns_as_torch():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        framework.meshgrid(framework.tensor([1.0]), framework.tensor([2.0]))


GRADCHECKS = [
    (lambda a: framework.tensor_split(a, 3, 1)[1], [(2, 5)]),
    (lambda a, b: framework.hstack([a, b]), [(2, 2), (2, 1)]),
    (lambda a, b: framework.vstack([a, b]), [(2,), (1, 2)]),
    (lambda a, b: framework.dstack([a, b]), [(2, 2), (2, 2, 1)]),
    (lambda a, b: framework.column_stack([a, b]), [(3,), (3, 2)]),
    (lambda a: framework.atleast_3d(a) * 2, [(2, 3)]),
    (lambda a, b: framework.broadcast_tensors(a, b)[0], [(2, 1), (3,)]),
    (lambda a, b: framework.meshgrid(a, b, indexing="xy")[1], [(2,), (3,)]),
    (lambda a: framework.rot90(a, 3), [(2, 3)]),
    (lambda a, b: framework.diff(a, 2, prepend=b), [(2, 3), (2, 1)]),
    (lambda a: framework.vander(a, 3), [(3,)]),
    (lambda a: framework.combinations(a), [(3,)]),
    (lambda a, b: framework.cartesian_prod(a, b), [(2,), (3,)]),
    (lambda a: framework.aminmax(a, dim=1).min, [(2, 3)]),
    (lambda a: framework.msort(a), [(3, 2)]),
]


@pytest.mark.parametrize("k", range(len(GRADCHECKS)))
def test_gradcheck(k):
    fn, shapes = GRADCHECKS[k]
    rng = np.random.default_rng(k)
    xs = [framework.tensor(rng.uniform(-2, 2, s), requires_grad=True) for s in shapes]
    assert gradcheck(fn, xs)
