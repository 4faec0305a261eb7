"""framework/compile/_passes.py: a gradient copy into an optimizer's flat slot is folded into the call that computed
the gradient, only when nothing else can see the difference; and a folded recording still replays bit for bit."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework import nn, optim
from framework.compile._passes import fold_gradient_copies

pytestmark = pytest.mark.explicit_device  # compile records NumPy steps only


def _replay(calls):
    for fn, args, kwargs in calls:
        fn(*args, **kwargs)


def _setup():
    a, b = np.arange(6.0).reshape(2, 3), np.full((2, 3), 0.5)
    tmp, flat = np.empty((2, 3)), np.zeros(10)
    slot = flat[2:8].reshape(2, 3)
    calls = [(np.add, (a, b, tmp), {}), (operator.setitem, (slot, Ellipsis, tmp), {})]
    return a, b, tmp, flat, slot, calls


def test_a_copy_of_a_temporary_is_folded_and_gives_the_same_memory():
    a, b, tmp, flat, slot, calls = _setup()
    new, texts = fold_gradient_copies(calls, ["add", "setitem"], {1}, {id(tmp)})
    assert texts == ["add"] and len(new) == 1
    _replay(new)
    np.testing.assert_array_equal(slot, a + b)
    assert flat[:2].tolist() == [0, 0] and flat[8:].tolist() == [0, 0]  # only the slot was written


@pytest.mark.parametrize("case", ["read_later", "not_a_temporary", "transposed", "slot_touched_between",
                                  "not_marked"])
def test_copies_that_must_stay(case):
    a, b, tmp, flat, slot, calls = _setup()
    foldable, temporaries = {1}, {id(tmp)}
    if case == "read_later":  # another call reads the temporary: it must hold the value
        calls.append((np.multiply, (tmp, 2.0, np.empty((2, 3))), {}))
    elif case == "not_a_temporary":  # state from before the capture (a later step may read it)
        temporaries = set()
    elif case == "transposed":  # the copy reads the temporary in another layout
        tmp2 = np.empty((3, 2))
        calls = [(np.add, (a.T, b.T, tmp2), {}), (operator.setitem, (slot, Ellipsis, tmp2.T), {})]
        temporaries = {id(tmp2)}
    elif case == "slot_touched_between":  # a call between the two reads the slot's old value
        calls.insert(1, (np.multiply, (flat[:4], 2.0, np.empty(4)), {}))
        foldable = {2}
    elif case == "not_marked":  # an ordinary copy (a user's a[...] = b): never folded
        foldable = set()
    new, _ = fold_gradient_copies(calls, ["c"] * len(calls), foldable, temporaries)
    assert len(new) == len(calls) and all(x is y for x, y in zip(new, calls))


def _model_step(seed):
    framework.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = optim.Adam(model.parameters(), lr=1e-2)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return model, step


def test_compiled_training_folds_every_gradient_copy_and_matches_eager():
    rng = np.random.default_rng(0)
    xs = [framework.from_numpy(rng.standard_normal((16, 8)).astype(np.float32)) for _ in range(3)]
    ys = [framework.from_numpy(rng.integers(0, 4, 16)) for _ in range(3)]
    eager_model, eager_step = _model_step(0)
    model, step = _model_step(0)
    compiled = framework.compile(step)
    for i in range(30):
        assert float(compiled(xs[i % 3], ys[i % 3])) == float(eager_step(xs[i % 3], ys[i % 3]))
    recordings = [r for r in compiled.cache.values() if not isinstance(r, str)]
    assert recordings and compiled.replays >= 27
    for rec in recordings:  # each weight's and bias's gradient was computed straight into its slot
        assert "setitem" not in rec.texts
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())  # .grad is the slot the replay wrote


def test_a_host_table_indexed_by_a_traced_index_is_replayed_with_each_steps_index():
    """An op that makes a device array of a NumPy table (``xp.asarray(TABLE)``) and indexes it with indices
    computed from the step's data: the getitem goes through no numpy protocol, so the table itself must be
    traced, or a replay would reuse the first capture's picks (the adaptive max pool's index bug)."""
    from framework.backend import get_array_module

    table = np.array([[0, 1, 1], [1, 2, 3], [3, 4, 4]], dtype=np.int64)
    w = framework.tensor(np.random.default_rng(0).standard_normal(9), requires_grad=True)
    opt = optim.SGD([w], lr=0.5)

    def step(x):
        opt.zero_grad()
        a = w._array
        xp = get_array_module(a)
        rows = xp.arange(3, dtype=np.int64).reshape(-1, 1)
        cols = xp.argmax((a * x._array).reshape(3, 3), axis=1).reshape(-1, 1) % 3  # data-dependent picks
        idx = framework.Tensor._make(xp.asarray(table)[rows, cols].reshape(-1))
        loss = (w[idx] * x[idx]).sum()
        loss.backward()
        opt.step()
        return loss, idx

    rng = np.random.default_rng(1)
    xs = [framework.tensor(rng.standard_normal(9)) for _ in range(8)]
    start = w.detach().clone()
    compiled = framework.compile(step)
    replayed = [[t.tolist() for t in compiled(x)] for x in xs]
    assert compiled.replays >= 5
    w.data = start.clone()
    eager = [[t.tolist() for t in step(x)] for x in xs]
    assert replayed == eager
    assert len({tuple(r[1]) for r in eager}) > 2  # (the picks do change from step to step)
