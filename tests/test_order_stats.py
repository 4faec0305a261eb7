"""kthvalue, cummax, cummin (ops/reduction/order_stats.py), and the indices every (values, indices) op saves: torch saves the
returned indices, so changing them in place before backward raises there, and must here too."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck

NAN = float("nan")
CASES = [
    ("kthvalue", lambda m, x: m.kthvalue(x, 2, 1), [[1., 5., 3.], [4., 2., 6.]]),
    ("kthvalue_keepdim", lambda m, x: x.kthvalue(1, 0, keepdim=True), [[1., 5., 3.], [4., 2., 6.]]),
    ("kthvalue_nan_ranks_last", lambda m, x: x.kthvalue(3, -1), [[1., NAN, 3.], [4., 2., 6.]]),
    ("kthvalue_0d", lambda m, x: x.kthvalue(1, 0), 3.),
    ("cummax_ties_and_nan", lambda m, x: x.cummax(0), [1., 3., 3., NAN, 2., NAN]),
    ("cummin_ties_and_nan", lambda m, x: m.cummin(x, 0), [1., 3., 0., 0., 2., NAN, -1.]),
    ("cummax_2d", lambda m, x: x.cummax(1), [[1., 3., 2.], [5., 5., 4.]]),
    ("cummin_dim_-2", lambda m, x: x.cummin(-2), [[1., 3., 2.], [0., 5., 4.], [0., -1., 9.]]),
    ("cummax_0d", lambda m, x: x.cummax(0), 2.),
    ("cummax_empty", lambda m, x: x.cummax(0), []),
]


def _run(m, fn, data):
    x = m.tensor(data, requires_grad=True)
    v, i = fn(m, x)
    g = m.tensor(np.arange(1, v.numel() + 1, dtype=np.float32).reshape(tuple(v.shape)))
    v.backward(g)
    name = type(v.grad_fn).__name__ if m.__name__ == "torch" else v.grad_fn.name()
    return v.detach().cpu().numpy(), i.cpu().numpy(), x.grad.cpu().numpy(), name, str(i.dtype).split(".")[-1]


@pytest.mark.parametrize("name,fn,data", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, data):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(framework, fn, data), _run(torch, fn, data)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_array_equal(a, b)
    assert ours[3:] == theirs[3:]


@pytest.mark.parametrize("call", [lambda m, x: m.kthvalue(x, 0, 1), lambda m, x: m.kthvalue(x, 4, 1),
                                  lambda m, x: m.kthvalue(m.zeros(2, 0), 1, 1)], ids=["k0", "k_too_big", "empty"])
def test_kthvalue_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    errors = []
    for m in (torch, framework):
        with pytest.raises((RuntimeError, IndexError)) as info:
            call(m, m.tensor([[1., 5., 3.], [4., 2., 6.]]))
        errors.append((info.type, str(info.value).split("\n")[0]))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("fn", [lambda x: framework.kthvalue(x, 2, 1)[0], lambda x: x.kthvalue(1, 0, True)[0],
                                lambda x: x.cummax(1)[0], lambda x: framework.cummin(x, 0)[0]],
                         ids=["kthvalue", "kthvalue_keepdim", "cummax", "cummin"])
def test_gradcheck_float64(fn):
    x = framework.tensor(np.random.default_rng(0).permutation(12).reshape(3, 4) / 7.0, dtype=framework.float64,
                         requires_grad=True)  # distinct values: the order, and so the gradient, is well defined
    assert gradcheck(fn, [x])


INDEXED = [
    ("max", lambda x: x.max(1)), ("min", lambda x: x.min(0)), ("max_keepdim", lambda x: x.max(1, keepdim=True)),
    ("median", lambda x: x.median(1)), ("mode", lambda x: x.mode(1)), ("sort", lambda x: x.sort(1)),
    ("topk", lambda x: x.topk(2, 1)), ("kthvalue", lambda x: x.kthvalue(2, 1)), ("cummax", lambda x: x.cummax(1)),
    ("cummin", lambda x: x.cummin(0)),
]


@pytest.mark.parametrize("name,fn", INDEXED, ids=[c[0] for c in INDEXED])
def test_indices_changed_in_place_make_backward_raise(name, fn):
    torch = pytest.importorskip("torch")
    first = []
    for m in (torch, framework):
        x = m.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        v, i = fn(x)
        i.add_(0)  # a no-op in value, but a new version: the saved indices are stale for torch
        with pytest.raises(RuntimeError) as info:
            v.sum().backward()
        first.append(str(info.value).split(" Hint:")[0].replace("torch.", "framework."))
    assert first[0] == first[1]


@pytest.mark.parametrize("name,fn", INDEXED, ids=[c[0] for c in INDEXED])
def test_untouched_indices_still_give_the_gradient(name, fn):
    torch = pytest.importorskip("torch")
    grads = []
    for m in (torch, framework):
        x = m.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        v, i = fn(x)
        i.clone().add_(1)  # a copy changed: the saved indices are not
        v.sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_argsort_builds_no_graph():
    x = framework.tensor([3., 1., 2.], requires_grad=True)
    i = x.argsort()
    assert i.grad_fn is None and not i.requires_grad
    assert i.tolist() == [1, 2, 0]


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, 1])
def test_running_extremes_on_long_rows_with_ties_match_torch(op, dim):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).integers(0, 6, (4, 37)).astype(np.float64)  # many ties, 37: not a power of 2
    a[1, 20] = NAN
    v1, i1 = getattr(torch.tensor(a), op)(dim)
    v2, i2 = getattr(framework.tensor(a), op)(dim)
    np.testing.assert_array_equal(v2.cpu().numpy(), v1.numpy())
    np.testing.assert_array_equal(i2.cpu().numpy(), i1.numpy())


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
def test_cummax_cummin_save_their_input_as_torch(fn):
    """torch's cummaxmin_backward(grad, self, indices, dim) keeps self: changing it in place is a version error."""
    torch = pytest.importorskip("torch")
    outcomes = []
    for m in (framework, torch):
        a = m.tensor([[1.1, 0.2], [0.7, -2.0]], requires_grad=True)
        v = getattr(m, fn)(a, 1).values
        with m.no_grad():
            a.mul_(2)
        try:
            v.sum().backward()
            outcomes.append("ok")
        except RuntimeError as e:
            outcomes.append(str(e).split(";")[0].replace("torch.", "framework."))
    assert outcomes[0] == outcomes[1] != "ok"
