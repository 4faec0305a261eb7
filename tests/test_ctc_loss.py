"""ctc_loss / CTCLoss: losses, gradients, node names and errors equal torch's; a float64 gradcheck without torch;
framework.compile replays a step that uses it."""
import warnings

import numpy as np
import pytest

import framework
import framework.nn.functional as F
from framework.testing import gradcheck

rng = np.random.default_rng(0)
T, N, C = 8, 5, 6
X = rng.standard_normal((T, N, C))
# item 1 repeats a label (the recursion may not skip the blank between them), item 2 cannot fit its target in its
# input (infeasible: inf loss), item 3 has an empty target, item 4 an empty input and an empty target
TARGETS = np.array([[1, 2, 3, 4], [2, 2, 5, 0], [1, 2, 1, 2], [3, 0, 0, 0], [0, 0, 0, 0]])
IN_LENS = [8, 7, 3, 5, 0]
TGT_LENS = [4, 3, 4, 0, 0]
FEASIBLE = [0, 1, 3, 4]  # the items without item 2


def _torch():
    return pytest.importorskip("torch")


def _concat(targets, lengths):
    return np.concatenate([row[:n] for row, n in zip(targets, lengths)]).astype(np.int64)


def _args(m, form: str, lengths: str, items=None, x=X, dtype="float64"):
    """log_probs (a leaf) and the other arguments of ctc_loss for module m, the targets and lengths in the given
    form: 'padded' (N, S) or 'concat' 1-D; lengths 'tensor', 'tuple' or 'list'."""
    items = list(range(N)) if items is None else items
    tg, il, tl = TARGETS[items], [IN_LENS[i] for i in items], [TGT_LENS[i] for i in items]
    lp = m.tensor(x[:, items], dtype=getattr(m, dtype)).log_softmax(2).detach().requires_grad_()
    targets = m.tensor(tg if form == "padded" else _concat(tg, tl))
    if lengths == "tensor":
        il, tl = m.tensor(il), m.tensor(tl)
    elif lengths == "tuple":
        il, tl = tuple(il), tuple(tl)
    return lp, targets, il, tl


def _chain(t) -> list:
    names, f = [], t.grad_fn
    while f is not None:
        names.append(f.name())
        nxt = [g for g, _ in f.next_functions if g is not None]
        f = nxt[0] if nxt else None
    return names


def _close(a, b, tol):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(np.isposinf(a), np.isposinf(b))
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=tol, atol=tol)


def _both(fn, form="padded", lengths="tensor", items=None, x=X, dtype="float64", seed=1):
    """fn(m, lp, targets, il, tl) under torch and framework: (loss, grad) for each, after backward with a random
    incoming gradient."""
    torch = _torch()
    out = []
    for m in (torch, framework):
        lp, tg, il, tl = _args(m, form, lengths, items, x, dtype)
        loss = fn(m, lp, tg, il, tl)
        g = np.random.default_rng(seed).standard_normal(tuple(loss.shape))
        loss.backward(m.tensor(g, dtype=loss.dtype))
        out.append((loss, lp.grad))
    return out


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("form,lengths", [("padded", "tensor"), ("padded", "tuple"), ("concat", "tensor"),
                                          ("concat", "list")])
def test_losses_and_gradients_equal_torchs(reduction, zero_infinity, form, lengths):
    fn = lambda m, lp, tg, il, tl: m.nn.functional.ctc_loss(lp, tg, il, tl, reduction=reduction,  # noqa: E731
                                                            zero_infinity=zero_infinity)
    (lt, gt), (lf, gf) = _both(fn, form, lengths)
    _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
    _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)  # the infeasible item's rows: nan in both (no zero_infinity)
    assert _chain(lf) == _chain(lt)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_feasible_batch_float32_and_blank_not_zero(reduction):
    fn = lambda m, lp, tg, il, tl: m.nn.functional.ctc_loss(lp, tg, il, tl, blank=C - 1,  # noqa: E731
                                                            reduction=reduction)
    tg = TARGETS.copy()
    try:
        TARGETS[TARGETS == C - 1] = 0  # no label may be the blank
        (lt, gt), (lf, gf) = _both(fn, items=FEASIBLE, dtype="float32")
    finally:
        TARGETS[:] = tg
    assert lf.dtype == framework.float32 and gf.dtype == framework.float32
    _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-5)
    _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-5)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("lengths", ["tensor0d", "tuple"])
def test_unbatched_input(reduction, lengths):
    torch = _torch()
    res = []
    for m in (torch, framework):
        lp = m.tensor(X[:, 0]).log_softmax(1).detach().requires_grad_()
        il, tl = (m.tensor(T), m.tensor(3)) if lengths == "tensor0d" else ((T,), (3,))
        loss = m.nn.functional.ctc_loss(lp, m.tensor([1, 3, 3]), il, tl, reduction=reduction)
        loss.backward()
        res.append((loss, lp.grad))
    (lt, gt), (lf, gf) = res
    assert tuple(lf.shape) == tuple(lt.shape) == ()
    _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
    _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)
    assert _chain(lf) == _chain(lt)  # 'none': SqueezeBackward1, CtcLossBackward0, UnsqueezeBackward0, ...


def test_module_and_top_level_function():
    torch = _torch()
    for kw in (dict(), dict(blank=0, reduction="sum", zero_infinity=True), dict(reduction="none")):
        fn = lambda m, lp, tg, il, tl: m.nn.CTCLoss(**kw)(lp, tg, il, tl)  # noqa: E731
        (lt, gt), (lf, gf) = _both(fn)
        _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
        _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)
    assert repr(framework.nn.CTCLoss(blank=2)) == repr(torch.nn.CTCLoss(blank=2))
    # torch.ctc_loss takes ATen's integer reduction; its Python default reads as 0 (none)
    for args in ((), (0, 1, False), (0, 2, True)):
        fn = lambda m, lp, tg, il, tl: m.ctc_loss(lp, tg, il, tl, *args)  # noqa: E731
        (lt, gt), (lf, gf) = _both(fn, items=FEASIBLE)
        _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
        _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)


def test_log_probs_of_minus_inf_and_float_targets_as_torch():
    x = X.copy()
    x[2, 0, 4] = -np.inf  # a class that cannot occur: torch's gradient there is nan
    for tdtype in ("float64", "int32"):
        def fn(m, lp, tg, il, tl):
            return m.nn.functional.ctc_loss(lp, tg.to(getattr(m, tdtype)), il, tl, reduction="sum")
        (lt, gt), (lf, gf) = _both(fn, items=FEASIBLE, x=x)
        _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
        _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)


def test_extreme_log_probs_give_torchs_gradient():
    """-1e30 and -inf log-probabilities: torch's lcab + nll - log_probs loses every small term to rounding, and its
    gradient is what that rounding gives; ours takes each class's log-sum relative to the class's own largest term,
    as torch's running log-add does, so it gives the same numbers (and the same nans)."""
    torch = _torch()
    lp = np.log(np.random.default_rng(3).dirichlet(np.ones(4), size=(5, 2)))
    lp[1, 0, 2] = lp[4, 0, 1:] = -1e30
    lp[4, 0, 0] = 0.0
    lp[3, 0, 0] = -np.inf
    res = []
    for m in (torch, framework):
        a = m.tensor(lp, requires_grad=True)
        loss = m.nn.functional.ctc_loss(a, m.tensor([[1, 2, 2], [3, 1, 0]]), (5, 4), (3, 2), reduction="sum")
        loss.backward()
        res.append((loss.detach().cpu().numpy(), a.grad.cpu().numpy()))
    assert res[1][0] == res[0][0] == 1e30
    _close(res[1][1], res[0][1], 1e-10)
    assert np.isnan(res[0][1][3, 0, 0]) and abs(res[0][1][2, 0, 0]) > 1  # rounding's occupancy, above 1


def test_all_targets_empty_concatenated():
    fn = lambda m, lp, tg, il, tl: m.nn.functional.ctc_loss(lp, tg, il, tl, reduction="none")  # noqa: E731
    (lt, gt), (lf, gf) = _both(fn, form="concat", items=[3, 4])
    _close(lf.detach().cpu().numpy(), lt.detach().cpu().numpy(), 1e-10)
    assert np.signbit(lf.detach().cpu().numpy()[1]) == np.signbit(lt.detach().cpu().numpy()[1])  # -0.0, as torch
    _close(gf.cpu().numpy(), gt.cpu().numpy(), 1e-10)


def test_autocast_runs_it_in_float32_as_torch():
    torch = _torch()
    x = np.random.default_rng(4).standard_normal((6, 2, 5))
    res = []
    for m in (torch, framework):
        a = m.tensor(x, device="cpu").log_softmax(2).half().detach().requires_grad_()  # CPU autocast: CPU tensors
        with m.autocast("cpu", dtype=m.float16):
            loss = m.nn.functional.ctc_loss(a, m.tensor([[1, 2], [3, 3]], device="cpu"), (6, 5), (2, 2))
        loss.backward()
        res.append((str(loss.dtype).split(".")[1], str(a.grad.dtype).split(".")[1], float(loss.detach())))
    assert res[0][:2] == res[1][:2] == ("float32", "float16")
    assert abs(res[0][2] - res[1][2]) < 1e-6


def test_double_backward_is_not_implemented_as_torch():
    torch = _torch()
    msgs, names = [], []
    for m in (torch, framework):
        lp, tg, il, tl = _args(m, "padded", "tensor", FEASIBLE)
        (g,) = m.autograd.grad(m.nn.functional.ctc_loss(lp, tg, il, tl), lp, create_graph=True)
        names.append(g.grad_fn.name())
        with pytest.raises(RuntimeError) as info:
            g.sum().backward()
        msgs.append(str(info.value).split("\n")[0])
    assert names[0] == names[1] == "torch::autograd::NotImplemented"
    assert msgs[0] == msgs[1] == "derivative for aten::_ctc_loss_backward is not implemented"


def test_inplace_change_of_log_probs_raises_as_torch():
    torch = _torch()
    msgs = []
    for m in (torch, framework):
        lp, tg, il, tl = _args(m, "padded", "tuple", FEASIBLE)
        y = lp * 1
        loss = m.nn.functional.ctc_loss(y, tg, il, tl)
        y.add_(1)
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        msgs.append(str(info.value).split(": [")[0])
    assert msgs[0] == msgs[1]


def _err_cases():
    lp = lambda m, shape=(T, 2, C), dt="float32": m.zeros(shape, dtype=getattr(m, dt))  # noqa: E731
    tg = lambda m: m.tensor([[1, 2, 3], [1, 2, 3]])  # noqa: E731
    il = lambda m, v=(8, 7): m.tensor(list(v))  # noqa: E731
    tl = lambda m, v=(3, 2): m.tensor(list(v))  # noqa: E731
    f = lambda m: m.nn.functional.ctc_loss  # noqa: E731
    return {
        "log_probs_1d": lambda m: f(m)(lp(m, (T,)), tg(m), il(m), tl(m)),
        "log_probs_4d": lambda m: f(m)(lp(m, (T, 2, C, 1)), tg(m), il(m), tl(m)),
        "log_probs_0d": lambda m: f(m)(lp(m, ()), tg(m), il(m), tl(m)),
        "targets_3d": lambda m: f(m)(lp(m), tg(m)[None], il(m), tl(m)),
        "targets_0d": lambda m: f(m)(lp(m), m.tensor(1), il(m), tl(m)),
        "blank_too_big": lambda m: f(m)(lp(m), tg(m), il(m), tl(m), blank=C),
        "blank_negative": lambda m: f(m)(lp(m), tg(m), il(m), tl(m), blank=-1),
        "input_lengths_size": lambda m: f(m)(lp(m), tg(m), il(m, (8, 7, 6)), tl(m)),
        "target_lengths_size": lambda m: f(m)(lp(m), tg(m), il(m), tl(m, (3,))),
        "input_length_too_long": lambda m: f(m)(lp(m), tg(m), il(m, (9, 7)), tl(m)),
        "input_length_negative": lambda m: f(m)(lp(m), tg(m), il(m, (-1, 7)), tl(m)),
        "target_length_negative": lambda m: f(m)(lp(m), tg(m), il(m), tl(m, (-1, 2))),
        "target_length_too_long": lambda m: f(m)(lp(m), tg(m), il(m), tl(m, (4, 2))),
        "targets_batch": lambda m: f(m)(lp(m), tg(m)[:1], il(m), tl(m)),
        "concat_size": lambda m: f(m)(lp(m), m.tensor([1, 2, 3, 4]), il(m), tl(m)),
        "concat_length_negative": lambda m: f(m)(lp(m), m.tensor([1, 2, 3, 4]), il(m), tl(m, (-1, 2))),
        "tuple_too_long": lambda m: f(m)(lp(m), tg(m), (9, 7), (3, 2)),
        "tuple_size": lambda m: f(m)(lp(m), tg(m), (8,), (3, 2)),
        "float_input_lengths": lambda m: f(m)(lp(m), tg(m), il(m).float(), tl(m)),
        "float_target_lengths": lambda m: f(m)(lp(m), tg(m), il(m), tl(m).double()),
        "bool_input_lengths": lambda m: f(m)(lp(m), tg(m), il(m) > 0, tl(m)),
        "mixed_lengths": lambda m: f(m)(lp(m), tg(m), il(m), (3, 2)),
        "int_lengths": lambda m: f(m)(lp(m), tg(m), 8, 3),
        "list_targets": lambda m: f(m)(lp(m), [[1, 2, 3], [1, 2, 3]], il(m), tl(m)),
        "float_blank": lambda m: f(m)(lp(m), tg(m), il(m), tl(m), blank=1.5),
        "empty": lambda m: f(m)(lp(m, (0, 2, C)), tg(m), il(m, (0, 0)), tl(m)),
        "integer_log_probs": lambda m: f(m)(lp(m, dt="int64"), tg(m), il(m), tl(m)),
        "half_log_probs": lambda m: f(m)(lp(m, dt="float16"), tg(m), il(m), tl(m)),
        "bad_reduction": lambda m: f(m)(lp(m), tg(m), il(m), tl(m), reduction="batchmean"),
        "module_bad_reduction": lambda m: m.nn.CTCLoss(reduction="foo")(lp(m), tg(m), il(m), tl(m)),
    }


@pytest.mark.parametrize("case", list(_err_cases()))
def test_errors_as_torchs(case):
    torch = _torch()
    fn = _err_cases()[case]
    with pytest.raises(Exception) as t_info:
        fn(torch)
    with pytest.raises(Exception) as f_info:
        fn(framework)
    assert type(f_info.value) is type(t_info.value)
    first = str(t_info.value).split("\n")[0]
    if framework.get_default_device() != "cpu":  # aten's CUDA kernel has its own name
        first = first.replace('"ctc_loss_cpu"', '"ctc_loss_cuda"')
    assert str(f_info.value).split("\n")[0] == first
    if isinstance(f_info.value, TypeError):  # the parser's message: ours then explains the two accepted forms
        assert "both as tuples" in str(f_info.value)


@pytest.mark.parametrize("form", ["padded", "concat"])
@pytest.mark.parametrize("reduction,zero_infinity", [("none", False), ("mean", True), ("sum", False)])
def test_gradcheck_float64(form, reduction, zero_infinity):
    items = FEASIBLE if not zero_infinity else None  # zero_infinity: the infeasible item adds 0 and no gradient
    _, tg, il, tl = _args(framework, form, "tuple", items)
    x = framework.tensor(X[:, items if items else slice(None)] * 0.5, requires_grad=True)

    def fn(x):
        return F.ctc_loss(x.log_softmax(2), tg, il, tl, reduction=reduction, zero_infinity=zero_infinity)
    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-6)


def test_gradient_is_log_softmax_consistent_without_torch():
    """Summed over the classes the gradient of a feasible item is 0 at each step inside its input (the occupancies
    add up to 1, as the probabilities), and 0 past its input."""
    lp, tg, il, tl = _args(framework, "padded", "tuple", FEASIBLE)
    F.ctc_loss(lp, tg, il, tl, reduction="sum").backward()
    g = lp.grad.cpu().numpy()
    np.testing.assert_allclose(g.sum(axis=2), 0.0, atol=1e-12)
    for n, steps in enumerate(il):
        assert not g[steps:, n].any()


def _ctc_step(seed: int, lengths: str):
    framework.manual_seed(seed)
    model = framework.nn.Linear(4, C).double().to("cpu")  # framework.compile records CPU steps
    opt = framework.optim.SGD(model.parameters(), lr=0.1)
    tg = framework.from_numpy(TARGETS[FEASIBLE])
    il = tuple(IN_LENS[i] for i in FEASIBLE)
    tl = tuple(TGT_LENS[i] for i in FEASIBLE)
    if lengths == "tensor":
        il, tl = framework.from_numpy(np.array(il)), framework.from_numpy(np.array(tl))

    def step(x):
        opt.zero_grad()
        loss = F.ctc_loss(model(x).log_softmax(2), tg, il, tl)
        loss.backward()
        opt.step()
        return loss.detach()
    return model, step


def test_compile_replays_a_ctc_step_bit_for_bit():
    xs = [framework.from_numpy(np.random.default_rng(i).standard_normal((T, len(FEASIBLE), 4))) for i in range(3)]
    model_e, step_e = _ctc_step(0, "tuple")
    le = [float(step_e(xs[i % 3])) for i in range(12)]
    model_c, step_c = _ctc_step(0, "tuple")
    compiled = framework.compile(step_c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tuple lengths: no graph break
        lc = [float(compiled(xs[i % 3])) for i in range(12)]
    assert lc == le
    for pe, pc in zip(model_e.parameters(), model_c.parameters()):
        assert np.array_equal(pe.detach().cpu().numpy(), pc.detach().cpu().numpy())
    assert compiled.replays >= 10


def test_compile_with_length_tensors_breaks_visibly_and_stays_right():
    xs = [framework.from_numpy(np.random.default_rng(i).standard_normal((T, len(FEASIBLE), 4))) for i in range(2)]
    _, step_e = _ctc_step(1, "tensor")
    le = [float(step_e(xs[i % 2])) for i in range(4)]
    _, step_c = _ctc_step(1, "tensor")
    compiled = framework.compile(step_c)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lc = [float(compiled(xs[i % 2])) for i in range(4)]
    assert lc == le
    breaks = [w for w in caught if "graph break" in str(w.message)]
    assert len(breaks) >= 1 and "test_ctc_loss.py" in str(breaks[0].message)


def test_retain_graph_accumulates_and_a_freed_graph_raises_as_torch():
    torch = _torch()
    msgs = []
    for m in (torch, framework):
        lp, tg, il, tl = _args(m, "padded", "tuple", FEASIBLE)
        loss = m.nn.functional.ctc_loss(lp, tg, il, tl)
        loss.backward(retain_graph=True)
        first = lp.grad.clone()
        loss.backward()
        _close(lp.grad.cpu().numpy(), 2 * first.cpu().numpy(), 1e-12)
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        msgs.append(str(info.value).split(".")[0])
    assert msgs[0] == msgs[1]
