"""framework.utils.checkpoint against torch.utils.checkpoint: values, gradients, grad_fn names, how often the function
reruns (early stop), nesting, the errors and warnings; float64 gradchecks without torch; dropout inside a checkpoint
gives the un-checkpointed gradients; a checkpointed step breaks framework.compile's capture visibly."""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import framework
import framework.utils.checkpoint as fcp
from framework import nn
from framework.testing import gradcheck, gradgradcheck
from scenario import error_of


def _torch():
    torch = pytest.importorskip("torch")
    importlib.import_module("torch.utils.checkpoint")  # a submodule torch does not import itself
    return torch


def _inputs(m):
    x = m.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    w = m.tensor(np.linspace(-2, 1, 20).reshape(4, 5), requires_grad=True)
    return x, w


def _f(x, w):
    h = (x @ w).tanh()
    return (h * h).sin()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_values_gradients_and_node_names_match_torch(use_reentrant):
    torch = _torch()
    seen = []
    for m in (framework, torch):
        x, w = _inputs(m)
        y = m.utils.checkpoint.checkpoint(_f, x, w, use_reentrant=use_reentrant)
        (y * y).sum().backward()
        seen.append((y.grad_fn.name(), y.detach().cpu().numpy(), x.grad.cpu().numpy(), w.grad.cpu().numpy()))
    (name, *ours), (tname, *theirs) = seen
    assert name == tname == ("CheckpointFunctionBackward" if use_reentrant else "SinBackward0")
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_use_reentrant_left_out_warns_as_torch_and_means_reentrant():
    torch = _torch()
    seen = []
    for m in (framework, torch):
        x, w = _inputs(m)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = m.utils.checkpoint.checkpoint(_f, x, w)
            m.utils.checkpoint.checkpoint_sequential([m.nn.Tanh(), m.nn.Tanh()], 2, x)
        seen.append(([(w.category, str(w.message)) for w in caught], y.grad_fn.name()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("early_stop", [True, False])
def test_recomputation_stops_early_as_torchs(early_stop):
    torch = _torch()
    logs = []
    for m in (framework, torch):
        calls = []

        def fn(x):
            calls.append("sin")
            h = x.sin()
            calls.append("cos")
            h = h.cos()
            calls.append("scale")  # saves nothing: the rerun stops before it
            return (h * 2.0).sum()
        x, _ = _inputs(m)
        with m.utils.checkpoint.set_checkpoint_early_stop(early_stop):
            y = m.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
        y.backward()
        logs.append(calls)
    assert logs[0] == logs[1]


def _scenarios(m, calls):
    cp = m.utils.checkpoint

    def fn(x):
        calls.append("f")
        return x.sin().cos().sum()
    x, _ = _inputs(m)
    out = []
    y = cp.checkpoint(fn, x, use_reentrant=False)  # two backwards: two recomputations
    y.backward(retain_graph=True)
    y.backward()
    out.append((list(calls), x.grad.tolist()))
    calls.clear()
    x.grad = None
    for reentrant in (False, True):  # nested checkpoints
        with warnings.catch_warnings():  # the inner reentrant one runs under no_grad: torch's "None of the inputs"
            warnings.simplefilter("ignore")
            y = cp.checkpoint(lambda a: cp.checkpoint(fn, a.exp(), use_reentrant=reentrant) * 3, x,
                              use_reentrant=reentrant)
            y.backward()
        out.append((list(calls), x.grad.tolist()))
        calls.clear()
        x.grad = None
    y = cp.checkpoint(lambda a, k=1.0: (a * k).sum(), x, use_reentrant=False, k=3.0)  # keyword arguments
    out.append(y.item())
    return out


def test_retain_graph_nesting_and_kwargs_match_torch():
    torch = _torch()
    ours, theirs = _scenarios(framework, []), _scenarios(torch, [])
    for a, b in zip(ours[:3], theirs[:3]):
        assert a[0] == b[0]
        np.testing.assert_allclose(a[1], b[1], rtol=1e-12)
    assert ours[3] == pytest.approx(theirs[3], rel=1e-12)


def _errors(m):
    cp = m.utils.checkpoint
    x, w = _inputs(m)
    out = []

    def grad_of_reentrant():
        m.autograd.grad(cp.checkpoint(_f, x, w, use_reentrant=True).sum(), x)

    def backward_inputs_of_reentrant():
        cp.checkpoint(_f, x, w, use_reentrant=True).sum().backward(inputs=[x])

    def changing(first, later, early_stop=True):
        state = {"n": 0}

        def fn(a):
            state["n"] += 1
            return first(a) if state["n"] == 1 else later(a)
        with cp.set_checkpoint_early_stop(early_stop):
            y = cp.checkpoint(fn, x, use_reentrant=False)
        y.sum().backward()

    class ReadsTwice(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            first = ctx.saved_tensors
            second = ctx.saved_tensors  # the second read: the holder is empty
            return g * 2 + 0 * first[0] + 0 * second[0]

    def outputs_without_grad():
        cp.checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True).sum().backward()

    cases = [
        grad_of_reentrant,
        backward_inputs_of_reentrant,
        lambda: changing(lambda a: a.exp().exp(), lambda a: a.exp()),  # fewer tensors saved in the rerun
        lambda: changing(lambda a: a.exp(), lambda a: a[:2].exp()),  # other shapes
        lambda: changing(lambda a: a.exp(), lambda a: a.exp().exp(), False),  # more saved (early stop hides it)
        lambda: cp.checkpoint(lambda a: ReadsTwice.apply(a.sin()), x, use_reentrant=False).sum().backward(),
        lambda: cp.checkpoint(_f, x, w, use_reentrant=True, foo=1),
        lambda: cp.checkpoint(_f, x, w, use_reentrant=True, debug=True),
        lambda: cp.checkpoint(_f, x, w, use_reentrant=True, context_fn=lambda: (None, None)),
        lambda: cp.checkpoint(_f, x, w, use_reentrant=False, determinism_check="shapes"),
        lambda: cp.checkpoint_sequential([m.nn.Tanh()], 1, x, use_reentrant=False, foo=2),
        outputs_without_grad,
    ]
    for case in cases:
        out.append(error_of(case))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = cp.checkpoint(_f, x.detach(), w.detach(), use_reentrant=True)
    out.append(([str(c.message) for c in caught], y.requires_grad))
    return out


def test_errors_and_warnings_match_torch():
    torch = _torch()
    ours, theirs = _errors(framework), _errors(torch)
    assert [e[0] for e in ours] == [e[0] for e in theirs]
    for a, b in zip(ours, theirs):
        # the metadata error names the shapes in each framework's words (framework.Size / torch.Size): first line
        assert a == b or (a[0] == b[0] == "CheckpointError" and a[1].split(".")[0] == b[1].split(".")[0])
    assert ours[2][0] == "CheckpointError" and "A different number of tensors was saved" in ours[2][1]
    assert ours[4][0] == "CheckpointError" and "trying to save more tensors" in ours[4][1]
    assert ours[5][0] == "CheckpointError" and "already unpacked once" in ours[5][1]


def test_debug_lists_what_each_run_saved():
    x, _ = _inputs(framework)
    state = {"n": 0}

    def fn(a):
        state["n"] += 1
        return a.exp().exp() if state["n"] == 1 else a.exp()
    y = fcp.checkpoint(fn, x, use_reentrant=False, debug=True)
    with pytest.raises(fcp.CheckpointError, match="A different number of tensors was saved") as info:
        y.sum().backward()
    text = str(info.value)
    assert "Tensors saved during the original forward" in text and "grad_fn=ExpBackward0" in text
    assert "Tensors saved during recomputation" in text


def test_checkpoint_sequential_matches_torch():
    torch = _torch()
    for reentrant in (True, False):
        seen = []
        for m in (framework, torch):
            m.manual_seed(0)
            layers = [m.nn.Linear(4, 6), m.nn.Tanh(), m.nn.Linear(6, 6), m.nn.Sigmoid(), m.nn.Linear(6, 2)]
            with m.no_grad():
                for i, p in enumerate(p for layer in layers for p in layer.parameters()):
                    p.copy_(m.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape)), dtype=p.dtype))
            x = m.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=m.float32, requires_grad=True)
            out = m.utils.checkpoint.checkpoint_sequential(m.nn.Sequential(*layers), 2, x, use_reentrant=reentrant)
            out.pow(2).sum().backward()
            seen.append([out.detach().cpu().numpy(), x.grad.cpu().numpy()] +
                        [p.grad.cpu().numpy() for layer in layers for p in layer.parameters()])
        for a, b in zip(*seen):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _f64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return framework.tensor(rng.standard_normal(shape), dtype=framework.float64, requires_grad=True)


def test_gradcheck_non_reentrant():
    x, w = _f64(3, 4), _f64(4, 2, seed=1)
    assert gradcheck(lambda a, b: fcp.checkpoint(_f, a, b, use_reentrant=False), [x, w])
    assert gradgradcheck(lambda a, b: fcp.checkpoint(_f, a, b, use_reentrant=False), [x, w])


def test_gradcheck_reentrant_through_backward():
    """The reentrant variant refuses autograd.grad (as torch's): its backward() gradients equal the plain
    function's, which pass gradcheck."""
    x, w = _f64(3, 4), _f64(4, 2, seed=1)
    assert gradcheck(_f, [x, w])
    g = _f64(3, 2, seed=2).detach()
    _f(x, w).backward(g)
    plain = [x.grad.cpu().numpy().copy(), w.grad.cpu().numpy().copy()]
    x.grad = w.grad = None
    fcp.checkpoint(_f, x, w, use_reentrant=True).backward(g)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), plain[0])
    np.testing.assert_array_equal(w.grad.cpu().numpy(), plain[1])


def _mlp_grads(mode):
    framework.manual_seed(0)
    m = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 16), nn.Tanh(), nn.Dropout(0.3),
                      nn.Linear(16, 1))
    x = framework.randn(8, 6).requires_grad_()
    framework.manual_seed(5)
    if mode is None:
        y = m(x)
    elif mode == "sequential":
        y = fcp.checkpoint_sequential(m, 2, x, use_reentrant=False)
    else:
        y = fcp.checkpoint(m, x, use_reentrant=mode)
    after_forward = framework.rand(1).item()
    y.pow(2).mean().backward()
    after_backward = framework.rand(1).item()  # the rerun put the surrounding random state back
    return [p.grad.cpu().numpy() for p in m.parameters()] + [x.grad.cpu().numpy(), y.detach().cpu().numpy()], \
        (after_forward, after_backward)


@pytest.mark.parametrize("mode", [True, False, "sequential"])
def test_dropout_mlp_gives_the_unchekpointed_gradients(mode):
    ref, ref_draws = _mlp_grads(None)
    got, draws = _mlp_grads(mode)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)
    assert draws == ref_draws


def test_without_preserve_rng_state_dropout_masks_differ():
    framework.manual_seed(0)
    m = nn.Sequential(nn.Linear(6, 16), nn.Dropout(0.5), nn.Linear(16, 1))
    x = framework.randn(8, 6).requires_grad_()
    y = fcp.checkpoint(m, x, use_reentrant=False, preserve_rng_state=False, determinism_check="none")
    y.pow(2).mean().backward()
    framework.manual_seed(0)
    m2 = nn.Sequential(nn.Linear(6, 16), nn.Dropout(0.5), nn.Linear(16, 1))
    x2 = framework.randn(8, 6).requires_grad_()
    m2(x2).pow(2).mean().backward()
    assert not np.array_equal(m[0].weight.grad.cpu().numpy(), m2[0].weight.grad.cpu().numpy())


@pytest.mark.explicit_device  # framework.compile records NumPy steps only
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_compiled_step_with_checkpoint_breaks_the_capture_visibly(use_reentrant):
    def make():
        framework.manual_seed(3)
        m = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.25), nn.Tanh(), nn.Linear(8, 1))
        opt = framework.optim.SGD(m.parameters(), lr=0.1)

        def step(x):
            opt.zero_grad()
            loss = fcp.checkpoint(m, x, use_reentrant=use_reentrant).pow(2).mean()
            loss.backward()
            opt.step()
            return loss
        return m, step
    xs = [framework.randn(4, 6, device="cpu").requires_grad_() for _ in range(2)]
    m_e, step_e = make()
    eager = [float(step_e(xs[i % 2])) for i in range(4)]
    m_c, step_c = make()
    compiled = framework.compile(step_c)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = [float(compiled(xs[i % 2])) for i in range(4)]
    assert got == eager  # the step ran eagerly each time: bit-for-bit the eager losses and weights
    for a, b in zip(m_e.parameters(), m_c.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert any("graph break" in str(w.message) and "checkpoint" in str(w.message) for w in caught)
    with pytest.raises(framework.compile.GraphBreak, match="checkpoint"):
        framework.compile(make()[1], fullgraph=True)(xs[0])


def _exec_group_log(m):
    cp = m.utils.checkpoint
    calls = []

    def fn(x):
        calls.append(1)
        return x.sin(), x.cos()
    x = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
    out = []
    a, b = cp.checkpoint(fn, x, use_reentrant=False)
    with cp.GraphExecGroup():  # two backwards, one recomputation
        a.sum().backward()
        b.sum().backward()
    out.append((len(calls), x.grad.tolist()))
    a, b = cp.checkpoint(fn, x, use_reentrant=False)
    a.sum().backward()
    b.sum().backward()
    out.append(len(calls))

    def overlapping():
        a, _ = cp.checkpoint(fn, x, use_reentrant=False)
        with cp.GraphExecGroup():
            a.sum().backward(retain_graph=True)
            a.sum().backward()

    def nested():
        with cp.GraphExecGroup(), cp.GraphExecGroup():
            pass
    out.append(error_of(overlapping))
    out.append(error_of(nested)[0])
    return out


def test_graph_exec_group_matches_torch():
    torch = _torch()
    ours, theirs = _exec_group_log(framework), _exec_group_log(torch)
    assert ours[0][0] == theirs[0][0]
    np.testing.assert_allclose(ours[0][1], theirs[0][1], rtol=1e-12)
    assert ours[1:] == theirs[1:]


@pytest.mark.explicit_device  # weak references to NumPy arrays (the strict stand-in's arrays take none)
@pytest.mark.parametrize("use_reentrant", [None, True, False])
def test_intermediates_are_freed_after_the_forward(use_reentrant):
    """What checkpointing is for: the function's intermediate arrays are not kept by the graph (without it, they
    are: exp saves its result)."""
    import gc
    import weakref
    refs = []

    def fn(x):
        h = x
        for _ in range(4):
            e = h.exp()
            refs.append(weakref.ref(e._array))
            h = e * 0.5
        return h.sum()
    x = framework.tensor(np.linspace(-1, 0.5, 64), dtype=framework.float64, requires_grad=True)
    if use_reentrant is None:
        y = fn(x)
    else:
        y = fcp.checkpoint(fn, x, use_reentrant=use_reentrant)
    gc.collect()
    alive = sum(r() is not None for r in refs)
    if use_reentrant is None:
        assert alive >= 3  # the un-checkpointed graph keeps the exp results
    else:
        assert alive == 0
    y.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), _chain_grad(x.detach().cpu().numpy()), rtol=1e-12)


def _chain_grad(x):
    h, d = x.astype(np.float64), np.ones_like(x, dtype=np.float64)
    for _ in range(4):
        e = np.exp(h)
        d = d * e * 0.5
        h = e * 0.5
    return d


@pytest.mark.explicit_device  # CPU autocast: the tensors stay on the CPU (torch's oracle runs there)
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_rerun_under_the_forwards_autocast_as_torch(use_reentrant):
    """Forward under autocast, backward outside it: the rerun restores autocast (else the non-reentrant check
    sees float32 where float16 was saved, and the reentrant gradients are float32 maths)."""
    torch = _torch()
    seen = []
    for m in (framework, torch):
        lin = m.nn.Linear(4, 3)
        with m.no_grad():
            lin.weight.copy_(m.tensor(np.cos(np.arange(12)).reshape(3, 4), dtype=m.float32))
            lin.bias.fill_(0.1)
        x = m.tensor(np.linspace(-1, 1, 8).reshape(2, 4), dtype=m.float32, requires_grad=True)
        with m.autocast("cpu", dtype=m.float16):
            y = m.utils.checkpoint.checkpoint(lambda a: lin(a).relu(), x, use_reentrant=use_reentrant)
        y.float().sum().backward()
        seen.append((str(y.dtype).split(".")[-1], x.grad.tolist(), lin.weight.grad.tolist()))
    assert seen[0] == seen[1]
