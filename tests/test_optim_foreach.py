"""foreach (flat, multi-tensor) optimizers: the same trajectories as foreach=False (bit for bit on the CPU) and
as torch's foreach path, for every optimizer and option; flat parameters survive `param.data = ...`,
load_state_dict, Module.to, add_param_group, a parameter without a grad, and shared storage."""
import inspect

import numpy as np
import pytest

import framework
from framework import nn, optim
from framework.backend import get_array_module
from test_optim import OPTIMIZERS

MORE = [
    ("sgd_wd_max_nomomentum", "SGD", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("sgd_nesterov_wd", "SGD", dict(lr=0.05, momentum=0.5, nesterov=True, weight_decay=0.05)),
    ("adam_lowbeta_wd_max", "Adam", dict(lr=0.01, betas=(0.3, 0.9), weight_decay=0.05, maximize=True)),
    ("adam_amsgrad_max", "Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("adamw_max_lowbeta", "AdamW", dict(lr=0.01, betas=(0.2, 0.99), weight_decay=0.1, maximize=True)),
    ("rmsprop_momentum", "RMSprop", dict(lr=0.01, momentum=0.5)),
    ("rmsprop_centered_max_wd", "RMSprop", dict(lr=0.01, centered=True, maximize=True, weight_decay=0.1)),
    ("adagrad_max", "Adagrad", dict(lr=0.1, maximize=True, eps=1e-6)),
    ("adadelta_max_wd", "Adadelta", dict(lr=0.5, maximize=True, weight_decay=0.1)),
]
# Adamax, NAdam, RAdam, Rprop and ASGD take foreach= but always step with the single-tensor formulas (no flat
# path: see optim/adam_variants.py); their trajectories against torch are test_optim.py's rows
SINGLE_TENSOR_ONLY = {"Adamax", "NAdam", "RAdam", "Rprop", "ASGD"}
ALL = [o for o in OPTIMIZERS if o[1] not in SINGLE_TENSOR_ONLY] + MORE
SHAPES = [(3, 4), (4,), (), (2, 3, 2), (5,)]


def _run(m, cls_name, kwargs, dtype, foreach, steps=30, events=None):
    """Two groups (3 and 2 params); random grads; ``events[step](params, opt)`` can meddle before a step."""
    rng = np.random.default_rng(0)
    params = [m.nn.Parameter(m.tensor(rng.standard_normal(s), dtype=dtype)) for s in SHAPES]
    opt = getattr(m.optim, cls_name)([{"params": params[:3]}, {"params": params[3:], "lr": 0.02}], foreach=foreach,
                                     **kwargs)
    for i in range(steps):
        opt.zero_grad()
        for p in params:
            p.grad = m.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype)
        if events and i in events:
            params, opt = events[i](m, params, opt) or (params, opt)
        opt.step()
    return params, opt


def _assert_same(a, b, exact=True, tol=None):
    (pa, oa), (pb, ob) = a, b
    check = (lambda x, y: np.testing.assert_array_equal(x, y)) if exact else \
        (lambda x, y: np.testing.assert_allclose(x, y, **tol))
    for x, y in zip(pa, pb):
        check(x.detach().cpu().numpy(), y.detach().cpu().numpy())
    sa, sb = oa.state_dict(), ob.state_dict()
    assert sorted(sa["state"]) == sorted(sb["state"])
    for i, st in sb["state"].items():
        assert sorted(sa["state"][i]) == sorted(st)
        for k, v in st.items():
            check(np.asarray(sa["state"][i][k].cpu().numpy(), dtype=np.float64),
                  np.asarray(v.cpu().numpy(), dtype=np.float64))


def _flat_roots(params):
    return {id(p._array.base) for p in params}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,cls_name,kwargs", ALL, ids=[o[0] for o in ALL])
def test_foreach_equals_single_tensor_and_torch(name, cls_name, kwargs, dtype):
    flat = _run(framework, cls_name, kwargs, getattr(framework, dtype), foreach=True)
    single = _run(framework, cls_name, kwargs, getattr(framework, dtype), foreach=False)
    _assert_same(flat, single)  # the same formulas in the same order: bit for bit
    assert len(_flat_roots(flat[0][:3])) == 1 and len(_flat_roots(flat[0][3:])) == 1  # one buffer per group
    assert all(p._array.base is None for p in single[0])
    assert [p._version for p in flat[0]] == [p._version for p in single[0]]
    torch = pytest.importorskip("torch")
    theirs = _run(torch, cls_name, kwargs, getattr(torch, dtype), foreach=True)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    _assert_same(flat, theirs, exact=False, tol=tol)


def test_foreach_defaults_on_and_keeps_torch_group_value():
    p = nn.Parameter(framework.ones(3))
    opt = optim.Adam([p])
    assert opt.param_groups[0]["foreach"] is None  # as torch stores it; None means on
    p.grad = framework.ones(3)
    opt.step()
    bucket = opt._flat[id(opt.param_groups[0])][1][0][0]
    assert p._array.base is bucket.param and opt.state[p]["exp_avg"]._array.base is bucket.state["exp_avg"]


def _rebind_data(m, params, opt):
    params[1].data = params[1].detach() * 0.5 + 1  # new storage for one parameter


def _drop_grad(m, params, opt):
    params[0].grad = None
    params[4].grad = None


def _to_double(m, params, opt):
    for p in params:  # what Module.double() does to each parameter, and its grad
        p.data = p.detach().to(m.float64)
        p.grad = p.grad.to(m.float64)
    for st in opt.state.values():  # the flat path converts the state with the parameter; do it here for all
        for k, v in list(st.items()):
            if k != "step" and hasattr(v, "dtype"):
                st[k] = v.to(m.float64)


def _reload(m, params, opt):
    sd = opt.state_dict()
    # the defaults that are constructor arguments (AdamW keeps decoupled_weight_decay=True without taking it)
    accepted = inspect.signature(type(opt).__init__).parameters
    fresh = type(opt)([{"params": params[:3]}, {"params": params[3:]}], **{
        k: v for k, v in opt.defaults.items() if k in accepted and k != "foreach"}, foreach=opt.defaults["foreach"])
    fresh.load_state_dict(sd)
    return params, fresh


def _add_group(m, params, opt):
    extra = m.nn.Parameter(m.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=params[0].dtype))
    extra.grad = m.ones(2, 3, dtype=params[0].dtype) * 0.3
    opt.add_param_group({"params": [extra], "lr": 0.03})
    return params + [extra], opt


def _share_storage(m, params, opt):
    params[4].data = params[3].detach().reshape(-1)[:5]  # two parameters, overlapping storage: keep them so


EVENTS = {
    "param_data": {5: _rebind_data, 11: _rebind_data},
    "no_grad_param": {0: _drop_grad, 4: _drop_grad, 5: _drop_grad},
    "to_double": {6: _to_double},
    "load_state_dict": {7: _reload},
    "add_param_group": {3: _add_group},
    "shared_storage": {2: _share_storage},
}


@pytest.mark.parametrize("event", list(EVENTS))
@pytest.mark.parametrize("name,cls_name,kwargs", [o for o in ALL if o[0] in (
    "sgd_dampening_wd", "adam_wd_amsgrad", "adamw", "rmsprop_centered_momentum", "adagrad_decay_wd_init")])
def test_flat_parameters_survive(event, name, cls_name, kwargs):
    args = (framework, cls_name, kwargs, framework.float32)
    flat = _run(*args, foreach=True, events=EVENTS[event])
    single = _run(*args, foreach=False, events=EVENTS[event])
    _assert_same(flat, single)
    if event != "shared_storage":
        assert all(p._array.base is not None for p in flat[0]), "flat again after the event"
    if event == "to_double":
        assert all(p.dtype is framework.float64 for p in flat[0])


def test_no_grad_parameter_matches_torch():
    torch = pytest.importorskip("torch")
    for cls_name, kwargs in [("Adam", dict(lr=0.01, amsgrad=True)), ("SGD", dict(lr=0.1, momentum=0.9))]:
        ours = _run(framework, cls_name, kwargs, framework.float64, True, events=EVENTS["no_grad_param"])
        theirs = _run(torch, cls_name, kwargs, torch.float64, True, events=EVENTS["no_grad_param"])
        _assert_same(ours, theirs, exact=False, tol=dict(rtol=1e-10, atol=1e-10))


def _mlp_steps(set_to_none, keep=None):
    framework.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = optim.Adam(model.parameters(), lr=0.01)
    x = framework.randn(5, 3)
    grads = []
    for _ in range(3):
        opt.zero_grad(set_to_none=set_to_none)
        (model(x) ** 2).mean().backward()
        grads.append([p.grad for p in model.parameters()])
        opt.step()
    return model, opt, grads


def test_zero_grad_false_reuses_the_flat_grad_buffer():
    model, opt, grads = _mlp_steps(set_to_none=False)
    bucket = opt._flat[id(opt.param_groups[0])][1][0][0]
    flat_grad = bucket.grad
    for p in model.parameters():
        assert p.grad._array.base is flat_grad  # the grads are views into the group's gradient buffer
    opt.zero_grad(set_to_none=False)
    assert not flat_grad.any()
    x = framework.randn(5, 3)
    (model(x) ** 2).mean().backward()  # accumulates in place into the views
    opt.step()
    assert bucket.grad is flat_grad and all(p.grad._array.base is flat_grad for p in model.parameters())


def test_zero_grad_none_leaves_old_grads_alone():
    model, opt, grads = _mlp_steps(set_to_none=True)
    assert opt.zero_grad.__defaults__ == (True,)
    kept = [[g.cpu().numpy().copy() for g in step] for step in grads]
    opt.step()  # another gather must not write into the grads of earlier steps
    for step, values in zip(grads, kept):
        for g, v in zip(step, values):
            np.testing.assert_array_equal(g.cpu().numpy(), v)
    assert grads[0][0] is not grads[1][0]


def test_module_to_and_cpu_keep_the_flat_views(device):
    framework.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    (model(framework.ones(1, 3)) ** 2).sum().backward()
    opt.step()
    root = model.weight._array.base
    model.to(device)  # no move (the test device is where the model is): still the same views
    assert model.weight._array.base is root and model.bias._array.base is root
    model.double()
    (model(framework.ones(1, 3, dtype=framework.float64)) ** 2).sum().backward()
    opt.step()
    assert model.weight.dtype is framework.float64 and model.weight._array.base is not root
    assert opt.state[model.weight]["momentum_buffer"].dtype is framework.float64


def test_foreach_version_error_names_the_optimizer():
    w = nn.Parameter(framework.ones(2, 2))
    opt = optim.Adam([w], lr=0.1, foreach=True)
    w.grad = framework.ones(2, 2)
    loss = (w * w).sum()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        loss.backward()
    assert "inside Adam.step()" in str(info.value) and "opt.step()" in str(info.value)


# ---- the fused CuPy Adam kernel, run here by a NumPy interpreter of its source ------------------------

def _interpret(in_params, out_params, operation, name, options=()):
    """A stand-in for backend.elementwise_kernel: runs the kernel's C source elementwise with NumPy (per-op
    rounding in T, as the GPU with --fmad=false), so the formulas and their order are checked without a GPU."""
    assert options == ("--fmad=false",) and name.isidentifier()
    names_in = [a.split()[1] for a in in_params.split(",")]
    names_out = [a.split()[1] for a in out_params.split(",")]
    lines = []
    for line in operation.splitlines():
        line = line.strip().rstrip(";").replace("sqrt(", "np.sqrt(")
        line = line[2:] if line.startswith("T ") else line
        if "?" in line:  # x = (a != a || a >= b) ? a : b
            target, expr = line.split(" = ", 1)
            cond, rest = expr.split(" ? ")
            yes, no = rest.split(" : ")
            cond = " | ".join(f"({c.strip()})" for c in cond.strip("()").split("||"))
            line = f"{target} = np.where({cond}, {yes}, {no})"
        lines.append(line)
    code = compile("\n".join(lines), name, "exec")

    def kernel(*args):
        ns = dict(zip(names_in + names_out, args), np=get_array_module(args[0]))  # the args' xp (cupy on a GPU)
        with np.errstate(all="ignore"):
            exec(code, ns)
        for n, out in zip(names_out, args[len(names_in):]):
            out[...] = ns[n]
    return kernel


ADAM_OPTIONS = [dict(lr=0.01), dict(lr=0.01, betas=(0.3, 0.99)), dict(lr=0.01, weight_decay=0.1, amsgrad=True),
                dict(lr=0.01, maximize=True, betas=(0.5, 0.9)), dict(lr=0.01, amsgrad=True, maximize=True)]


@pytest.mark.parametrize("cls_name", ["Adam", "AdamW"])
@pytest.mark.parametrize("kwargs", ADAM_OPTIONS, ids=[str(sorted(k.items())) for k in ADAM_OPTIONS])
def test_fused_adam_kernel_source_matches_single_tensor(monkeypatch, cls_name, kwargs):
    import framework.optim._flat as flat
    import framework.optim._fused as fused

    monkeypatch.setattr(fused, "elementwise_kernel", _interpret)
    monkeypatch.setattr(flat, "device_of", lambda arr: "cuda:0")  # every bucket takes the GPU branch
    ran = []
    real = fused.fused_adam_
    monkeypatch.setattr(framework.optim.adam, "fused_adam_", lambda *a, **k: ran.append(1) or real(*a, **k))
    for dtype in (framework.float32, framework.float64):
        kernel = _run(framework, cls_name, kwargs, dtype, foreach=True, steps=12)
        single = _run(framework, cls_name, kwargs, dtype, foreach=False, steps=12)
        _assert_same(kernel, single)  # bit for bit, as the GPU kernel should be without FMA contraction
        assert [p._version for p in kernel[0]] == [p._version for p in single[0]]
    assert len(ran) == 2 * 12 * 2 and not fused._broken


# ---- gradients land in the flat gradient buffer (grad_slot): one copy per parameter, no concatenate ----------------

def _mlp_backward(foreach, events=(), steps=4):
    framework.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.01, foreach=foreach)
    x = framework.randn(5, 3)
    for i in range(steps):
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        if "twice" in events:  # a second backward accumulates into the slots
            (model(x) * 3).mean().backward()
        if "one_none" in events and i == 2:  # a grad set by hand: the others stay in their slots
            model[0].bias.grad = framework.ones(4)
        opt.step()
    return model, opt


@pytest.mark.parametrize("events", [(), ("twice",), ("one_none",)], ids=["plain", "twice", "one_by_hand"])
def test_backward_into_flat_grads_equals_single_tensor(events):
    ours, single = _mlp_backward(True, events), _mlp_backward(False, events)
    for p, q in zip(ours[0].parameters(), single[0].parameters()):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())
        np.testing.assert_array_equal(p.grad.cpu().numpy(), q.grad.cpu().numpy())


def test_backward_writes_grads_into_one_fresh_flat_buffer():
    model, opt = _mlp_backward(True)
    bucket = opt._flat[id(opt.param_groups[0])][1][0][0]
    before = bucket.grad
    old = [p.grad for p in model.parameters()]
    kept = [g.cpu().numpy().copy() for g in old]
    opt.zero_grad()
    (model(framework.randn(5, 3)) ** 2).mean().backward()
    new = [p.grad._array for p in model.parameters()]
    assert all(g.base is bucket.grad for g in new)  # each first gradient went straight into its slot
    assert bucket.grad is not before  # a fresh buffer: the grads a user kept are not overwritten
    for g, v in zip(old, kept):
        np.testing.assert_array_equal(g.cpu().numpy(), v)
    opt.step()
    assert all(p.grad._array is g for p, g in zip(model.parameters(), new))  # the step used them, no re-gather


def test_grad_homes_go_with_their_parameters():
    import gc
    import weakref
    from framework.tensor import GRAD_HOMES
    model, opt = _mlp_backward(True)
    keys = [id(p) for p in model.parameters()]
    assert all(GRAD_HOMES[k][0]() is not None for k in keys)
    ref = weakref.ref(model[0].weight)
    del model, opt
    gc.collect()
    assert ref() is None and not any(k in GRAD_HOMES for k in keys)  # (another test's parameters may come and go)


def test_zero_grad_none_frees_the_flat_grad_buffer():
    """As torch frees the grads at zero_grad(), the optimizer forgets its flat gradient there once no parameter
    has a slot of it as .grad: its memory is not kept through the next forward. A grad a user kept holds its own
    view (so its values), and is never written into."""
    import weakref

    model, opt = _mlp_backward(True)
    bucket = opt._flat[id(opt.param_groups[0])][1][0][0]
    model[0].zero_grad()  # only some grads dropped: the others still live in the buffer
    assert bucket.grad is not None and model[2].weight.grad._array.base is bucket.grad
    kept = model[2].weight.grad
    kept_values = kept.cpu().numpy().copy()
    opt.zero_grad()
    assert bucket.grad is None and bucket.grad_views is None
    (model(framework.randn(5, 3)) ** 2).mean().backward()  # a fresh buffer, the grads straight into its slots
    assert all(p.grad._array.base is bucket.grad for p in model.parameters())
    opt.step()
    np.testing.assert_array_equal(kept.cpu().numpy(), kept_values)  # never written into
    flat = weakref.ref(bucket.grad) if isinstance(bucket.grad, np.ndarray) else None
    opt.zero_grad()
    assert bucket.grad is None
    if flat is not None:  # (NumPy: nothing else holds it, so it is freed, not only forgotten)
        assert flat() is None
