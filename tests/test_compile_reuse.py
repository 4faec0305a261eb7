"""framework/compile/_reuse.py: a recording's temporaries share memory by their spans, never a buffer anything
outside the recording holds or whose value crosses from one replay to the next; replays stay bit for bit."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework import nn, optim
from framework.compile._reuse import BufferPool, ReusePlan

pytestmark = pytest.mark.explicit_device  # compile records NumPy steps only

N = 4096  # elements of each temporary: large enough that tracemalloc sees the buffers clearly


def _chain(x, n: int = 12):
    """n elementwise steps, each making a new temporary of x's shape."""
    for i in range(n):
        x = (x * 1.01 + 0.5).tanh() if i % 2 else x.exp() * 0.25
    return x


class _Box:
    """Somewhere outside the step to keep a tensor (not a container the guards look into)."""

    value = None


# ---- buffers the user keeps are never shared ---------------------------------------------------------------------

@pytest.mark.parametrize("how", ["tensor", "view", "module_attribute", "returned_and_kept"])
def test_a_buffer_kept_outside_the_step_is_not_shared(how):
    kept, holder = _Box(), nn.Module()

    def step(x):
        h = x * 3.0 + 1.0  # used early: the chain's later temporaries have its shape and could take its memory
        if how == "tensor":
            kept.value = h
        elif how == "view":
            kept.value = h[1:5]
        elif how == "module_attribute":
            holder.last = h
        out = _chain(h)
        return (out, h) if how == "returned_and_kept" else out

    compiled = framework.compile(step)
    rng = np.random.default_rng(0)
    xs = [framework.from_numpy(rng.standard_normal(N).astype(np.float32) * 0.1) for _ in range(4)]
    with framework.no_grad():
        results = [compiled(x) for x in xs]
        expected = [step(x) for x in xs]
    assert compiled.replays == 3
    for got, want in zip(results, expected):  # each returned value keeps the value of its own call
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    # the capture's own h is the buffer every replay writes: after the last call it holds that call's h
    last_h = (xs[-1] * 3.0 + 1.0).numpy()
    if how == "tensor":
        np.testing.assert_array_equal(kept.value.numpy(), last_h)
    elif how == "view":
        np.testing.assert_array_equal(kept.value.numpy(), last_h[1:5])
    elif how == "module_attribute":
        np.testing.assert_array_equal(holder.last.numpy(), last_h)


# ---- the plan on hand-made calls ---------------------------------------------------------------------------------

def test_the_plan_shares_a_dead_temporary_and_replays_the_same_values():
    x = np.arange(8.0)
    a, b, c = np.empty(8), np.empty(8), np.empty(8)
    out = np.empty(8)
    calls = [(np.multiply, (x, 2.0, a), {}), (np.add, (a, 1.0, b), {}), (np.exp, (b, c), {}),
             (np.negative, (c, out), {})]
    want = -np.exp(x * 2.0 + 1.0)
    names = {id(a): "a", id(b): "b", id(c): "c"}
    plan = ReusePlan(calls, set(names))
    assert sorted(names[id(r())] for r in plan.refs) == ["a", "b", "c"]
    del calls, a, b, c  # out and x stay held here: never shared
    pool = BufferPool()
    new = plan.calls(pool)
    assert len(pool.blocks) == 2  # a and c do not overlap (a dies at call 1, c is born at call 2): one block
    for fn, args, kwargs in new:
        fn(*args, **kwargs)
    np.testing.assert_array_equal(out, want)
    assert new[3][1][1] is out and new[0][1][0] is x


def _plan_with(calls, fresh_arrays):
    return ReusePlan(calls, {id(f) for f in fresh_arrays})


@pytest.mark.parametrize("case", ["read_first", "half_written", "masked_write", "in_place_first", "held"])
def test_buffers_that_must_keep_their_memory(case):
    x = np.arange(8.0)
    t, out = np.empty(8), np.empty(8)
    if case == "read_first":  # its value crosses from one replay to the next
        calls = [(np.add, (t, x, out), {}), (np.multiply, (x, 2.0, t), {})]
    elif case == "half_written":  # the second call reads bytes the step never wrote
        calls = [(np.multiply, (x[:4], 2.0, t[:4]), {}), (np.add, (t, 1.0, out), {})]
    elif case == "masked_write":  # where=: the old values stay where the mask is False
        calls = [(np.copyto, (t, x), {"where": x > 3}), (np.add, (t, 1.0, out), {})]
    elif case == "in_place_first":  # t += x reads t
        calls = [(np.add, (t, x, t), {}), (np.add, (t, 1.0, out), {})]
    else:  # written in full, then held by someone outside: shared only when nobody holds it
        calls = [(np.multiply, (x, 2.0, t), {}), (np.add, (t, 1.0, out), {})]
    plan = _plan_with(calls, [t])
    if case == "held":
        assert len(plan.refs) == 1
        del calls
        pool = BufferPool()
        new = plan.calls(pool)  # t is still referenced by this test: it keeps its own memory
        assert not pool.blocks and np.shares_memory(new[0][1][2], t)
    else:
        assert plan.refs == []


def test_bytes_written_piece_by_piece_before_any_read_make_a_buffer_shareable():
    x = np.arange(8.0)
    t, out = np.empty((2, 4)), np.empty((2, 4))
    calls = [(np.multiply, (x[:4], 2.0, t[0]), {}), (np.multiply, (x[4:], 3.0, t[1]), {}),
             (np.add, (t, 1.0, out), {})]
    assert len(_plan_with(calls, [t]).refs) == 1
    # a row read before the other is written: still fine, the bytes it reads were written
    calls = [(np.multiply, (x[:4], 2.0, t[0]), {}), (np.add, (t[0], 1.0, out[0]), {}),
             (np.multiply, (x[4:], 3.0, t[1]), {}), (np.add, (t[1], 1.0, out[1]), {})]
    assert len(_plan_with(calls, [t]).refs) == 1
    calls[1] = (np.add, (t[1], 1.0, out[0]), {})  # reads row 1 before it is written
    assert _plan_with(calls, [t]).refs == []


def test_a_strided_view_made_by_as_strided_keeps_its_buffer_alive():
    """np.lib.stride_tricks.as_strided hides its base behind a wrapper: the plan must still see the buffer."""
    x = np.arange(8.0)
    t, out = np.empty(8), np.empty((5, 4))
    windows = np.lib.stride_tricks.as_strided(t, (5, 4), (8, 8))
    calls = [(np.multiply, (x, 2.0, t), {}), (np.add, (windows, 1.0, out), {}), (np.multiply, (x, 3.0, x), {})]
    plan = _plan_with(calls, [t])
    assert len(plan.refs) == 1 and plan.spans[0][:2] == (0, 1)  # the windows' read is t's last use


# ---- what it saves, and that training stays bit for bit ----------------------------------------------------------

def _held_bytes(make_step, calls: int = 3) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        step, x = make_step()
        for _ in range(calls):
            step(x)
        del x
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_the_held_bytes_of_a_replayed_chain_fall_to_a_few_buffers():
    def make():
        step = framework.compile(lambda x: _chain(x, 24).sum())
        return step, framework.from_numpy(np.linspace(0, 0.1, 64 * N, dtype=np.float32))

    with framework.no_grad():
        held = _held_bytes(make)
    one = 64 * N * 4
    # 24 steps of two temporaries each were all held before; now the input copy, the data and a few blocks
    assert held < 8 * one, held / one
    step = framework.compile(lambda x: _chain(x, 24).sum())
    x = framework.from_numpy(np.linspace(0, 0.1, 64 * N, dtype=np.float32))
    with framework.no_grad():
        step(x)
    rec = next(iter(step.cache.values()))
    assert len(rec.buffers) <= 6 and sum(b.nbytes for b in rec.buffers) <= 5 * one + 64


def test_training_with_shared_buffers_equals_eager_bit_for_bit():
    """Equal widths: every activation and gradient has a twin shape that could take its memory; BatchNorm's
    running statistics carry a value from one replay to the next."""
    def make(seed):
        framework.manual_seed(seed)
        model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(32, 32), nn.Tanh())], nn.BatchNorm1d(32),
                              nn.Linear(32, 32))
        opt = optim.Adam(model.parameters(), lr=1e-2)

        def step(x, y):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        return model, step

    rng = np.random.default_rng(3)
    data = [(framework.from_numpy(rng.standard_normal((16, 32)).astype(np.float32)),
             framework.from_numpy(rng.standard_normal((16, 32)).astype(np.float32))) for _ in range(3)]
    m_eager, s_eager = make(0)
    m_comp, s_comp = make(0)
    s_comp = framework.compile(s_comp)
    for i in range(12):
        x, y = data[i % 3]
        np.testing.assert_array_equal(s_comp(x, y).numpy(), s_eager(x, y).numpy())
    for p, q in zip(m_comp.parameters(), m_eager.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    for b, c in zip(m_comp.buffers(), m_eager.buffers()):
        np.testing.assert_array_equal(b.numpy(), c.numpy())
    assert s_comp.replays >= 9


def test_object_arrays_keep_their_memory():
    """An object array holds references: raw bytes of a shared block would be garbage pointers."""
    x = np.arange(4.0)
    t, out = np.empty(4, object), np.empty(4)
    calls = [(np.frompyfunc(abs, 1, 1), (x, t), {}), (np.copyto, (out, t), {"casting": "unsafe"})]
    assert _plan_with(calls, [t]).refs == []


def test_a_recording_no_call_can_replay_is_dropped():
    """The first step's capture names the parameters' arrays before the optimizer flattened them: it can never be
    replayed, so the compiled function keeps only the recordings a call can still match (and their buffers)."""
    from framework.compile._record import Recording
    framework.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = optim.Adam(model.parameters(), lr=1e-2)

    def step(x):
        opt.zero_grad()
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        return loss.detach()

    compiled = framework.compile(step)
    x = framework.randn(5, 8)
    for _ in range(4):
        compiled(x)
    recordings = [e for e in compiled.cache.values() if isinstance(e, Recording)]
    assert compiled.captures == 2 and compiled.replays == 2 and len(recordings) == 1
    assert all(t._array is a for t, a in recordings[0].assumes)


def test_dropped_recordings_still_count_to_the_recompile_limit():
    """A step that rebinds a parameter's array every call makes every recording stale at once: it still stops
    capturing at the limit (and runs eagerly) instead of capturing on every call."""
    lin = nn.Linear(3, 3)

    def step(x):
        with framework.no_grad():
            y = lin(x)
        lin.weight.data = lin.weight.data * 1.0
        return y

    compiled = framework.compile(step, cache_size_limit=3)
    with pytest.warns(UserWarning, match="recompile limit"):
        for _ in range(6):
            compiled(framework.randn(2, 3))
    assert len(compiled.cache) == 3 and compiled.replays == 0
