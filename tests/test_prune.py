"""nn.utils.prune against torch's: masks (ties included), pruned weights, gradients, errors, state_dict, remove."""
import numpy as np
import pytest

import framework as fw
from framework.nn.utils import prune
from framework.nn.utils._cpu_topk import topk_indices

torch = pytest.importorskip("torch")
tprune = pytest.importorskip("torch.nn.utils.prune")


def _pair(shape=(6, 5), ties=False, seed=0, conv=False):
    """The same module in framework and torch (Linear, or Conv2d with a 4-D weight)."""
    rs = np.random.RandomState(seed)
    if conv:
        f, t = fw.nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)
        shape = (4, 3, 3, 3)
    else:
        f, t = fw.nn.Linear(shape[1], shape[0]), torch.nn.Linear(shape[1], shape[0])
    w = rs.randint(-2, 3, size=shape).astype(np.float32) if ties else rs.randn(*shape).astype(np.float32)
    b = rs.randn(shape[0]).astype(np.float32)
    with fw.no_grad():
        f.weight.copy_(fw.tensor(w))
        f.bias.copy_(fw.tensor(b))
    with torch.no_grad():
        t.weight.copy_(torch.tensor(w))
        t.bias.copy_(torch.tensor(b))
    return f, t


def _same_mask(f, t, name="weight"):
    np.testing.assert_array_equal(getattr(f, name + "_mask").cpu().numpy(), getattr(t, name + "_mask").cpu().numpy())
    np.testing.assert_array_equal(getattr(f, name).detach().cpu().numpy(), getattr(t, name).detach().cpu().numpy())


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("amount", [0, 1, 7, 0.0, 0.3, 0.5, 1.0, 30])
def test_l1_unstructured_mask_as_torch(ties, amount):
    f, t = _pair(ties=ties)
    prune.l1_unstructured(f, "weight", amount)
    tprune.l1_unstructured(t, "weight", amount)
    _same_mask(f, t)


@pytest.mark.parametrize("ties", [False, True])
def test_iterative_pruning_as_torch(ties):
    f, t = _pair((8, 7), ties=ties, seed=3)
    steps = [("l1_unstructured", (0.25,), {}), ("ln_structured", (2,), dict(n=2, dim=0)),
             ("l1_unstructured", (9,), {}), ("ln_structured", (0.5,), dict(n=1, dim=-1)),
             ("ln_structured", (1,), dict(n="fro", dim=0)), ("identity", (), {})]
    for fn, args, kwargs in steps:
        getattr(prune, fn)(f, "weight", *args, **kwargs)
        getattr(tprune, fn)(t, "weight", *args, **kwargs)
        _same_mask(f, t)
    hook = [e.fn for e in f._forward_pre_hooks]
    assert len(hook) == 1 and isinstance(hook[0], prune.PruningContainer) and len(hook[0]) == 6
    assert [type(m).__name__ for m in hook[0]] == [type(m).__name__ for m in list(t._forward_pre_hooks.values())[0]]


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), -float("inf")])
@pytest.mark.parametrize("ties", [False, True])
def test_ln_structured_conv_as_torch(n, ties):
    f, t = _pair(ties=ties, conv=True, seed=1)
    for dim, amount in [(0, 1), (1, 0.34)]:
        prune.ln_structured(f, "weight", amount, n=n, dim=dim)
        tprune.ln_structured(t, "weight", amount, n=n, dim=dim)
        _same_mask(f, t)


def test_topk_tie_breaking_as_torch_kernel():
    rs = np.random.RandomState(0)
    for n in [2, 3, 5, 17, 40, 64, 65, 130, 700]:
        for _ in range(5):
            a = rs.randint(0, 3, size=n).astype(np.float32)
            for k in {1, 2, max(1, n // 64), n // 3 or 1, n // 2, n - 1}:
                for largest in (False, True):
                    want = torch.topk(torch.tensor(a), k, largest=largest).indices.cpu().numpy()
                    assert set(topk_indices(a, k, largest).tolist()) == set(want.tolist()), (n, k, largest)


def test_global_unstructured_as_torch():
    (f1, t1), (f2, t2) = _pair((5, 4), ties=True, seed=4), _pair((3, 6), ties=True, seed=5)
    prune.l1_unstructured(f1, "weight", 3)
    tprune.l1_unstructured(t1, "weight", 3)
    prune.global_unstructured([(f1, "weight"), (f2, "weight")], prune.L1Unstructured, amount=0.4)
    tprune.global_unstructured([(t1, "weight"), (t2, "weight")], tprune.L1Unstructured, amount=0.4)
    _same_mask(f1, t1)
    _same_mask(f2, t2)
    with pytest.raises(TypeError, match="^Only \"unstructured\" PRUNING_TYPE supported for the `pruning_method`"):
        prune.global_unstructured([(f1, "bias")], prune.LnStructured, amount=1, n=1, dim=0)
    with pytest.raises(TypeError, match=r"^global_unstructured\(\): parameters is not an Iterable"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match=r"^global_unstructured\(\): importance_scores must be of type dict"):
        prune.global_unstructured([(f1, "bias")], prune.L1Unstructured, importance_scores=[1], amount=1)


def test_custom_mask_importance_scores_and_prune_method():
    f, t = _pair(ties=True, seed=6)
    m = np.random.RandomState(1).rand(6, 5) > 0.5
    prune.custom_from_mask(f, "weight", fw.tensor(m))
    tprune.custom_from_mask(t, "weight", torch.tensor(m))
    _same_mask(f, t)
    scores = np.random.RandomState(2).rand(6).astype(np.float32)
    prune.l1_unstructured(f, "bias", 2, importance_scores=fw.tensor(scores))
    tprune.l1_unstructured(t, "bias", 2, importance_scores=torch.tensor(scores))
    _same_mask(f, t, "bias")
    x = np.random.RandomState(3).randn(4, 5).astype(np.float32)
    got = prune.L1Unstructured(0.5).prune(fw.tensor(x))
    want = tprune.L1Unstructured(0.5).prune(torch.tensor(x))
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_reparametrization_hook_gradients_state_dict_and_remove():
    f, t = _pair(seed=7)
    prune.l1_unstructured(f, "weight", 0.4)
    tprune.l1_unstructured(t, "weight", 0.4)
    assert [n for n, _ in f.named_parameters()] == [n for n, _ in t.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in f.named_buffers()] == ["weight_mask"]
    assert list(f.state_dict()) == list(t.state_dict())
    assert prune.is_pruned(f) and not isinstance(f.weight, fw.nn.Parameter)
    x = np.random.RandomState(0).randn(3, 5).astype(np.float32)
    fo, to = f(fw.tensor(x)), t(torch.tensor(x))
    np.testing.assert_allclose(fo.detach().cpu().numpy(), to.detach().cpu().numpy(), rtol=1e-6, atol=1e-6)
    fo.pow(2).sum().backward()
    to.pow(2).sum().backward()
    np.testing.assert_allclose(f.weight_orig.grad.cpu().numpy(), t.weight_orig.grad.cpu().numpy(), rtol=1e-5, atol=1e-6)
    assert (f.weight_orig.grad.cpu().numpy()[f.weight_mask.cpu().numpy() == 0] == 0).all()
    # the pre-hook recomputes weight from weight_orig each forward
    with fw.no_grad():
        f.weight_orig.add_(1.0)
    f(fw.tensor(x))
    want = (f.weight_orig * f.weight_mask).detach().cpu().numpy()
    np.testing.assert_array_equal(f.weight.detach().cpu().numpy(), want)
    prune.remove(f, "weight")
    tprune.remove(t, "weight")
    assert list(f.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    assert isinstance(f.weight, fw.nn.Parameter) and not prune.is_pruned(f) and not f._forward_pre_hooks
    assert (f.weight.detach().cpu().numpy()[np.asarray(t.weight.detach().cpu().numpy()) == 0] == 0).all()


def test_errors_word_for_word():
    f, t = _pair()
    for amount in [-1, 1.5, -0.1, "a"]:
        with pytest.raises((TypeError, ValueError)) as want:
            tprune.l1_unstructured(t, "weight", amount)
        with pytest.raises(want.type, match="^" + __import__("re").escape(str(want.value)) + "$"):
            prune.l1_unstructured(f, "weight", amount)
    cases = [(lambda p, m: p.l1_unstructured(m, "weight", 31)),
             (lambda p, m: p.ln_structured(m, "bias", 1, n=1, dim=0)),
             (lambda p, m: p.ln_structured(m, "weight", 1, n=1, dim=2)),
             (lambda p, m: p.random_structured(m, "weight", 7, dim=0)),
             (lambda p, m: p.remove(m, "weight"))]
    for case in cases:
        with pytest.raises(Exception) as want:
            case(tprune, t)
        msg = str(want.value).replace("torch.", "framework.")
        with pytest.raises(want.type) as got:
            case(prune, f)
        first = lambda s: s.split("(")[0]  # noqa: E731  (the module's repr differs after its first words)
        assert first(str(got.value)) == first(msg)
    # a failed first pruning leaves the parameter where it was
    assert [n for n, _ in f.named_parameters()] == [n for n, _ in t.named_parameters()] == ["bias", "weight"]
    assert not prune.is_pruned(f)
    container = prune.PruningContainer()
    container._tensor_name = "weight"
    with pytest.raises(TypeError, match="^<class 'int'> is not a BasePruningMethod subclass$"):
        container.add_pruning_method(3)
    other = prune.Identity()
    other._tensor_name = "bias"
    with pytest.raises(ValueError, match="^Can only add pruning methods acting on the parameter named 'weight' to "
                                         "PruningContainer .*. Found 'bias'$"):
        container.add_pruning_method(other)


def test_random_methods_amounts_and_laws():
    fw.manual_seed(0)
    lin = fw.nn.Linear(20, 30)
    prune.random_unstructured(lin, "weight", 0.25)
    mask = lin.weight_mask.cpu().numpy()
    assert mask.sum() == 600 - 150 and set(np.unique(mask)) <= {0.0, 1.0}
    prune.random_unstructured(lin, "weight", 100)  # drawn from the 450 left: 100 more
    assert lin.weight_mask.cpu().numpy().sum() == 350 and (lin.weight_mask.cpu().numpy() <= mask).all()
    prune.random_structured(lin, "weight", 0.5, dim=0)  # 15 rows, all among the ones left
    rows = lin.weight_mask.cpu().numpy().sum(1) != 0
    assert rows.sum() == 15
    # each entry is pruned with the same chance: over many draws the counts are even
    counts = np.zeros(50)
    for _ in range(400):
        m = prune.RandomUnstructured(10).compute_mask(fw.zeros(50), fw.ones(50)).cpu().numpy()
        counts += 1 - m
    assert counts.sum() == 4000 and counts.min() > 40 and counts.max() < 125


def test_short_training_loop_keeps_pruned_weights_zero():
    fw.manual_seed(0)
    model = fw.nn.Sequential(fw.nn.Linear(4, 16), fw.nn.ReLU(), fw.nn.Linear(16, 1))
    prune.global_unstructured([(model[0], "weight"), (model[2], "weight")], prune.L1Unstructured, amount=0.5)
    opt = fw.optim.SGD(model.parameters(), lr=0.1)
    x, y = fw.randn(32, 4), fw.randn(32, 1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = fw.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model(x)
    assert losses[-1] < losses[0]
    for m in (model[0], model[2]):
        assert (m.weight.detach().cpu().numpy()[m.weight_mask.cpu().numpy() == 0] == 0).all()
    assert sum(int((m.weight_mask.cpu().numpy() == 0).sum()) for m in (model[0], model[2])) == 40
