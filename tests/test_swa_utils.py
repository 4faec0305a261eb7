"""optim.swa_utils vs torch: AveragedModel (SWA and EMA, with and without buffers), the averaging functions,
update_bn and SWALR; and AveragedModel's deep copy of a model whose parameters are views of an optimizer's flat
buffers (foreach), which must stay independent of the live model while both keep training."""
import numpy as np
import pytest

import framework
from framework.optim import swa_utils
from framework.optim._flat import _root
from framework.testing import assert_close

from scenario import error_of


def _build(m, dtype):
    return m.nn.Sequential(m.nn.Linear(4, 8), m.nn.BatchNorm1d(8), m.nn.ReLU(), m.nn.Linear(8, 2)).to(
        getattr(m, dtype))


def _twins(torch, dtype):
    """torch's model and ours with the same weights and buffers."""
    torch.manual_seed(0)
    theirs = _build(torch, dtype)
    ours = _build(framework, dtype)
    ours.load_state_dict({k: framework.tensor(v.detach().cpu().numpy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


def _torch_kwargs(torch, kw: dict, device: str) -> dict:
    """torch's AveragedModel as it runs where ours runs: on an accelerator its default SWA takes the foreach path,
    lerp with the weight 1 / (n + 1) as a float32 tensor (get_swa_multi_avg_fn), not the CPU's get_swa_avg_fn."""
    if device != "cpu" and "avg_fn" not in kw and "multi_avg_fn" not in kw:
        return dict(kw, multi_avg_fn=torch.optim.swa_utils.get_swa_multi_avg_fn())
    return kw


def _tol(dtype):
    return dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=1e-6, atol=1e-6)


def _train_step(torch, pair, opts, rng):
    """One SGD step of both models on the same batch (which also moves BatchNorm's running statistics)."""
    x = rng.standard_normal((6, 4))
    for lib, model, opt in ((torch, pair[0], opts[0]), (framework, pair[1], opts[1])):
        dtype = next(model.parameters()).dtype
        opt.zero_grad()
        model(lib.tensor(x, dtype=dtype)).pow(2).mean().backward()
        opt.step()


def _same_state(ours, theirs, tol):
    t_state, f_state = theirs.state_dict(), ours.state_dict()
    assert list(f_state) == list(t_state)
    for k, v in t_state.items():
        assert_close(f_state[k], v.detach().cpu().numpy(), **tol)
        assert f_state[k].dtype == getattr(framework, str(v.dtype).split(".")[1]), k


AVERAGERS = {
    "swa": lambda m: {},
    "swa_buffers": lambda m: {"use_buffers": True},
    "ema_multi": lambda m: {"multi_avg_fn": m.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
    "ema_multi_buffers": lambda m: {"multi_avg_fn": m.optim.swa_utils.get_ema_multi_avg_fn(0.75),
                                    "use_buffers": True},
    "ema_single": lambda m: {"avg_fn": m.optim.swa_utils.get_ema_avg_fn(0.8)},
    "swa_single_buffers": lambda m: {"avg_fn": m.optim.swa_utils.get_swa_avg_fn(), "use_buffers": True},
    "swa_multi": lambda m: {"multi_avg_fn": m.optim.swa_utils.get_swa_multi_avg_fn()},
    "swa_multi_buffers": lambda m: {"multi_avg_fn": m.optim.swa_utils.get_swa_multi_avg_fn(), "use_buffers": True},
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", list(AVERAGERS))
def test_averaged_model_matches_torch_over_training(torch, kind, dtype, device):
    pair = _twins(torch, dtype)
    opts = (torch.optim.SGD(pair[0].parameters(), lr=0.1), framework.optim.SGD(pair[1].parameters(), lr=0.1))
    avg_t = torch.optim.swa_utils.AveragedModel(pair[0], **_torch_kwargs(torch, AVERAGERS[kind](torch), device))
    avg_f = swa_utils.AveragedModel(pair[1], **AVERAGERS[kind](framework))
    _same_state(avg_f, avg_t, _tol(dtype))
    rng = np.random.default_rng(0)
    for _ in range(4):
        _train_step(torch, pair, opts, rng)
        theirs = error_of(lambda: avg_t.update_parameters(pair[0]))
        assert error_of(lambda: avg_f.update_parameters(pair[1])) == theirs
        if theirs != ("ok",):  # torch's SWA of integer buffers with a tensor count: addcdiv_ of two integers
            multi = kind == "swa_multi_buffers" or (kind == "swa_buffers" and device != "cpu")
            assert multi and "Integer division with addcdiv" in theirs[1]
            return
        _same_state(avg_f, avg_t, _tol(dtype))
    assert avg_f.n_averaged.item() == 4 and avg_f.n_averaged.dtype == framework.int64
    x = rng.standard_normal((3, 4))
    avg_t.eval(), avg_f.eval()
    assert_close(avg_f(framework.tensor(x, dtype=getattr(framework, dtype))).detach(),
                 avg_t(torch.tensor(x, dtype=getattr(torch, dtype))).detach().numpy(), **_tol(dtype))


def test_averaged_model_is_a_deep_copy_with_torch_state_dict_keys(torch):
    theirs, ours = _twins(torch, "float32")
    avg = swa_utils.AveragedModel(ours)
    assert list(avg.state_dict()) == list(torch.optim.swa_utils.AveragedModel(theirs).state_dict())
    assert avg.module is not ours and avg.module[0].weight is not ours[0].weight
    with framework.no_grad():
        ours[0].weight.add_(1.0)
    assert not np.allclose(avg.module[0].weight.detach().cpu().numpy(), ours[0].weight.detach().cpu().numpy())
    assert avg.module[0].weight.requires_grad  # a deep copy keeps Parameters (torch's too)
    loaded = swa_utils.AveragedModel(ours)
    loaded.load_state_dict(avg.state_dict())
    assert loaded.n_averaged.item() == 0


def test_averaged_model_of_a_model_trained_with_flat_foreach_buffers(torch, device):
    """SGD(momentum, foreach) keeps the parameters as views of one flat buffer; the deep copy must own its memory, and
    both the averaged copy and the live model (still flat, still stepping) must stay equal to torch's."""
    pair = _twins(torch, "float64")
    # (SGD, not Adam: the first Linear's bias feeds a BatchNorm, so its exact gradient is 0 and Adam would turn
    # the rounding noise of either side into full-size steps)
    opts = (torch.optim.SGD(pair[0].parameters(), lr=0.05, momentum=0.9, foreach=True),
            framework.optim.SGD(pair[1].parameters(), lr=0.05, momentum=0.9, foreach=True))
    rng = np.random.default_rng(1)
    _train_step(torch, pair, opts, rng)
    flat = {id(_root(p._array)) for p in pair[1].parameters()}
    assert len(flat) == 1  # the foreach path made them views of one flat buffer
    avg_t = torch.optim.swa_utils.AveragedModel(pair[0], **_torch_kwargs(torch, {}, device))
    avg_f = swa_utils.AveragedModel(pair[1])
    assert not {id(_root(p._array)) for p in avg_f.module.parameters()} & flat  # the copy owns its memory
    for _ in range(3):
        _train_step(torch, pair, opts, rng)
        avg_t.update_parameters(pair[0])
        avg_f.update_parameters(pair[1])
        _same_state(avg_f, avg_t, _tol("float64"))
        _same_state(pair[1], pair[0], _tol("float64"))
    assert {id(_root(p._array)) for p in pair[1].parameters()} == flat  # the live model is still flat
    # an optimizer over the averaged copy flattens it in turn, and trains it as torch's does
    avg_opts = (torch.optim.SGD(avg_t.parameters(), lr=0.01, momentum=0.5),
                framework.optim.SGD(avg_f.parameters(), lr=0.01, momentum=0.5))
    for _ in range(2):
        _train_step(torch, (avg_t, avg_f), avg_opts, rng)
    assert len({id(_root(p._array)) for p in avg_f.parameters()}) == 1
    _same_state(avg_f, avg_t, _tol("float64"))
    _same_state(pair[1], pair[0], _tol("float64"))


def test_averaging_functions_match_torch(torch):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 5))
    for name, args in (("get_ema_avg_fn", (0.3,)), ("get_swa_avg_fn", ())):
        fn_t, fn_f = getattr(torch.optim.swa_utils, name)(*args), getattr(swa_utils, name)(*args)
        for n in (0, 3):
            ours = fn_f(framework.tensor(a), framework.tensor(b), framework.tensor(n))
            assert_close(ours, fn_t(torch.tensor(a), torch.tensor(b), torch.tensor(n)).numpy(), rtol=1e-12, atol=1e-12)
    for name, args in (("get_ema_multi_avg_fn", (0.3,)), ("get_swa_multi_avg_fn", ())):
        for n in (2, "tensor"):
            for dtype in ("float64", "int64"):
                ta, tb = torch.tensor(a * 10).to(getattr(torch, dtype)), torch.tensor(b * 10).to(getattr(torch, dtype))
                fa, fb = framework.tensor(ta.numpy()), framework.tensor(tb.numpy())
                nt, nf = (torch.tensor(2), framework.tensor(2)) if n == "tensor" else (n, n)
                theirs = error_of(lambda: getattr(torch.optim.swa_utils, name)(*args)([ta], [tb], nt))
                # torch's SWA of integers fails either way (addcdiv_ of integers, a float alpha): so must ours
                assert error_of(lambda: getattr(swa_utils, name)(*args)([fa], [fb], nf)) == theirs
                assert (theirs == ("ok",)) == (dtype == "float64" or name == "get_ema_multi_avg_fn")
                assert_close(fa, ta.numpy(), rtol=1e-12, atol=1e-12)
                assert fa.dtype == getattr(framework, dtype)


def test_averaging_errors_match_torch(torch):
    for m in (torch, framework):
        m.manual_seed(0)
    lin_t, lin_f = torch.nn.Linear(2, 2), framework.nn.Linear(2, 2)
    for fn in (lambda m, lin: m.optim.swa_utils.get_ema_multi_avg_fn(1.5),
               lambda m, lin: m.optim.swa_utils.get_ema_avg_fn(-0.1),
               lambda m, lin: m.optim.swa_utils.AveragedModel(lin, avg_fn=m.optim.swa_utils.get_swa_avg_fn(),
                                                             multi_avg_fn=m.optim.swa_utils.get_swa_multi_avg_fn())):
        assert error_of(lambda: fn(framework, lin_f)) == error_of(lambda: fn(torch, lin_t)) != ("ok",)


@pytest.mark.parametrize("batches", ["tensors", "pairs"])
def test_update_bn_matches_torch(torch, batches):
    theirs, ours = _twins(torch, "float64")
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((5, 4)) for _ in range(3)]
    for lib, model in ((torch, theirs), (framework, ours)):
        model.eval()
        loader = [lib.tensor(x) for x in data]
        if batches == "pairs":
            loader = [(x, lib.zeros(5)) for x in loader]
        lib.optim.swa_utils.update_bn(loader, model)
        assert not model.training and model[1].momentum == 0.1
    _same_state(ours, theirs, _tol("float64"))
    assert ours[1].num_batches_tracked.item() == 3


def test_update_bn_without_batch_norm_leaves_the_model_alone(torch):
    model = framework.nn.Linear(2, 2).eval()
    swa_utils.update_bn([framework.ones(1, 2)], model)
    assert not model.training


def _swalr_lrs(m, steps, kw, groups=1, other=None):
    params = [m.nn.Parameter(m.zeros(1)) for _ in range(groups)]
    opt = m.optim.SGD([{"params": [p], "lr": 0.5 + i} for i, p in enumerate(params)], lr=0.5)
    sched = m.optim.swa_utils.SWALR(opt, **kw)
    lrs = [sched.get_last_lr()]
    for i in range(steps):
        opt.step()
        if other is not None and i == 2:  # another scheduler's change is annealed from, as in torch
            for g in opt.param_groups:
                g["lr"] *= 0.5
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs, sched


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_strategy="linear", anneal_epochs=4),
                                dict(swa_lr=[0.1, 0.2], anneal_epochs=0), dict(swa_lr=0.3, anneal_epochs=1),
                                dict(swa_lr=[0.01, 0.02], anneal_strategy="linear", anneal_epochs=3)])
def test_swalr_matches_torch(torch, kw):
    groups = len(kw["swa_lr"]) if isinstance(kw["swa_lr"], list) else 2
    for other in (None, True):
        ours, sched_f = _swalr_lrs(framework, 14, kw, groups, other)
        theirs, sched_t = _swalr_lrs(torch, 14, kw, groups, other)
        np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)
    state_t, state_f = sched_t.state_dict(), sched_f.state_dict()
    assert set(state_f) >= {"anneal_epochs", "_anneal_strategy", "base_lrs", "last_epoch", "_step_count"}
    assert "anneal_func" not in state_f and "optimizer" not in state_f
    for k in ("anneal_epochs", "_anneal_strategy", "base_lrs", "last_epoch", "_step_count", "_last_lr"):
        assert state_f[k] == state_t[k], k
    resumed = _swalr_lrs(framework, 0, dict(kw, anneal_strategy="cos"), groups)[1]
    resumed.load_state_dict(state_f)
    assert resumed.anneal_func == sched_f.anneal_func and resumed._anneal_strategy == sched_f._anneal_strategy


def test_swalr_errors_match_torch(torch):
    for kw in (dict(swa_lr=0.1, anneal_strategy="exp"), dict(swa_lr=0.1, anneal_epochs=-1),
               dict(swa_lr=0.1, anneal_epochs=2.0), dict(swa_lr=[0.1, 0.2, 0.3])):
        ours = error_of(lambda: _swalr_lrs(framework, 0, kw, 2))
        assert ours == error_of(lambda: _swalr_lrs(torch, 0, kw, 2)) != ("ok",), kw


def test_swalr_get_lr_outside_step_warns_as_torch(torch):
    sched = _swalr_lrs(framework, 1, dict(swa_lr=0.1))[1]
    with pytest.warns(UserWarning, match="To get the last learning rate computed by the scheduler"):
        sched.get_lr()


def test_addcdiv_inplace_refuses_integer_division_as_torch(torch):
    for m in (torch, framework):
        x = m.ones(2)
        err = error_of(lambda: x.addcdiv_(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)))
        assert err[0] == "RuntimeError" and err[1].startswith("Integer division with addcdiv is no longer supported")
    x, ints = framework.ones(2), framework.ones(2, dtype=framework.int64)
    assert error_of(lambda: x.addcdiv_(ints, ints)) == error_of(
        lambda: torch.ones(2).addcdiv_(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)))


@pytest.mark.parametrize("call", [lambda m, a: m.add(a, a, alpha=0.5), lambda m, a: a.add_(a, alpha=0.5),
                                  lambda m, a: m.sub(a, a, alpha=0.5), lambda m, a: a.sub_(a, alpha=0.5),
                                  lambda m, a: m.ones(2).add_(a, alpha=0.5), lambda m, a: a.add_(a, alpha=2)])
def test_float_alpha_on_integers_refused_as_torch(torch, call):
    """(swa_utils' integer SWA goes through add_(alpha=float), which torch refuses for integer tensors)"""
    theirs = error_of(lambda: call(torch, torch.tensor([1, 2])))
    assert error_of(lambda: call(framework, framework.tensor([1, 2]))) == theirs


def test_averaged_model_and_update_bn_take_a_device(torch, device):
    """device= moves the copy (and n_averaged) there; update_bn moves each batch there."""
    model = framework.nn.Sequential(framework.nn.Linear(3, 4), framework.nn.BatchNorm1d(4)).to("cpu")
    avg = swa_utils.AveragedModel(model, device=device)
    assert avg.n_averaged.device == device and next(avg.parameters()).device == device
    assert next(model.parameters()).device == "cpu"
    avg.update_parameters(model)
    swa_utils.update_bn([framework.ones(2, 3, device="cpu") * i for i in range(3)], avg, device=device)
    assert avg.module[1].num_batches_tracked.item() == 3 and avg.n_averaged.item() == 1
