"""The optimizers, schedulers, initialisers and nn.utils added for ordinary PyTorch scripts: Adamax/NAdam/RAdam/
Rprop/ASGD reprs and errors (their trajectories are rows of test_optim.py), weight_norm in both forms, get_total_norm
and clip_grads_with_norm_, trunc_normal_ and dirac_ — against torch."""
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NEW_OPTIMIZERS = ["Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("name", NEW_OPTIMIZERS)
def test_new_optimizers_print_and_save_as_torchs(name):
    outs = []
    for m in (framework, torch):
        p = m.nn.Parameter(m.ones(3))
        opt = getattr(m.optim, name)([p])
        p.grad = m.tensor([0.5, -1.0, 2.0])
        opt.step()
        sd = opt.state_dict()
        outs.append((repr(opt), sorted(sd["state"][0]), sd["param_groups"]))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("name", NEW_OPTIMIZERS)
def test_new_optimizers_step_under_no_grad_bump_versions_and_resume(name):
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(4) for _ in range(6)]
    p = framework.nn.Parameter(framework.ones(4))
    opt = getattr(framework.optim, name)([p], lr=0.05)
    for g in grads[:3]:
        p.grad = framework.tensor(g, dtype=framework.float32)
        v = p._version
        opt.step()
        assert p._version > v and p.grad_fn is None
    saved = opt.state_dict()
    q = framework.nn.Parameter(p.detach().clone())
    resumed = getattr(framework.optim, name)([q], lr=0.05)
    resumed.load_state_dict(saved)
    for g in grads[3:]:
        for param, o in ((p, opt), (q, resumed)):
            param.grad = framework.tensor(g, dtype=framework.float32)
            o.step()
    assert np.array_equal(_np(p), _np(q))


def test_new_optimizers_refuse_bad_options_with_torchs_errors():
    for make in (lambda m, p: m.optim.Adamax([p], betas=(1.0, 0.9)), lambda m, p: m.optim.NAdam([p], lr=-1),
                 lambda m, p: m.optim.RAdam([p], eps=-1.0), lambda m, p: m.optim.Rprop([p], etas=(1.5, 1.2)),
                 lambda m, p: m.optim.ASGD([p], weight_decay=-0.1), lambda m, p: m.optim.NAdam([p], momentum_decay=-1)):
        errors = []
        for m in (framework, torch):
            try:
                make(m, m.nn.Parameter(m.ones(2)))
                errors.append(None)
            except Exception as e:  # noqa: BLE001 - compared with torch's
                errors.append((type(e).__name__, str(e)))
        assert errors[0] == errors[1] and errors[0] is not None


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_parametrized_weight_norm_matches_torch(dim):
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((4, 3, 2)), rng.standard_normal((2, 3, 5))
    outs = []
    for m in (framework, torch):
        conv = m.nn.Conv1d(3, 4, 2, bias=False).double()
        with m.no_grad():
            conv.weight.copy_(m.tensor(w))
        m.nn.utils.parametrizations.weight_norm(conv, dim=dim)
        g, v = conv.parametrizations.weight.original0, conv.parametrizations.weight.original1
        y = conv(m.tensor(x))
        (y * y).sum().backward()
        outs.append(([n for n, _ in conv.named_parameters()], tuple(g.shape), conv.weight.grad_fn.name(), _np(y),
                     _np(g.grad), _np(v.grad), sorted(conv.state_dict())))
    assert outs[0][0] == outs[1][0] and outs[0][1] == outs[1][1] and outs[0][6] == outs[1][6]
    if dim in (0, None):
        assert outs[0][2] == outs[1][2]
    for o, t in zip(outs[0][3:6], outs[1][3:6]):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


def test_weight_norm_op_gradchecks_twice_without_torch():
    from framework.ops.normalization import weight_norm
    rng = np.random.default_rng(3)
    v = framework.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    for dim, gshape in ((0, (3, 1)), (1, (1, 4)), (-1, ())):
        g = framework.tensor(rng.uniform(0.5, 2.0, gshape), requires_grad=True)
        assert gradcheck(lambda a, b: weight_norm(a, b, dim), [v, g])
        assert gradgradcheck(lambda a, b: weight_norm(a, b, dim), [v, g])


def test_hook_weight_norm_warns_trains_and_removes_as_torch():
    rng = np.random.default_rng(4)
    w, x = rng.standard_normal((2, 3)), rng.standard_normal((5, 3))
    outs = []
    for m in (framework, torch):
        lin = m.nn.Linear(3, 2).double()
        with m.no_grad():
            lin.weight.copy_(m.tensor(w))
        with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
            m.nn.utils.weight_norm(lin)
        names = [n for n, _ in lin.named_parameters()]
        lin(m.tensor(x)).sum().backward()
        grads = (_np(lin.weight_g.grad), _np(lin.weight_v.grad))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                m.nn.utils.weight_norm(lin)
            twice = None
        except RuntimeError as e:
            twice = str(e)
        m.nn.utils.remove_weight_norm(lin)
        outs.append((names, grads, twice, [n for n, _ in lin.named_parameters()], _np(lin.weight)))
    assert outs[0][0] == outs[1][0] and outs[0][2] == outs[1][2] and outs[0][3] == outs[1][3]
    for o, t in zip(outs[0][1], outs[1][1]):
        np.testing.assert_allclose(o, t, rtol=1e-10)
    np.testing.assert_allclose(outs[0][4], outs[1][4], rtol=1e-12)


def test_total_norm_and_clipping_with_a_given_norm_match_torch():
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    outs = []
    for m in (framework, torch):
        params = [m.nn.Parameter(m.tensor(a)) for a in arrays]
        for p in params:
            p.grad = p.detach() * 3
        norms = [m.nn.utils.get_total_norm([p.grad for p in params], nt).item() for nt in (2.0, 1.0, float("inf"))]
        total = m.nn.utils.get_total_norm([p.grad for p in params])
        m.nn.utils.clip_grads_with_norm_(params, 1.0, total)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                m.nn.utils.clip_grad_norm(params, 1.0)
                warned = None
            except FutureWarning as w:
                warned = str(w)
        outs.append((norms, [_np(p.grad) for p in params], warned))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    for o, t in zip(outs[0][1], outs[1][1]):
        np.testing.assert_allclose(o, t, rtol=1e-12)
    assert outs[0][2] == outs[1][2] and outs[0][2] is not None


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.3, 0.5, 0.0, 0.4), (0.0, 1.0, 2.5, 3.0)])
def test_trunc_normal_stays_in_its_window_with_torchs_moments(mean, std, a, b):
    framework.manual_seed(0)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the far window warns, in both)
        ours = _np(framework.nn.init.trunc_normal_(framework.empty(20000), mean, std, a, b))
        theirs = _np(torch.nn.init.trunc_normal_(torch.empty(20000), mean, std, a, b))
    assert ours.min() >= a and ours.max() <= b
    assert abs(ours.mean() - theirs.mean()) < 0.02 and abs(ours.std() - theirs.std()) < 0.02


def test_dirac_matches_torch():
    for shape, groups in (((4, 2, 3, 3), 2), ((3, 5, 3), 1), ((2, 2, 1, 3, 3), 1)):
        ours = framework.nn.init.dirac_(framework.empty(*shape), groups)
        theirs = torch.nn.init.dirac_(torch.empty(*shape), groups)
        assert np.array_equal(_np(ours), _np(theirs))
    for m in (framework, torch):
        with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
            m.nn.init.dirac_(m.empty(2, 2))


def test_module_half_type_to_empty_set_submodule_and_share_memory_match_torch():
    outs = []
    for m in (framework, torch):
        net = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.BatchNorm1d(3))
        row = [[str(v.dtype).split(".")[-1] for v in net.half().state_dict().values()],
               [str(v.dtype).split(".")[-1] for v in net.type(m.float64).state_dict().values()]]
        w = net[0].weight
        net.to_empty(device="cpu")
        row.append((net[0].weight is w, tuple(w.shape), w.requires_grad, type(w).__name__))
        net.set_submodule("1", m.nn.ReLU())
        row.append(repr(net))
        for target, module, strict in (("", m.nn.ReLU(), False), ("0", 3, False), ("5.x", m.nn.ReLU(), False),
                                       ("7", m.nn.ReLU(), True)):
            try:
                net.set_submodule(target, module, strict=strict)
                row.append(None)
            except (ValueError, AttributeError) as e:
                row.append((type(e).__name__, str(e)))
        row.append(net.share_memory() is net)
        outs.append(row)
    assert outs[0] == outs[1]


def test_scheduler_lists_refuse_what_torch_refuses():
    for make in (lambda m, o, o2: m.optim.lr_scheduler.ChainedScheduler([]),
                 lambda m, o, o2: m.optim.lr_scheduler.ChainedScheduler(
                     [m.optim.lr_scheduler.StepLR(o, 2), m.optim.lr_scheduler.StepLR(o2, 2)]),
                 lambda m, o, o2: m.optim.lr_scheduler.ChainedScheduler([m.optim.lr_scheduler.ReduceLROnPlateau(o)]),
                 lambda m, o, o2: m.optim.lr_scheduler.SequentialLR(o, [object()], []),
                 lambda m, o, o2: m.optim.lr_scheduler.SequentialLR(o, [], [])):
        errors = []
        for m in (framework, torch):
            o = m.optim.SGD([m.nn.Parameter(m.ones(1))], lr=0.1)
            o2 = m.optim.SGD([m.nn.Parameter(m.ones(1))], lr=0.1)
            with pytest.raises((TypeError, ValueError)) as e:
                make(m, o, o2)
            errors.append((type(e.value).__name__, str(e.value).split(" has ")[0]))
        assert errors[0] == errors[1]
