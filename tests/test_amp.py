"""Automatic mixed precision against torch on the CPU with dtype=float16: autocast's per-op dtypes, cast nodes and
gradients, its casting cache and nesting, the GradScaler's scale trajectory and state, and the errors."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import framework
from scenario import error_of

torch = pytest.importorskip("torch")
# the comparisons run torch's CPU lists on CPU tensors; the CUDA lists' tests below ask for the device themselves
pytestmark = pytest.mark.explicit_device

F16 = "f16"
RNG = np.random.default_rng(0)


def _make(m, specs):
    """Leaves in library m from (array, kind): float32 or float16, requiring grad; 'long' for class targets."""
    out = []
    for a, kind in specs:
        if kind == "long":
            out.append(m.tensor(a.astype(np.int64)))
        elif kind == "const":
            out.append(m.tensor(a))
        else:
            out.append(m.tensor(a, dtype=m.float16 if kind == F16 else m.float32, requires_grad=True))
    return out


def _name(node):
    return None if node is None else type(node).__name__


def _graph(t):
    """The output's node, the names of the nodes it points to (casts show as ToCopyBackward0) and the names
    those point to (a cast of a leaf points to its AccumulateGrad)."""
    if t.grad_fn is None:
        return None
    nexts = [f for f, _ in t.grad_fn.next_functions]
    return (_name(t.grad_fn), [_name(f) for f in nexts],
            [[_name(g) for g, _ in f.next_functions] if f is not None else None for f in nexts])


def _run(m, fn, specs, dtype_name="float16"):
    leaves = _make(m, specs)
    with m.autocast("cpu", dtype=getattr(m, dtype_name)):
        out = fn(m, *leaves)
    out.float().sum().backward()
    grads = [(str(x.grad.dtype).split(".")[-1], x.grad.detach().float().numpy())
             for x in leaves if x.requires_grad and x.grad is not None]
    return str(out.dtype).split(".")[-1], _graph(out), out.detach().float().numpy(), grads


S = (3, 4)
CASES = {
    # lower precision (CPU list): float32 inputs are cast to float16, each through a ToCopyBackward0
    "mm": (lambda m, a, b: m.mm(a, b), [(3, 4), (4, 5)]),
    "matmul_3d_2d": (lambda m, a, b: m.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "matmul_operator": (lambda m, a, b: a @ b, [(3, 4), (4, 5)]),
    "linear_bias": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [(3, 4), (5, 4), (5,)]),
    "linear_nobias": (lambda m, x, w: m.nn.functional.linear(x, w), [(3, 4), (5, 4)]),
    "linear_3d": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)]),
    "addmm": (lambda m, c, a, b: m.addmm(c, a, b), [(5,), (3, 4), (4, 5)]),
    "bmm": (lambda m, a, b: m.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "baddbmm": (lambda m, c, a, b: m.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "addbmm": (lambda m, c, a, b: m.addbmm(c, a, b), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "conv1d": (lambda m, x, w, b: m.nn.functional.conv1d(x, w, b), [(1, 2, 8), (3, 2, 3), (3,)]),
    "conv2d": (lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    "conv3d": (lambda m, x, w, b: m.nn.functional.conv3d(x, w, b), [(1, 2, 4, 4, 4), (3, 2, 2, 2, 2), (3,)]),
    "conv_transpose1d": (lambda m, x, w, b: m.nn.functional.conv_transpose1d(x, w, b), [(1, 2, 5), (2, 3, 3), (3,)]),
    "conv_transpose2d": (lambda m, x, w, b: m.nn.functional.conv_transpose2d(x, w, b, stride=2),
                         [(1, 2, 4, 4), (2, 3, 3, 3), (3,)]),
    "conv_transpose3d": (lambda m, x, w, b: m.nn.functional.conv_transpose3d(x, w, b),
                         [(1, 2, 3, 3, 3), (2, 3, 2, 2, 2), (3,)]),
    "prelu": (lambda m, x, w: m.nn.functional.prelu(x, w), [(2, 3, 4), (3,)]),
    "linear_module": (lambda m, x: _module(m)(x), [(3, 4)]),
    # float32 (CPU list): float16 inputs are cast up
    "mse_loss": (lambda m, a, b: m.nn.functional.mse_loss(a, b), [((3, 4), F16), (3, 4)]),
    "l1_loss": (lambda m, a, b: m.nn.functional.l1_loss(a, b), [((3, 4), F16), ((3, 4), F16)]),
    "smooth_l1_loss": (lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b), [((3, 4), F16), (3, 4)]),
    "huber_loss": (lambda m, a, b: m.nn.functional.huber_loss(a, b), [((3, 4), F16), (3, 4)]),
    "cross_entropy": (lambda m, a, t: m.nn.functional.cross_entropy(a, t), [((4, 5), F16), ((4,), "long")]),
    "nll_loss": (lambda m, a, t: m.nn.functional.nll_loss(a, t), [((4, 5), F16), ((4,), "long")]),
    "bce_with_logits": (lambda m, a, b: m.nn.functional.binary_cross_entropy_with_logits(a, b),
                        [((3, 4), F16), ((3, 4), "const")]),
    "kl_div": (lambda m, a, b: m.nn.functional.kl_div(a, b, reduction="batchmean"), [((3, 4), F16), ((3, 4), "pos")]),
    "prod": (lambda m, a: a.prod(1), [((3, 4), F16)]),
    "trace": (lambda m, a: m.trace(a), [((4, 4), F16)]),
    "cdist": (lambda m, a, b: m.cdist(a, b), [((3, 4), F16), ((5, 4), F16)]),
    "max_pool3d": (lambda m, a: m.nn.functional.max_pool3d(a, 2), [((1, 2, 4, 4, 4), F16)]),
    # promote (CPU list): to float32 when any input is float32, else float16
    "cat_mixed": (lambda m, a, b: m.cat([a, b]), [((2, 4), F16), (3, 4)]),
    "cat_half": (lambda m, a, b: m.cat([a, b], 1), [((2, 4), F16), ((2, 3), F16)]),
    "stack_mixed": (lambda m, a, b: m.stack([a, b]), [(3, 4), ((3, 4), F16)]),
    # on neither CPU list: run in their inputs' dtype (exp, softmax and pow are float32 only on CUDA)
    "exp_half": (lambda m, a: a.exp(), [((3, 4), F16)]),
    "softmax_half": (lambda m, a: m.softmax(a, 1), [((3, 4), F16)]),
    "pow_float": (lambda m, a: a ** 2, [(3, 4)]),
    "relu_of_linear": (lambda m, x, w: m.relu(m.nn.functional.linear(x, w)), [(3, 4), (5, 4)]),
    "mixed_add": (lambda m, x, w, b: m.nn.functional.linear(x, w) + b, [(3, 4), (5, 4), (5,)]),
}


def _module(m):
    lin = m.nn.Linear(4, 5)
    with m.no_grad():
        lin.weight.copy_(m.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)))
        lin.bias.copy_(m.tensor(np.linspace(0, 1, 5, dtype=np.float32)))
    return lin


def _specs(shapes):
    specs = []
    for s in shapes:
        shape, kind = (s, "f32") if isinstance(s[0], int) else s
        a = RNG.standard_normal(shape).astype(np.float32)
        if kind == "long":
            a = RNG.integers(0, 4, shape).astype(np.float32)
        elif kind == "pos":  # probabilities: a negative target makes kl_div NaN (in both), which compares unequal
            a, kind = np.abs(a) + 0.1, F16
        specs.append((a, kind))
    return specs


@pytest.mark.parametrize("name", list(CASES))
def test_op_under_autocast_matches_torch(name):
    fn, shapes = CASES[name]
    specs = _specs(shapes)
    ours, theirs = _run(framework, fn, specs), _run(torch, fn, specs)
    assert ours[0] == theirs[0], "output dtype"
    if name == "prelu":  # (framework's prelu has no ViewBackward0 of its weight, with or without autocast)
        assert ours[1][0] == theirs[1][0]
    else:
        assert ours[1] == theirs[1], "grad_fn and the nodes it points to"
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-2, atol=1e-2)
    assert [g[0] for g in ours[3]] == [g[0] for g in theirs[3]], "gradients' dtypes"
    for (_, a), (_, b) in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-2)


def test_ops_outside_autocast_keep_float32():
    for m in (framework, torch):
        a = m.ones(2, 3)
        assert m.mm(a, m.ones(3, 2)).dtype == m.float32
        with m.autocast("cpu", dtype=m.float16):
            assert m.mm(a, m.ones(3, 2)).dtype == m.float16
        assert m.mm(a, m.ones(3, 2)).dtype == m.float32


def test_float64_and_integer_inputs_are_not_cast():
    for m in (framework, torch):
        with m.autocast("cpu", dtype=m.float16):
            assert m.mm(m.ones(2, 2, dtype=m.float64), m.ones(2, 2, dtype=m.float64)).dtype == m.float64
            assert m.cat([m.ones(2, dtype=m.float64), m.ones(2, dtype=m.float16)]).dtype == m.float64
            assert m.cat([m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)]).dtype == m.int64


def _cache_identity(m, cache_enabled):
    """Whether two uses of one weight in a region share one cast node; and whether a second region reuses it."""
    w = m.ones(3, 3, requires_grad=True)
    x = m.ones(2, 3)
    with m.autocast("cpu", dtype=m.float16, cache_enabled=cache_enabled):
        a = m.mm(x, w)
        b = m.mm(x, w)
        v = m.mm(x, w[:, :2])  # a view is never cached
        v2 = m.mm(x, w[:, :2])
    with m.autocast("cpu", dtype=m.float16, cache_enabled=cache_enabled):
        c = m.mm(x, w)
    cast = lambda t: t.grad_fn.next_functions[1][0]  # noqa: E731
    return cast(a) is cast(b), cast(a) is cast(c), cast(v) is cast(v2), _name(cast(a))


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_casting_cache_of_leaf_weights(cache_enabled):
    assert _cache_identity(framework, cache_enabled) == _cache_identity(torch, cache_enabled)
    assert _cache_identity(framework, cache_enabled)[0] is cache_enabled


def test_cache_not_used_for_non_leaves_or_no_grad_weights():
    def shared(m, make):
        w, x = make(m), m.ones(2, 3)
        with m.autocast("cpu", dtype=m.float16):
            a, b = m.mm(x, w), m.mm(x, w)
        return a.grad_fn is not None and a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]

    for make in (lambda m: m.ones(3, 3, requires_grad=True) * 2, lambda m: m.ones(3, 3)):
        assert shared(framework, make) == shared(torch, make)


def _states(m):
    seen = []
    with m.autocast("cpu", dtype=m.float16):
        seen.append((m.is_autocast_enabled("cpu"), str(m.mm(m.ones(1, 1), m.ones(1, 1)).dtype)))
        with m.autocast("cpu", enabled=False):
            seen.append((m.is_autocast_enabled("cpu"), str(m.mm(m.ones(1, 1), m.ones(1, 1)).dtype)))
            with m.autocast("cpu", dtype=m.float16):
                seen.append((m.is_autocast_enabled("cpu"), str(m.get_autocast_dtype("cpu"))))
        seen.append((m.is_autocast_enabled("cpu"), str(m.mm(m.ones(1, 1), m.ones(1, 1)).dtype)))
    seen.append((m.is_autocast_enabled("cpu"), m.is_autocast_enabled("cuda"), m.is_autocast_enabled()))
    return [tuple(str(v).replace("torch.", "").replace("framework.", "") for v in s) for s in seen]


def test_nesting_and_enabled_false():
    assert _states(framework) == _states(torch)


def test_decorator_and_state_api():
    for m in (framework, torch):
        @m.autocast("cpu", dtype=m.float16)
        def f(a, b):
            """doc"""
            return m.mm(a, b), m.is_autocast_enabled("cpu")

        out, on = f(m.ones(2, 2), m.ones(2, 2))
        assert (out.dtype, on, m.is_autocast_enabled("cpu"), f.__doc__) == (m.float16, True, False, "doc")
        assert m.amp.autocast is m.autocast and m.is_autocast_cache_enabled()
        m.set_autocast_enabled("cpu", True)
        m.set_autocast_dtype("cpu", m.float16)
        try:
            assert m.mm(m.ones(1, 1), m.ones(1, 1)).dtype == m.float16
            assert m.get_autocast_dtype("cpu") == m.float16
        finally:
            m.set_autocast_enabled("cpu", False)
            m.set_autocast_dtype("cpu", m.bfloat16)
        assert m.get_autocast_dtype("cuda") == m.float16
        assert m.amp.is_autocast_available("cpu")


def test_autocast_exception_restores_state():
    with pytest.raises(ValueError):
        with framework.autocast("cpu", dtype=framework.float16):
            raise ValueError("x")
    assert not framework.is_autocast_enabled("cpu")
    assert framework.mm(framework.ones(1, 1), framework.ones(1, 1)).dtype == framework.float32


def test_error_inside_an_autocast_op_restores_state():
    with framework.autocast("cpu", dtype=framework.float16):
        with pytest.raises(RuntimeError):
            framework.mm(framework.ones(2, 3), framework.ones(2, 3))
        assert framework.mm(framework.ones(1, 1), framework.ones(1, 1)).dtype == framework.float16


def test_backward_through_training_step_under_autocast():
    """An ordinary AMP step: Linear-ReLU-Linear under autocast, fp32 loss, fp32 parameter gradients."""
    grads = {}
    for m in (framework, torch):
        model = m.nn.Sequential(m.nn.Linear(4, 8), m.nn.ReLU(), m.nn.Linear(8, 2))
        with m.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(m.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape)).astype(np.float32) * .3))
        x = m.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
        with m.autocast("cpu", dtype=m.float16):
            out = model(x)
            loss = m.nn.functional.cross_entropy(out, m.tensor([0, 1, 1]))
        assert (out.dtype, loss.dtype) == (m.float16, m.float32)
        loss.backward()
        grads[m.__name__] = [(str(p.grad.dtype)[-7:], p.grad.numpy()) for p in model.parameters()]
    for (da, a), (db, b) in zip(grads["framework"], grads["torch"]):
        assert da == db == "float32"
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=2e-3)


# ---- the GradScaler ---------------------------------------------------------------------------------------


def _train(m, steps=9, inf_steps=(3,), growth_interval=2, init_scale=2.0 ** 10):
    rng = np.random.default_rng(5)
    w1, w2 = rng.standard_normal((6, 4)).astype(np.float32) * .5, rng.standard_normal((1, 6)).astype(np.float32) * .5
    xs = rng.standard_normal((steps, 8, 4)).astype(np.float32)
    ys = rng.standard_normal((steps, 8, 1)).astype(np.float32)
    model = m.nn.Sequential(m.nn.Linear(4, 6), m.nn.Tanh(), m.nn.Linear(6, 1))
    with m.no_grad():
        model[0].weight.copy_(m.tensor(w1))
        model[2].weight.copy_(m.tensor(w2))
        model[0].bias.zero_()
        model[2].bias.zero_()
    opt = m.optim.SGD(model.parameters(), lr=0.05)
    scaler = m.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval)
    trace = []
    for i in range(steps):
        x = m.tensor(xs[i] * (1e6 if i in inf_steps else 1.0))  # 1e6 overflows float16: inf forward, NaN grads
        with m.autocast("cpu", dtype=m.float16):
            loss = m.nn.functional.mse_loss(model(x), m.tensor(ys[i]))
        opt.zero_grad()
        scaler.scale(loss).backward()
        before = model[0].weight.detach().clone()
        scaler.step(opt)
        scaler.update()
        skipped = bool((model[0].weight == before).all())
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), skipped,
                      model[0].weight.detach().numpy().copy()))
    return trace, scaler


def test_grad_scaler_training_matches_torch_scale_trajectory():
    ours, _ = _train(framework)
    theirs, _ = _train(torch)
    assert [t[:3] for t in ours] == [t[:3] for t in theirs]
    assert [t[2] for t in ours] == [False, False, False, True, False, False, False, False, False]
    assert ours[3][0] == ours[2][0] / 2  # the inf step backed off
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a[3], b[3], rtol=1e-2, atol=1e-3)


def test_grad_scaler_default_scale_overflows_float16_and_grows_back():
    # at torch's init_scale 2**16 the float16 gradients of the casts overflow now and then: the same steps are
    # skipped and the scale halves and doubles along the same trajectory as torch's
    ours, _ = _train(framework, steps=8, inf_steps=(), init_scale=2.0 ** 16, growth_interval=1)
    theirs, _ = _train(torch, steps=8, inf_steps=(), init_scale=2.0 ** 16, growth_interval=1)
    assert [t[:3] for t in ours] == [t[:3] for t in theirs]
    assert {t[2] for t in ours} == {True, False}
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a[3], b[3], rtol=1e-2, atol=1e-3)


def test_grad_scaler_state_dict_round_trip():
    _, ours = _train(framework, steps=4)
    _, theirs = _train(torch, steps=4)
    sd = ours.state_dict()
    assert sd == theirs.state_dict()
    other = framework.amp.GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.state_dict() == sd and other.get_scale() == ours.get_scale()
    assert pickle.loads(pickle.dumps(ours)).state_dict() == sd


def test_grad_scaler_disabled_and_unscale():
    for m in (framework, torch):
        s = m.amp.GradScaler("cpu", enabled=False)
        loss = m.ones(())
        assert s.scale(loss) is loss and s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=1.0)
        s = m.amp.GradScaler("cpu", init_scale=4.0)
        scaled = s.scale([(p * 3).sum(), [p.sum()]])
        assert [scaled[0].item(), scaled[1][0].item()] == [24.0, 8.0]
        scaled[0].backward()
        s.unscale_(opt)
        assert p.grad.tolist() == [3.0, 3.0]


def _error_scenarios(m):
    p = m.nn.Parameter(m.ones(2))
    opt = m.optim.SGD([p], lr=1.0)

    def fresh():
        s = m.amp.GradScaler("cpu")
        p.grad = None
        s.scale((p * 2).sum()).backward()
        return s

    def twice():
        s = fresh()
        s.unscale_(opt)
        s.unscale_(opt)

    def after_step():
        s = fresh()
        s.step(opt)
        s.unscale_(opt)

    def step_twice():
        s = fresh()
        s.step(opt)
        s.step(opt)

    def closure():
        fresh().step(opt, closure=lambda: None)

    def fp16_grads():
        q = m.nn.Parameter(m.ones(2, dtype=m.float16))
        s = m.amp.GradScaler("cpu")
        s.scale((q * 2).sum()).backward()
        s.unscale_(m.optim.SGD([q], lr=1.0))

    return {
        "unscale twice": twice, "unscale after step": after_step, "step twice": step_twice, "closure": closure,
        "fp16 grads": fp16_grads,
        "no scale": lambda: m.amp.GradScaler("cpu").step(opt),
        "update without scale": lambda: m.amp.GradScaler("cpu").update(),
        "growth": lambda: m.amp.GradScaler("cpu", growth_factor=1.0),
        "backoff": lambda: m.amp.GradScaler("cpu", backoff_factor=1.0),
        "empty state": lambda: m.amp.GradScaler("cpu").load_state_dict({}),
        "scale of a number": lambda: m.amp.GradScaler("cpu").scale([3]),
    }


def test_grad_scaler_errors_match_torch():
    ours, theirs = _error_scenarios(framework), _error_scenarios(torch)
    for name in ours:
        assert error_of(ours[name]) == error_of(theirs[name]), name
        assert error_of(ours[name]) != ("ok",), name


def test_autocast_errors_and_warnings_match_torch():
    def scenarios(m):
        return {
            "device type not a str": lambda: m.autocast(3),
            "unknown device type": lambda: m.autocast("foo"),
            "decorating a non-callable": lambda: m.autocast("cpu", dtype=m.float16)(3),
            "is_autocast_enabled of unknown": lambda: m.is_autocast_enabled("foo"),
        }
    ours, theirs = scenarios(framework), scenarios(torch)
    for name in ours:
        o, t = error_of(ours[name]), error_of(theirs[name])
        assert o == t, name
    for m in (framework, torch):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported. "
                                             "Disabling autocast."):
            a = m.autocast("cpu", dtype=m.float32)
        with a:
            assert m.mm(m.ones(1, 1), m.ones(1, 1)).dtype == m.float32


def test_cpu_autocast_defaults_to_bfloat16_as_torch():
    for m in (framework, torch):
        assert m.get_autocast_dtype("cpu") == m.bfloat16
        with m.autocast("cpu"):
            out = m.mm(m.ones(2, 3), m.ones(3, 2))
            loss = m.nn.functional.mse_loss(out, m.zeros(2, 2))  # on the CPU's float32 list
            assert (out.dtype, m.exp(out).dtype, loss.dtype) == (m.bfloat16, m.bfloat16, m.float32)
            assert loss.item() == 9.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.cpu.amp.autocast():
                assert m.mm(m.ones(1, 1), m.ones(1, 1)).dtype == m.bfloat16
    with framework.autocast("cpu", enabled=False):
        assert not framework.is_autocast_enabled("cpu")


def _future_warnings(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        make()
    return [str(x.message) for x in w if x.category is FutureWarning]


@pytest.mark.parametrize("what", ["cpu.amp.autocast", "cpu.amp.GradScaler", "cuda.amp.autocast",
                                  "cuda.amp.GradScaler"])
def test_deprecated_aliases_warn_as_torch(what):
    def make(m):
        device, _, name = what.split(".")
        cls = getattr(getattr(getattr(m, device), "amp"), name)
        return lambda: cls(dtype=m.float16) if (name == "autocast" and device == "cpu") else cls()
    ours, theirs = _future_warnings(make(framework)), _future_warnings(make(torch))
    assert ours == theirs and len(ours) == 1
    device, _, name = what.split(".")
    assert issubclass(getattr(getattr(getattr(framework, device), "amp"), name),
                      framework.autocast if name == "autocast" else framework.amp.GradScaler)


def test_cuda_autocast_without_a_gpu_warns_and_disables():
    if framework.cuda.is_available():
        pytest.skip("a GPU (or the strict stand-in) is present")
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        a = framework.autocast("cuda")
    with a:
        assert not framework.is_autocast_enabled("cuda")
    with pytest.warns(UserWarning, match="torch.cuda.amp.GradScaler is enabled, but CUDA is not available."):
        assert not framework.amp.GradScaler().is_enabled()


def test_float16_overflow_in_a_cast_is_silent():
    """A float32 beyond float16's range casts to inf without NumPy's RuntimeWarning, as torch's cast (an AMP
    step that overflows would otherwise warn each time)."""
    x = framework.tensor([1e6, -1e6, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = x.half()
        y.float().backward(framework.ones(3))
    assert y.tolist() == torch.tensor([1e6, -1e6, 1.0]).half().tolist() == [float("inf"), float("-inf"), 1.0]


# ---- the CUDA lists (a GPU, or the strict CuPy stand-in: FRAMEWORK_TEST_DEVICE=strict) ----------------------


@pytest.fixture
def gpu(device):
    if device == "cpu":
        pytest.skip("the CUDA lists need a GPU or the strict stand-in (FRAMEWORK_TEST_DEVICE=strict)")
    return device


def test_cuda_lists(gpu):
    """ATen's CUDA lists (torch's CPU oracle cannot run them): matmuls in float16, exp/log/pow, softmax, sums,
    norms and losses in float32, addcmul/dot promoted, binary_cross_entropy refused."""
    m = framework
    a16 = m.ones(2, 3, device=gpu, dtype=m.float16, requires_grad=True)
    w = m.ones(4, 3, device=gpu, requires_grad=True)
    with m.autocast("cuda"):
        assert m.get_autocast_dtype("cuda") == m.float16 and m.is_autocast_enabled()
        y = m.nn.functional.linear(a16, w)
        got = {"linear": y, "exp": a16.exp(), "pow": a16 ** 2, "softmax": a16.softmax(1), "sum": a16.sum(),
               "cumsum": a16.cumsum(1), "layer_norm": m.nn.functional.layer_norm(a16, (3,)),
               "mse": m.nn.functional.mse_loss(a16, m.zeros(2, 3, device=gpu)),
               "addcmul": m.addcmul(a16, a16, w[:2]), "dot": m.dot(a16[0], w[0]),
               "relu": m.relu(a16), "cat": m.cat([a16, a16]), "mm": m.mm(w, w.t())}
        kept = a16.sum(dtype=m.float16)  # an explicit dtype wins over fp32_set_opt_dtype
        with pytest.raises(RuntimeError, match="binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast"):
            m.nn.functional.binary_cross_entropy(a16.sigmoid(), m.zeros(2, 3, device=gpu, dtype=m.float16))
    f16, f32 = "float16", "float32"
    assert {k: str(v.dtype).split(".")[1] for k, v in got.items()} == {
        "linear": f16, "exp": f32, "pow": f32, "softmax": f32, "sum": f32, "cumsum": f32, "layer_norm": f32,
        "mse": f32, "addcmul": f32, "dot": f32, "relu": f16, "cat": f16, "mm": f16}
    assert kept.dtype == m.float16
    assert [_name(f) for f, _ in y.grad_fn.next_functions] == ["ToCopyBackward0", "TBackward0"] or \
        _name(y.grad_fn) == "MmBackward0"
    (got["linear"].float().sum() + got["exp"].sum()).backward()
    assert (a16.grad.dtype, w.grad.dtype, a16.grad.device) == (m.float16, m.float32, gpu)


def test_grad_scaler_on_the_gpu(gpu):
    p = framework.nn.Parameter(framework.ones(3, device=gpu))
    opt = framework.optim.SGD([p], lr=0.5)
    scaler = framework.amp.GradScaler("cuda", init_scale=4.0, growth_interval=1)
    for x in (1.0, float("inf"), 1.0):
        with framework.autocast("cuda"):
            loss = (framework.mm(p.view(1, 3), framework.ones(3, 1, device=gpu)) * x).float().sum()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 8.0 and scaler._scale.device == gpu
    assert p.tolist() == [0.0, 0.0, 0.0]  # two clean steps of lr 0.5 * grad 1; the inf step skipped


def _custom_function_run(m):
    """A custom Function with custom_fwd(cast_inputs=float32) / custom_bwd under autocast: what its forward and
    backward see."""
    seen = {}

    class MyMM(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type="cpu", cast_inputs=m.float32)
        def forward(ctx, a, b):
            seen["fwd"] = (str(a.dtype), str(b.dtype), m.is_autocast_enabled("cpu"))
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @m.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen["bwd"] = (str(g.dtype), m.is_autocast_enabled("cpu"))
            return g.mm(b.t()), a.t().mm(g)

    class Plain(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a):
            seen["plain_fwd"] = (m.is_autocast_enabled("cpu"), str(m.mm(a, a).dtype))
            return a * 2

        @staticmethod
        @m.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["plain_bwd"] = (m.is_autocast_enabled("cpu"), str(m.get_autocast_dtype("cpu")))
            return g * 2

    a = m.ones(2, 2, dtype=m.float16, requires_grad=True)
    b = m.ones(2, 2, requires_grad=True)
    with m.autocast("cpu", dtype=m.float16):
        out = MyMM.apply(a, b)
        p = Plain.apply(b)
    seen["out"] = str(out.dtype)
    (out.sum() + p.sum()).backward()
    seen["grads"] = (str(a.grad.dtype), str(b.grad.dtype))
    return {k: tuple(str(x).replace("torch.", "").replace("framework.", "") for x in v) if isinstance(v, tuple)
            else v.replace("torch.", "").replace("framework.", "") for k, v in seen.items()}


def test_custom_fwd_and_custom_bwd_match_torch():
    assert _custom_function_run(framework) == _custom_function_run(torch)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        framework.amp.custom_fwd(device_type=3)
