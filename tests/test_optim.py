"""Optimizers and schedulers vs torch: same parameters and state after 100 steps, same lr sequences;
exact resume through framework.save/load; the seed 002/003 scenarios."""
import re

import numpy as np
import pytest

import framework
from framework import nn, optim

OPTIMIZERS = [
    ("sgd", "SGD", dict(lr=0.1)),
    ("sgd_momentum", "SGD", dict(lr=0.05, momentum=0.9)),
    ("sgd_dampening_wd", "SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("sgd_nesterov_max", "SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    ("adam", "Adam", dict(lr=0.01)),
    ("adam_gan", "Adam", dict(lr=1e-3, betas=(0.5, 0.999))),
    ("adam_wd_amsgrad", "Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("adam_maximize_eps", "Adam", dict(lr=0.01, eps=1e-4, maximize=True)),
    ("adamw", "AdamW", dict(lr=0.01)),
    ("adamw_amsgrad", "AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("rmsprop", "RMSprop", dict(lr=0.01)),
    ("rmsprop_centered_momentum", "RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)),
    ("rmsprop_alpha_max", "RMSprop", dict(lr=0.01, alpha=0.9, maximize=True)),
    ("adagrad", "Adagrad", dict(lr=0.1)),
    ("adagrad_decay_wd_init", "Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("adadelta", "Adadelta", dict()),
    ("adadelta_rho_wd_eps", "Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("adamax", "Adamax", dict()),
    ("adamax_wd_max", "Adamax", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("nadam", "NAdam", dict()),
    ("nadam_wd_decay", "NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("nadam_decoupled_max", "NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("radam", "RAdam", dict()),
    ("radam_wd", "RAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.9, 0.9))),
    ("radam_decoupled", "RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("rprop", "Rprop", dict()),
    ("rprop_etas_max", "Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("asgd", "ASGD", dict()),
    ("asgd_t0_wd", "ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=20, weight_decay=0.1)),
]


def _run(m, cls_name, kwargs, dtype, steps=100):
    rng = np.random.default_rng(0)
    shapes = [(3, 4), (4,)]
    params = [m.nn.Parameter(m.tensor(rng.standard_normal(s), dtype=dtype)) for s in shapes]
    opt = getattr(m.optim, cls_name)([{"params": params[:1]}, {"params": params[1:], "lr": 0.02}], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        for p in params:
            p.grad = m.tensor(rng.standard_normal(tuple(p.shape)), dtype=dtype)
        opt.step()
    return params, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,cls_name,kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_optimizer_matches_torch(name, cls_name, kwargs, dtype):
    torch = pytest.importorskip("torch")
    ours, ours_opt = _run(framework, cls_name, kwargs, getattr(framework, dtype))
    theirs, theirs_opt = _run(torch, cls_name, kwargs, getattr(torch, dtype))
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    for p, tp in zip(ours, theirs):
        framework.testing.assert_close(p.detach(), tp.detach().cpu().numpy(), **tol)
    ours_state, theirs_state = ours_opt.state_dict(), theirs_opt.state_dict()
    assert sorted(ours_state["state"]) == sorted(theirs_state["state"])
    for i, st in theirs_state["state"].items():
        assert sorted(ours_state["state"][i]) == sorted(st)
        for k, v in st.items():
            framework.testing.assert_close(ours_state["state"][i][k], v.cpu().numpy(), check_dtype=False, **tol)
    for g, tg in zip(ours_state["param_groups"], theirs_state["param_groups"]):
        for k in g:
            assert g[k] == tg[k], k


def test_step_runs_under_no_grad_and_bumps_versions():
    p = nn.Parameter(framework.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    assert p.is_leaf and p.requires_grad and p.grad_fn is None and p._version == 1
    assert p.tolist() == pytest.approx([0.8, 0.8])
    opt.zero_grad()
    assert p.grad is None


def test_validation_errors_use_torch_wording():
    p = [nn.Parameter(framework.ones(1))]
    for call, msg in [(lambda: optim.SGD(p, lr=-1.0), "Invalid learning rate: -1.0"),
                      (lambda: optim.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
                      (lambda: optim.Adam(p, eps=-1), "Invalid epsilon value: -1"),
                      (lambda: optim.SGD(p, momentum=-0.1), "Invalid momentum value: -0.1"),
                      (lambda: optim.SGD(p, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
                      (lambda: optim.SGD([], lr=0.1), "optimizer got an empty parameter list")]:
        with pytest.raises(ValueError, match=re.escape(msg)):
            call()
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([framework.ones(1, requires_grad=True) * 2], lr=0.1)


def test_add_param_group_and_closure():
    a, b = nn.Parameter(framework.ones(1)), nn.Parameter(framework.ones(1))
    opt = optim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": [b], "lr": 1.0})
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[1]["lr"] == 1.0

    def closure():
        opt.zero_grad()
        loss = (a * 3 + b * 2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 5.0
    assert a.item() == pytest.approx(0.7) and b.item() == pytest.approx(-1.0)


SCHEDULERS = [
    ("step", lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    ("multistep", lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, milestones=[5, 20, 20, 33], gamma=0.3)),
    ("exponential", lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.93)),
    ("cosine", lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=12, eta_min=0.001)),
    ("lambda", lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e))),
    ("linear", lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=17)),
    ("onecycle", lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=60)),
    ("onecycle_linear_3phase", lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.5, 0.2], total_steps=60, anneal_strategy="linear", three_phase=True, pct_start=0.25)),
    ("multiplicative", lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95 if e % 3 else 1.1)),
    ("chained", lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9), m.optim.lr_scheduler.StepLR(o, step_size=5, gamma=0.5)])),
    ("cyclic", lambda m, o: m.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=[0.2, 0.1], step_size_up=4,
                                                          step_size_down=7)),
    ("cyclic_triangular2", lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.2, step_size_up=3,
                                                                      mode="triangular2")),
    ("cyclic_exp_range", lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.2, step_size_up=5, mode="exp_range",
                                                                    gamma=0.97, base_momentum=0.7)),
]


@pytest.mark.parametrize("name,build", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_scheduler_sequence_matches_torch(name, build, opt_name):
    torch = pytest.importorskip("torch")
    seqs = []
    for m in (framework, torch):
        p1, p2 = m.nn.Parameter(m.ones(1)), m.nn.Parameter(m.ones(1))
        kwargs = {"momentum": 0.9} if opt_name == "SGD" else {}
        opt = getattr(m.optim, opt_name)([{"params": [p1]}, {"params": [p2], "lr": 0.3}], lr=0.1, **kwargs)
        sched = build(m, opt)
        seq = []
        for _ in range(50):
            opt.step()
            sched.step()
            seq.append(tuple(sched.get_last_lr()) + (opt.param_groups[0].get("momentum", opt.param_groups[0].get(
                "betas", (None,))[0]),))
        seqs.append(seq)
    assert seqs[0] == seqs[1]


def test_reduce_on_plateau_matches_torch():
    torch = pytest.importorskip("torch")
    metrics = [1.0, 0.9, 0.9, 0.91, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.7, 0.71, 0.72, 0.73, 0.74, 0.75] * 3
    seqs = []
    for m in (framework, torch):
        opt = m.optim.SGD([m.nn.Parameter(m.ones(1))], lr=1.0)
        sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.01)
        seq = []
        for v in metrics:
            sched.step(v)
            seq.append(sched.get_last_lr()[0])
        seqs.append(seq)
    assert seqs[0] == seqs[1]


def _train(model, opt, sched, steps, rng_state=None):
    gen = np.random.default_rng(42 if rng_state is None else rng_state)
    for _ in range(steps):
        x = framework.tensor(gen.standard_normal((8, 3)), dtype=framework.float32)
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        sched.step()
    return gen


def test_save_load_continue_is_bit_exact(tmp_path):
    def fresh():
        framework.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
        opt = optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
        sched = optim.lr_scheduler.StepLR(opt, 3, 0.5)
        return model, opt, sched

    model, opt, sched = fresh()
    _train(model, opt, sched, 20)
    expected = {k: v.cpu().numpy().copy() for k, v in model.state_dict().items()}

    model, opt, sched = fresh()
    gen = _train(model, opt, sched, 8)
    framework.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "rng": gen.bit_generator.state}, tmp_path / "ck")
    del model, opt, sched
    model, opt, sched = fresh()
    ck = framework.load(tmp_path / "ck")
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    sched.load_state_dict(ck["sched"])
    gen = np.random.default_rng()
    gen.bit_generator.state = ck["rng"]
    for _ in range(12):
        x = framework.tensor(gen.standard_normal((8, 3)), dtype=framework.float32)
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
        sched.step()
    for k, v in model.state_dict().items():
        assert np.array_equal(v.cpu().numpy(), expected[k]), k


# ---- seed 003: linear regression from scratch with the manual update under no_grad ------------------

def test_seed003_manual_sgd_linear_regression():
    framework.manual_seed(0)
    true_w, true_b = framework.tensor([2.0, -3.4]), 4.2
    features = framework.randn(1000, 2)
    labels = features @ true_w + true_b + framework.randn(1000) * 0.01
    w = framework.zeros(2, requires_grad=True)
    b = framework.zeros(1, requires_grad=True)
    lr, batch_size = 0.03, 10
    for epoch in range(3):
        for i in range(0, 1000, batch_size):
            X, y = features[i:i + batch_size], labels[i:i + batch_size]
            loss = ((X @ w + b - y) ** 2 / 2).sum()
            loss.backward()
            with framework.no_grad():
                for param in [w, b]:
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()
    assert framework.allclose(w.detach(), true_w, atol=0.01) and abs(b.item() - true_b) < 0.01
    assert w.is_leaf and w._version > 0


# ---- seed 002: the GAN step in its three variants --------------------------------------------------

def _gan(retain_graph, detach):
    """Seed 002's snippet, as the document writes it (train/pitfalls.py holds the code)."""
    from train.pitfalls import gan_snippet

    return gan_snippet(retain_graph, detach)


def test_seed002_plain_raises_second_backward():
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        _gan(retain_graph=False, detach=False)


def test_seed002_retain_graph_only_raises_version_error_naming_D():
    with pytest.raises(RuntimeError) as info:
        _gan(retain_graph=True, detach=False)
    text = str(info.value)
    assert re.match(r"one of the variables needed for gradient computation has been modified by an inplace "
                    r"operation: \[framework\.FloatTensor \[2, 2\]\], which is output 0 of AsStrided, is at version 2; "
                    r"expected version 1 instead\.",  # torch names the saved weight.t()'s regenerated node
                    text)
    assert "the parameter `D.weight`" in text
    assert "inside Adam.step()" in text and "optimD.step()" in text and "d = D(g)" in text


def test_seed002_retain_graph_and_detach_trains():
    assert _gan(retain_graph=True, detach=True) == "trained"
