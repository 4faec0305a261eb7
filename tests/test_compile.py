"""framework.compile: a captured step replays bit-for-bit like eager; guards re-capture; breaks warn or raise."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework import nn, optim


# compile records and replays NumPy steps only (CuPy steps run eagerly), so these run on the CPU
pytestmark = pytest.mark.explicit_device

def _gan(seed: int, mode: str = "detach", hidden: int = 32, batch: int = 64):
    framework.manual_seed(seed)
    G = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))
    D = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))
    opt_g = optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    ones, zeros = framework.ones(batch, 1), framework.zeros(batch, 1)

    def step(real):
        fake = G(framework.randn(batch, 2))
        if mode == "detach":
            loss_d = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
            opt_d.zero_grad()
            loss_d.backward()
            opt_d.step()
            loss_g = F.binary_cross_entropy_with_logits(D(fake), ones)
            opt_g.zero_grad()
            loss_g.backward()
            opt_g.step()
        else:
            d_fake = D(fake)
            loss_g = F.binary_cross_entropy_with_logits(d_fake, ones)
            loss_d = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(d_fake, zeros)
            opt_g.zero_grad()
            loss_g.backward(retain_graph=True, inputs=list(G.parameters()))
            opt_d.zero_grad()
            loss_d.backward(inputs=list(D.parameters()))
            opt_d.step()
            opt_g.step()
        return loss_d.detach(), loss_g.detach()
    return [G, D], [opt_g, opt_d], step


def _mlp(seed: int, opt_cls=optim.SGD, **opt_kw):
    framework.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 4))
    opt = opt_cls(model.parameters(), **(opt_kw or dict(lr=0.05, momentum=0.9)))

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return [model], [opt], step


def _batches(n: int, shape, seed: int = 0, classes: int | None = None):
    rng = np.random.default_rng(seed)
    xs = [framework.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(n)]
    ys = [framework.from_numpy(rng.integers(0, classes, shape[0])) for _ in range(n)] if classes else None
    return xs, ys


def _state(modules, opts) -> list:
    """Every parameter and every optimizer state array, as numpy copies."""
    out = [p.detach().numpy().copy() for m in modules for p in m.parameters()]
    for o in opts:
        for p in (p for g in o.param_groups for p in g["params"]):
            out += [v.detach().numpy().copy() for _, v in sorted(o.state[p].items())]
    return out


def _assert_bit_equal(a: list, b: list) -> None:
    assert len(a) == len(b) and len(a) > 0
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("mode", ["detach", "retain_graph"])
def test_gan_300_steps_compiled_equals_eager_bit_for_bit(mode):
    reals, _ = _batches(10, (64, 2))
    mods_e, opts_e, step_e = _gan(0, mode)
    losses_e = [tuple(float(v) for v in step_e(reals[i % 10])) for i in range(300)]
    mods_c, opts_c, step_c = _gan(0, mode)
    compiled = framework.compile(step_c)
    losses_c = [tuple(float(v) for v in compiled(reals[i % 10])) for i in range(300)]
    assert losses_c == losses_e
    _assert_bit_equal(_state(mods_e, opts_e), _state(mods_c, opts_c))
    assert compiled.captures <= 3 and compiled.replays >= 297  # replayed, not run eagerly 300 times


@pytest.mark.parametrize("opt_cls,kw", [(optim.SGD, dict(lr=0.05, momentum=0.9)), (optim.Adam, dict(lr=1e-3)),
                                        (optim.AdamW, dict(lr=1e-3)), (optim.RMSprop, dict(lr=1e-3)),
                                        (optim.Adadelta, dict(lr=1.0))])
def test_mlp_300_steps_compiled_equals_eager_bit_for_bit(opt_cls, kw):
    xs, ys = _batches(6, (16, 8), classes=4)
    mods_e, opts_e, step_e = _mlp(1, opt_cls, **kw)
    le = [float(step_e(xs[i % 6], ys[i % 6])) for i in range(300)]
    mods_c, opts_c, step_c = _mlp(1, opt_cls, **kw)
    compiled = framework.compile(step_c)
    lc = [float(compiled(xs[i % 6], ys[i % 6])) for i in range(300)]
    assert lc == le  # includes dropout: the replays draw the same random numbers as eager
    _assert_bit_equal(_state(mods_e, opts_e), _state(mods_c, opts_c))
    assert compiled.replays >= 297


def test_replay_creates_no_tensors_or_nodes():
    mods, opts, step = _mlp(2)
    xs, ys = _batches(2, (16, 8), classes=4)
    compiled = framework.compile(step)
    for i in range(3):
        compiled(xs[i % 2], ys[i % 2])
    made = []
    real_make = framework.Tensor._make

    def counting(*a, **k):
        made.append(1)
        return real_make(*a, **k)
    framework.Tensor._make = counting
    try:
        compiled(xs[0], ys[0])
    finally:
        framework.Tensor._make = real_make
    assert compiled.replays >= 1
    assert len(made) == 1  # only the returned loss


def test_shape_change_captures_again_and_stays_right():
    xs16, ys16 = _batches(3, (16, 8), classes=4, seed=1)
    xs5, ys5 = _batches(3, (5, 8), classes=4, seed=2)
    order = [(xs16, ys16)] * 4 + [(xs5, ys5)] * 4 + [(xs16, ys16)] * 4
    mods_e, opts_e, step_e = _mlp(3, optim.Adam, lr=1e-3)
    le = [float(step_e(xs[i % 3], ys[i % 3])) for i, (xs, ys) in enumerate(order)]
    mods_c, opts_c, step_c = _mlp(3, optim.Adam, lr=1e-3)
    compiled = framework.compile(step_c)
    lc = []
    for i, (xs, ys) in enumerate(order):
        lc.append(float(compiled(xs[i % 3], ys[i % 3])))
        if i == 4:
            assert compiled.captures == 3  # fresh state, flat state, then the new batch shape
    assert lc == le
    assert compiled.captures == 3  # back to 16: the earlier recording is still cached
    _assert_bit_equal(_state(mods_e, opts_e), _state(mods_c, opts_c))


def test_scheduler_lr_change_takes_effect_at_the_next_replay():
    xs, ys = _batches(2, (16, 8), classes=4)
    runs = {}
    for kind in ("eager", "compiled"):
        mods, opts, step = _mlp(4, optim.Adam, lr=1e-2)
        sched = optim.lr_scheduler.StepLR(opts[0], step_size=3, gamma=0.1)
        fn = framework.compile(step) if kind == "compiled" else step
        losses = []
        for i in range(12):
            losses.append(float(fn(xs[i % 2], ys[i % 2])))
            sched.step()
        runs[kind] = (losses, _state(mods, opts), fn)
    assert runs["compiled"][0] == runs["eager"][0]
    _assert_bit_equal(runs["eager"][1], runs["compiled"][1])
    assert runs["compiled"][2].captures <= 2  # lr is an input of the recording, not part of its key


def test_lr_set_by_hand_is_read_at_replay():
    mods, opts, step = _mlp(5, optim.SGD, lr=0.1)
    xs, ys = _batches(1, (16, 8), classes=4)
    compiled = framework.compile(step)
    for _ in range(3):
        compiled(xs[0], ys[0])
    before = [p.detach().numpy().copy() for p in mods[0].parameters()]
    opts[0].param_groups[0]["lr"] = 0.0
    compiled(xs[0], ys[0])
    after = [p.detach().numpy().copy() for p in mods[0].parameters()]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))  # momentum 0: lr 0 means no change
    assert compiled.captures == 2


def test_eval_switches_the_capture():
    mods, opts, step = _mlp(6)
    model = mods[0]
    xs, ys = _batches(1, (16, 8), classes=4)

    def forward(x):
        with framework.no_grad():  # a forward without a graph: replayed (one that builds a graph runs eagerly)
            return model(x)
    compiled = framework.compile(forward)
    train_outs = [compiled(xs[0]).numpy().copy() for _ in range(3)]
    assert not np.array_equal(train_outs[1], train_outs[2])  # dropout: new random numbers each replay
    model.eval()
    eval_outs = [compiled(xs[0]).numpy().copy() for _ in range(2)]
    with framework.no_grad():
        expected = model(xs[0]).numpy()
    assert np.array_equal(eval_outs[0], expected) and np.array_equal(eval_outs[1], expected)
    assert compiled.captures == 2


def test_new_param_group_captures_again():
    framework.manual_seed(7)
    a, b = nn.Linear(4, 4), nn.Linear(4, 1)
    opt = optim.SGD(a.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = b(a(x)).pow(2).mean()
        loss.backward()
        opt.step()
        return loss.detach()
    x = framework.randn(8, 4)
    compiled = framework.compile(step)
    for _ in range(3):
        compiled(x)
    b_before = b.weight.detach().numpy().copy()
    n = compiled.captures
    opt.add_param_group({"params": b.parameters(), "lr": 0.5})
    compiled(x)
    assert compiled.captures == n + 1
    compiled(x)
    assert not np.array_equal(b.weight.detach().numpy(), b_before)  # the new group is stepped


def test_item_in_the_step_warns_once_with_the_users_line_and_stays_right():
    xs, ys = _batches(2, (16, 8), classes=4)
    mods_e, opts_e, step_e = _mlp(8)
    le = [float(step_e(xs[i % 2], ys[i % 2])) for i in range(5)]
    mods_c, opts_c, step_c = _mlp(8)
    seen = []

    def with_item(x, y):
        loss = step_c(x, y)
        seen.append(loss.item())  # the break
        return loss
    compiled = framework.compile(with_item)
    line = with_item.__code__.co_firstlineno + 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lc = [float(compiled(xs[i % 2], ys[i % 2])) for i in range(5)]
    assert lc == le and seen == le
    breaks = [w for w in caught if "graph break" in str(w.message)]
    assert len(breaks) == 1
    assert ".item()" in str(breaks[0].message) and f"{os.path.basename(__file__)}:{line}" in str(breaks[0].message)
    assert len(seen) == 5
    _assert_bit_equal(_state(mods_e, opts_e), _state(mods_c, opts_c))


@pytest.mark.parametrize("body,what", [
    (lambda t: bool(t.sum() > 0), "bool(tensor)"),
    (lambda t: t.tolist(), ".tolist()"),
    (lambda t: t.numpy(), "numpy()"),
    (lambda t: repr(t), "printing a tensor"),
    (lambda t: t[t > 0], "boolean-mask"),
    (lambda t: framework.where(t > 0), "nonzero"),
])
def test_fullgraph_raises_with_the_explanation(body, what):
    x = framework.randn(4, 3)
    compiled = framework.compile(lambda t: body(t * 2), fullgraph=True)
    with pytest.raises(framework.compile.GraphBreak, match="graph break") as info:
        compiled(x)
    assert what in str(info.value) and "fullgraph=True" in str(info.value)


def test_random_draws_differ_between_replays_and_follow_the_eager_sequence():
    def draw(x):
        return x + framework.rand(3, 2) + F.dropout(framework.ones(3, 2), 0.5)
    x = framework.zeros(3, 2)
    framework.manual_seed(11)
    eager = [draw(x).numpy().copy() for _ in range(5)]
    framework.manual_seed(11)
    compiled = framework.compile(draw)
    replayed = [compiled(x).numpy().copy() for _ in range(5)]
    assert compiled.replays == 4
    assert not np.array_equal(replayed[3], replayed[4])
    for a, b in zip(eager, replayed):
        assert np.array_equal(a, b)
    framework.manual_seed(11)  # reseeding replaces the generator: replays draw from the new one
    assert np.array_equal(compiled(x).numpy(), eager[0])


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_10000_replays_keep_memory_flat():
    framework.manual_seed(12)
    lin = nn.Linear(4, 2)
    opt = optim.SGD(lin.parameters(), lr=1e-3)
    x = framework.randn(8, 4)

    def step(x):
        opt.zero_grad()
        loss = lin(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss.detach()
    compiled = framework.compile(step)
    for _ in range(200):
        compiled(x)
    start = _rss_kb()
    for _ in range(10_000):
        compiled(x)
    assert _rss_kb() - start < 2048  # KiB: nothing per replay is kept
    assert compiled.captures <= 2


def test_inplace_change_of_a_saved_tensor_raises_at_capture():
    w = framework.randn(3, requires_grad=True)

    def step(x):
        y = x * w
        z = y.exp()
        z.add_(1)  # exp saved its output
        z.sum().backward()
    compiled = framework.compile(step)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        compiled(framework.randn(3))


def test_grads_accumulated_across_calls_stay_right():
    framework.manual_seed(13)
    lin = nn.Linear(3, 1)
    x = framework.randn(5, 3)

    def step(x):
        lin(x).sum().backward()  # no zero_grad: grads accumulate over calls
    compiled = framework.compile(step)
    for _ in range(6):
        compiled(x)
    framework.manual_seed(13)
    ref = nn.Linear(3, 1)
    for _ in range(6):
        ref(x).sum().backward()
    assert np.array_equal(lin.weight.grad.numpy(), ref.weight.grad.numpy())


def test_explain_prints_the_recording(capsys):
    mods, opts, step = _gan(14)
    reals, _ = _batches(1, (64, 2))
    text = framework.compile.explain(step, reals[0])
    assert "array calls" in text and "buffers" in text and "matmul" in text and "random" in text
    assert text in capsys.readouterr().out


def test_compile_as_decorator_and_module_attribute():
    @framework.compile(fullgraph=True)
    def double(x):
        return x * 2
    x = framework.ones(2)
    assert double(x).tolist() == [2.0, 2.0] and double(x + 1).tolist() == [4.0, 4.0]
    assert double.replays == 1


def test_plain_leaf_tensors_updated_by_hand_are_recorded():
    def run(compiled: bool):
        framework.manual_seed(15)
        w = framework.randn(4, 1, requires_grad=True)
        x = framework.randn(16, 4)

        def step(x):
            loss = (x @ w).pow(2).mean()
            w.grad = None
            loss.backward()
            with framework.no_grad():
                w.sub_(0.1 * w.grad)  # manual SGD on a tensor no module or optimizer holds
            return loss.detach()
        fn = framework.compile(step) if compiled else step
        return [float(fn(x)) for _ in range(6)], w.detach().numpy().copy()
    (le, we), (lc, wc) = run(False), run(True)
    assert lc == le and np.array_equal(we, wc)
    assert le[0] != le[-1]


def test_hooks_run_at_capture_and_break_unless_array_only():
    framework.manual_seed(16)
    lin = nn.Linear(3, 2)
    x = framework.randn(4, 3)
    calls = []

    def logging_hook(grad):
        calls.append(1)  # a Python side effect: it would not happen at replay
        return grad

    @framework.compile.array_only
    def scale(grad):
        return grad * 0.5

    def step(x):
        lin.zero_grad()
        y = lin(x)
        y.register_hook(logging_hook)
        y.sum().backward()
        return lin.weight.grad.detach()
    compiled = framework.compile(step)
    with pytest.warns(UserWarning, match="logging_hook"):
        compiled(x)
    compiled(x)
    assert len(calls) == 2  # the step with the hook runs eagerly every time

    def scaled(x):
        lin.zero_grad()
        y = lin(x)
        y.register_hook(scale)
        y.sum().backward()
        return lin.weight.grad.detach()
    eager = [scaled(x).numpy().copy() for _ in range(3)]
    compiled = framework.compile(scaled)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [compiled(x).numpy().copy() for _ in range(3)]
    assert compiled.replays >= 1
    assert all(np.array_equal(a, b) for a, b in zip(eager, got))


@pytest.mark.parametrize("body", ["t_", "unsqueeze_transpose_squeeze_", "view_t_", "as_strided", "as_strided_",
                                  "view_then_base_t_", "resize_"])
def test_inplace_view_ops_replay_like_eager(body):
    bodies = {
        "t_": lambda h: h.t_(),
        "unsqueeze_transpose_squeeze_": lambda h: h.unsqueeze_(0).transpose_(1, 2).squeeze_(0),
        "view_t_": lambda h: h[1:].t_(),
        "as_strided": lambda h: h.as_strided((8, 2), (2, 1)),  # its storage was a constant of the capture before
        "as_strided_": lambda h: h.as_strided_((8, 2), (2, 1)),
        "view_then_base_t_": lambda h: _write_view_then_t_(h),
        "resize_": lambda h: h + h.detach().clone().resize_(8, 6)[:, 1:4].repeat(2, 1),
    }

    def make():
        framework.manual_seed(15)
        w = framework.randn(4, 3, requires_grad=True)
        return w, framework.randn(16, 4), lambda w, x: (bodies[body](x @ w) ** 2).mean()
    _descend_eager_and_compiled(make, 6)


def _descend_eager_and_compiled(make, steps: int) -> None:
    """Gradient descent on w for loss(w, x), eager and compiled from the same start: the same losses and weights
    bit for bit, replays made, and the loss moving."""
    def run(compiled: bool):
        w, x, loss_of = make()

        def step(x):
            loss = loss_of(w, x)
            w.grad = None
            loss.backward()
            with framework.no_grad():
                w.sub_(0.1 * w.grad)
            return loss.detach()
        fn = framework.compile(step) if compiled else step
        return [float(fn(x)) for _ in range(steps)], w.detach().numpy().copy(), getattr(fn, "replays", 0)
    (le, we, _), (lc, wc, replays) = run(False), run(True)
    assert replays >= 3 and lc == le and np.array_equal(we, wc)
    assert le[0] != le[-1]


def _write_view_then_t_(h):
    v = h[0]
    h.t_()
    v.mul_(2)
    return h


@pytest.mark.parametrize("body", ["lu_factor", "lu", "lu_solve", "solve_triangular", "lu_unpack"])
def test_lu_and_triangular_solves_replay_like_eager(body):
    L = framework.linalg
    bodies = {  # SciPy's calls are no NumPy functions: backend.scipy_linalg records them itself
        "lu_factor": lambda w, x: L.lu_factor(w)[0],
        "lu": lambda w, x: L.lu(w).U + L.lu(w).L,
        "lu_solve": lambda w, x: L.lu_solve(*L.lu_factor_ex(w)[:2], x),
        "solve_triangular": lambda w, x: L.solve_triangular(w, x, upper=True),
        "lu_unpack": lambda w, x: framework.lu_unpack(*L.lu_factor(w))[1],
    }

    def make():
        framework.manual_seed(15)
        w = (framework.randn(2, 3, 3) * 0.3 + 3 * framework.eye(3)).requires_grad_()
        return w, framework.randn(2, 3, 4), lambda w, x: bodies[body](w, x).pow(2).mean()
    _descend_eager_and_compiled(make, 5)


# ---- framework.compile(module) and forwards that train through their outputs ------------------------------------

def _net():
    framework.manual_seed(3)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def test_compiling_a_module_gives_torchs_optimized_module():
    """torch.compile(model): the model under _orig_mod (parameters, state_dict keys, repr as torch's)."""
    torch = pytest.importorskip("torch")
    ours = framework.compile(_net())
    # torch.compile imports torch._dynamo, which turns distribution validation off for the whole process and adds
    # a warnings filter: both are put back, or later tests comparing with torch would see them
    validate = torch.distributions.Distribution._validate_args
    with warnings.catch_warnings():
        theirs = torch.compile(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)))
    torch.distributions.Distribution.set_default_validate_args(validate)
    assert type(ours).__name__ == type(theirs).__name__ == "OptimizedModule"
    assert list(ours.state_dict()) == list(theirs.state_dict()) and repr(ours) == repr(theirs)
    assert len(list(ours.parameters())) == 4 and ours._orig_mod[0].in_features == 3


def test_a_compiled_module_trains_eagerly_and_replays_under_no_grad():
    """Called with grad enabled it builds the graph backward needs (eager, one warning): the gradients equal the
    plain module's; under no_grad its calls are replayed and equal eager outputs."""
    plain, compiled = _net(), framework.compile(_net())
    x = framework.randn(5, 3)
    with pytest.warns(UserWarning, match="runs eagerly"):
        for _ in range(3):
            compiled(x).pow(2).sum().backward()
    for _ in range(3):
        plain(x).pow(2).sum().backward()
    for a, b in zip(plain.parameters(), compiled.parameters()):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    with framework.no_grad():
        outs = [compiled(x).numpy().copy() for _ in range(3)]
        expected = plain(x).numpy()
    assert compiled._compiled.replays >= 1 and all(np.array_equal(o, expected) for o in outs)


def test_a_compiled_forward_whose_output_is_trained_through_runs_eagerly():
    """A replay has no graph: a step returning a tensor that requires grad, without running backward itself, runs
    eagerly (the gradients reach the weights on every call); fullgraph=True refuses it."""
    w = framework.randn(3, 2, requires_grad=True)
    x = framework.randn(4, 3)
    fn = framework.compile(lambda x: (x @ w).relu())
    with pytest.warns(UserWarning, match="requires grad without running backward"):
        for _ in range(3):
            w.grad = None
            fn(x).sum().backward()
            assert w.grad is not None
    assert fn.replays == 0
    with pytest.raises(framework.compile.GraphBreak, match="requires grad without running backward"):
        framework.compile(lambda x: (x @ w).relu(), fullgraph=True)(x)
