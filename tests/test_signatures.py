"""Signatures as PyTorch's: every parameter torch's public API takes is taken by ours, under the same name and kind.

The walk compares ``inspect.signature`` of every public ``nn`` Module both libraries have (``__init__`` and
``forward``), every ``nn.functional`` function, every optimizer and LR scheduler, and every top-level function
(``framework.X`` against ``torch.X``). For each parameter of torch's: ours must have it by name; a parameter torch
takes by position must sit at the same position in ours (so positional calls bind alike); one torch takes by keyword
must be a keyword in ours. A parameter ours keeps but deliberately does not implement raises NotImplementedError
naming it (NOT_IMPLEMENTED below calls each one). torch builtins whose signature ``inspect`` cannot read (C functions
such as torch.add) are skipped, and counted.

KNOWN_GAPS lists the gaps left; it may only shrink: the test fails on a gap not listed and on a listed gap that
was fixed (remove it from the list then).
"""
from __future__ import annotations

import inspect
import io
import types
import warnings

import numpy as np

import pytest

import framework

torch = pytest.importorskip("torch")

_P = inspect.Parameter
_VARIADIC = (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)

# Each entry "<label>(<parameter>): <what differs>", as gaps() writes them. Only shrinks.
KNOWN_GAPS: set[str] = set()


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (ValueError, TypeError):
        return None


def gaps(label: str, ours, theirs) -> list[str] | None:
    """The parameters of ``theirs`` that ``ours`` does not take alike; None when torch's signature is unreadable."""
    theirs_sig = _signature(theirs)
    if theirs_sig is None:
        return None
    ours_sig = _signature(ours)
    if ours_sig is None:
        return [f"{label}(*): our signature is unreadable"]
    ours_params = list(ours_sig.parameters.values())
    ours_by_name = {p.name: p for p in ours_params}
    ours_positional = [p.name for p in ours_params if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
    found = []
    position = 0
    for p in theirs_sig.parameters.values():
        if p.kind in _VARIADIC:
            continue
        q = ours_by_name.get(p.name)
        if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
            at = ours_positional[position] if position < len(ours_positional) else None
            position += 1
            if q is None:
                found.append(f"{label}({p.name}): missing" + (f" (position taken by {at!r})" if at else ""))
            elif at != p.name:
                where = ours_positional.index(p.name) if p.name in ours_positional else "keyword-only"
                found.append(f"{label}({p.name}): at position {where} in ours, {position - 1} in torch")
            elif p.kind == _P.POSITIONAL_OR_KEYWORD and q.kind == _P.POSITIONAL_ONLY:
                found.append(f"{label}({p.name}): positional-only in ours, a keyword too in torch")
        elif q is None:
            found.append(f"{label}({p.name}): missing")
        elif q.kind not in (_P.KEYWORD_ONLY, _P.POSITIONAL_OR_KEYWORD):
            found.append(f"{label}({p.name}): not a keyword in ours")
    return found


def _public_classes(module, base):
    return {n: c for n, c in vars(module).items() if not n.startswith("_") and isinstance(c, type)
            and issubclass(c, base)}


def module_pairs():
    ours = framework.nn
    out = []
    for name, cls in sorted(_public_classes(torch.nn, torch.nn.Module).items()):
        mine = getattr(ours, name, None)
        if isinstance(mine, type):
            out.append((f"nn.{name}.__init__", mine.__init__, cls.__init__))
            out.append((f"nn.{name}.forward", mine.forward, cls.forward))
    return out


def functional_pairs():
    out = []
    for name, fn in sorted(vars(torch.nn.functional).items()):
        mine = getattr(framework.nn.functional, name, None)
        if not name.startswith("_") and callable(fn) and not isinstance(fn, type) and callable(mine):
            out.append((f"F.{name}", mine, fn))
    return out


def optimizer_pairs():
    out = []
    for name, cls in sorted(_public_classes(torch.optim, torch.optim.Optimizer).items()):
        mine = getattr(framework.optim, name, None)
        if cls is not torch.optim.Optimizer and isinstance(mine, type):
            out.append((f"optim.{name}", mine.__init__, cls.__init__))
    for name, cls in sorted(_public_classes(torch.optim.lr_scheduler, torch.optim.lr_scheduler.LRScheduler).items()):
        mine = getattr(framework.optim.lr_scheduler, name, None)
        if isinstance(mine, type):
            out.append((f"lr_scheduler.{name}", mine.__init__, cls.__init__))
    return out


def toplevel_pairs():
    out = []
    for name in sorted(dir(torch)):
        if name.startswith("_") or not hasattr(framework, name):
            continue
        fn, mine = getattr(torch, name), getattr(framework, name)
        if callable(fn) and not isinstance(fn, type) and not inspect.ismodule(fn) and callable(mine) \
                and not isinstance(mine, type):
            out.append((f"torch.{name}", mine, fn))
    return out


AREAS = {"nn modules": module_pairs, "functional": functional_pairs, "optimizers and schedulers": optimizer_pairs,
         "top level": toplevel_pairs}


def area_gaps(area: str) -> tuple[set[str], int, int]:
    """(gaps, pairs compared, pairs skipped because torch's signature is unreadable)."""
    found, compared, skipped = set(), 0, 0
    for label, ours, theirs in AREAS[area]():
        result = gaps(label, ours, theirs)
        if result is None:
            skipped += 1
        else:
            compared += 1
            found.update(result)
    return found, compared, skipped


def _area_of(gap: str) -> str:
    head = gap.split(".")[0].split("(")[0]
    return {"nn": "nn modules", "F": "functional", "optim": "optimizers and schedulers",
            "lr_scheduler": "optimizers and schedulers"}.get(head, "top level")


@pytest.mark.parametrize("area", list(AREAS))
def test_signatures_take_torchs_parameters(area):
    found, compared, skipped = area_gaps(area)
    assert compared > 0
    known = {g for g in KNOWN_GAPS if _area_of(g) == area}
    new = sorted(found - known)
    fixed = sorted(known - found)
    assert not new, f"{len(new)} new signature gaps:\n" + "\n".join(new)
    assert not fixed, "fixed, remove from KNOWN_GAPS:\n" + "\n".join(fixed)


def test_walk_reaches_the_api():
    """The walk is not vacuous: it compares many pairs in each area (torch builtins skipped are counted apart)."""
    counts = {area: area_gaps(area)[1:] for area in AREAS}
    assert counts["nn modules"][0] > 100 and counts["functional"][0] > 50
    assert counts["optimizers and schedulers"][0] > 15 and counts["top level"][0] > 30


def test_gaps_detects_a_renamed_a_moved_and_a_missing_parameter():
    def theirs(input, dim=None, *, keepdim=False):
        pass

    def renamed(x, dim=None, *, keepdim=False):
        pass

    def moved(dim, input, *, keepdim=False):
        pass

    def missing(input, dim=None):
        pass

    def same(input, dim=None, keepdim=False, extra=1):
        pass

    assert gaps("f", renamed, theirs)[0].startswith("f(input): missing")
    assert [g.split(":")[0] for g in gaps("f", moved, theirs)] == ["f(input)", "f(dim)"]
    assert gaps("f", missing, theirs) == ["f(keepdim): missing"]
    assert gaps("f", same, theirs) == []
    assert gaps("f", same, torch.add) is None  # a builtin: unreadable, skipped


# ---- parameters ours takes and deliberately does not implement: each raises NotImplementedError naming itself ---

def _t(*shape):
    return framework.ones(*shape)


NOT_IMPLEMENTED = {
    "nn.Embedding.__init__(max_norm)": lambda: framework.nn.Embedding(4, 2, max_norm=1.0),
    "nn.Embedding.__init__(scale_grad_by_freq)": lambda: framework.nn.Embedding(4, 2, scale_grad_by_freq=True),
    "nn.Embedding.__init__(sparse)": lambda: framework.nn.Embedding(4, 2, sparse=True),
    "F.embedding(max_norm)": lambda: framework.nn.functional.embedding(framework.tensor([0]), _t(2, 2), max_norm=1.0),
    "F.embedding(scale_grad_by_freq)": lambda: framework.nn.functional.embedding(framework.tensor([0]), _t(2, 2),
                                                                                 scale_grad_by_freq=True),
    "F.embedding(sparse)": lambda: framework.nn.functional.embedding(framework.tensor([0]), _t(2, 2), sparse=True),
    "F.normalize(out)": lambda: framework.nn.functional.normalize(_t(2, 2), out=_t(2, 2)),
    "torch.norm(out)": lambda: framework.norm(_t(3), out=_t()),
    "torch.tensordot(out)": lambda: framework.tensordot(_t(2, 2), _t(2, 2), out=_t()),
    "torch.chain_matmul(out)": lambda: framework.chain_matmul(_t(2, 2), _t(2, 2), out=_t(2, 2)),
    "torch.save(pickle_protocol)": lambda: framework.save({}, io.BytesIO(), pickle_protocol=4),
    "torch.save(pickle_module)": lambda: framework.save({}, io.BytesIO(), pickle_module=types.SimpleNamespace()),
    "torch.save(_use_new_zipfile_serialization)": lambda: framework.save({}, io.BytesIO(),
                                                                        _use_new_zipfile_serialization=False),
    "torch.save(_disable_byteorder_record)": lambda: framework.save({}, io.BytesIO(), _disable_byteorder_record=True),
}


@pytest.mark.parametrize("label", sorted(NOT_IMPLEMENTED))
def test_unimplemented_parameter_raises_naming_it(label):
    parameter = label.split("(")[1].rstrip(")")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match=parameter):
            NOT_IMPLEMENTED[label]()


# ---- what the gaps' fixes implement, against torch ------------------------------------------------------------

def _pair(shape, seed=0, low=-1.0, high=1.0):
    a = np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)
    return framework.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True), (False, True)])
@pytest.mark.parametrize("loss", ["MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss"])
def test_legacy_size_average_and_reduce_as_torch(loss, size_average, reduce):
    (x, tx), (y, ty) = _pair((4, 3), 1, 0.05, 0.95), _pair((4, 3), 2, 0.05, 0.95)
    if loss in ("NLLLoss", "CrossEntropyLoss"):
        y, ty = framework.tensor([0, 2, 1, 2]), torch.tensor([0, 2, 1, 2])
    with pytest.warns(UserWarning) as ours_w:
        ours = getattr(framework.nn, loss)(size_average=size_average, reduce=reduce)
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        theirs = getattr(torch.nn, loss)(size_average=size_average, reduce=reduce)
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]
    assert ours.reduction == theirs.reduction
    np.testing.assert_allclose(ours(x, y).detach().cpu().numpy(), theirs(tx, ty).cpu().numpy(), rtol=1e-6)


def test_legacy_arguments_bind_by_position_as_torch():
    """torch's positional order puts size_average before ignore_index: CrossEntropyLoss(None, None, 1)."""
    ours, theirs = framework.nn.CrossEntropyLoss(None, None, 1), torch.nn.CrossEntropyLoss(None, None, 1)
    assert ours.ignore_index == theirs.ignore_index == 1
    (x, tx) = _pair((3, 4), 3)
    args = (framework.tensor([1, 0, 1]),), (torch.tensor([1, 0, 1]),)
    np.testing.assert_allclose(ours(x, *args[0]).item(), theirs(tx, *args[1]).item(), rtol=1e-6)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        value = framework.nn.functional.nll_loss(x.log_softmax(1), *args[0], None, False)
    with pytest.warns(UserWarning):
        expected = torch.nn.functional.nll_loss(tx.log_softmax(1), *args[1], None, False)
    assert value.item() == pytest.approx(expected.item(), rel=1e-6)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_weight_as_torch(name, reduction):
    (x, tx), (y, ty), (w, tw) = _pair((3, 4), 4), _pair((3, 4), 5), _pair((3, 4), 6, 0.1, 2.0)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    ours = getattr(framework.nn.functional, name)(x, y, reduction=reduction, weight=w)
    theirs = getattr(torch.nn.functional, name)(tx, ty, reduction=reduction, weight=tw)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().cpu().numpy(), rtol=1e-6)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.cpu().numpy(), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(framework.nn.functional, name)(x, y, weight=w[0])


@pytest.mark.parametrize("padding_idx", [-1, -4, 3, 0])
def test_embedding_padding_idx_normalised_as_torch(padding_idx):
    ours, theirs = framework.nn.Embedding(4, 2, padding_idx), torch.nn.Embedding(4, 2, padding_idx)
    assert ours.padding_idx == theirs.padding_idx
    assert (ours.weight[ours.padding_idx] == 0).all()
    ours.weight.data = framework.tensor(theirs.weight.detach().cpu().numpy())
    idx = [0, 3, 2, 3, 1]
    ours(framework.tensor(idx)).sum().backward()
    theirs(torch.tensor(idx)).sum().backward()
    np.testing.assert_array_equal(ours.weight.grad.cpu().numpy(), theirs.weight.grad.cpu().numpy())


@pytest.mark.parametrize("padding_idx", [4, -5])
def test_embedding_padding_idx_out_of_range(padding_idx):
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        torch.nn.Embedding(4, 2, padding_idx)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        framework.nn.Embedding(4, 2, padding_idx)


def test_embedding_given_weight_freeze_and_from_pretrained():
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    ours = framework.nn.Embedding(4, 2, padding_idx=1, _weight=framework.tensor(table), _freeze=True)
    theirs = torch.nn.Embedding(4, 2, padding_idx=1, _weight=torch.tensor(table), _freeze=True)
    np.testing.assert_array_equal(ours.weight.detach().cpu().numpy(), theirs.weight.detach().cpu().numpy())  # row 1 kept
    assert ours.weight.requires_grad is theirs.weight.requires_grad is False
    with pytest.raises(AssertionError, match="Shape of weight does not match num_embeddings and embedding_dim"):
        framework.nn.Embedding(3, 2, _weight=framework.tensor(table))
    for freeze in (True, False):
        ours = framework.nn.Embedding.from_pretrained(framework.tensor(table), freeze=freeze, padding_idx=-1)
        theirs = torch.nn.Embedding.from_pretrained(torch.tensor(table), freeze=freeze, padding_idx=-1)
        assert ours.weight.requires_grad == theirs.weight.requires_grad and ours.padding_idx == theirs.padding_idx
        np.testing.assert_array_equal(ours(framework.tensor([3, 0])).detach().cpu().numpy(),
                                      theirs(torch.tensor([3, 0])).detach().cpu().numpy())


@pytest.mark.parametrize("output_size", [[9, 10], [2, 3, 10, 9], [10, 10]])
def test_conv_transpose2d_output_size_as_torch(output_size):
    ours, theirs = framework.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), torch.nn.ConvTranspose2d(3, 2, 3, 2, 1)
    theirs.load_state_dict({k: torch.tensor(v.detach().cpu().numpy()) for k, v in ours.state_dict().items()})
    x, tx = _pair((2, 3, 5, 5), 7)
    got, want = ours(x, output_size=output_size), theirs(tx, output_size=output_size)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_conv_transpose2d_output_size_out_of_range_as_torch():
    ours, theirs = framework.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), torch.nn.ConvTranspose2d(3, 2, 3, 2, 1)
    x, tx = _pair((1, 3, 5, 5), 8)
    with pytest.raises(ValueError) as want:
        theirs(tx, output_size=[12, 9])
    with pytest.raises(ValueError) as got:
        ours(x, output_size=[12, 9])
    assert str(got.value).split(" (for")[0] == str(want.value).split(" (for")[0]


def test_hardtanh_old_keyword_names_as_torch():
    with pytest.warns(FutureWarning) as ours_w:
        ours = framework.nn.Hardtanh(min_value=-0.5, max_value=0.25)
    assert (ours.min_val, ours.max_val) == (-0.5, 0.25)
    x, tx = _pair((6,), 9)
    with pytest.warns(FutureWarning) as theirs_w:
        theirs = torch.nn.Hardtanh(min_value=-0.5, max_value=0.25)
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]
    assert "keyword argument `min_value` is deprecated and renamed to `min_val`" in str(ours_w[0].message)
    np.testing.assert_array_equal(ours(x).cpu().numpy(), theirs(tx).cpu().numpy())


def test_group_norm_bias_is_keyword_only_after_device_and_dtype():
    ours = framework.nn.GroupNorm(2, 4, 1e-5, True, None, framework.float64, bias=False)
    theirs = torch.nn.GroupNorm(2, 4, 1e-5, True, None, torch.float64, bias=False)
    assert ours.weight.dtype == framework.float64 and (ours.bias is None) == (theirs.bias is None)


def test_toplevel_keywords_by_torchs_names():
    t = framework.arange(6)
    assert [p.tolist() for p in framework.split(tensor=t, split_size_or_sections=[2, 4])] == [[0, 1], [2, 3, 4, 5]]
    assert framework.is_tensor(obj=t) and not framework.is_tensor(obj=[1])
    state = framework.get_rng_state()
    first = framework.rand(3)
    framework.set_rng_state(new_state=state)
    assert framework.equal(framework.rand(3), first)


def test_compile_disable_and_recompile_limit():
    def step(x):
        return x * 2

    assert framework.compile(step, disable=True) is step
    assert framework.compile(disable=True)(step) is step
    compiled = framework.compile(step, recompile_limit=1, mode="max-autotune", dynamic=False)
    assert compiled(framework.ones(2)).tolist() == [2.0, 2.0]
    assert str(inspect.signature(framework.compile)) == str(inspect.signature(framework.compile.compile))


@pytest.mark.parametrize("name", ["set_default_tensor_type", "set_deterministic_debug_mode",
                                  "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled"])
def test_process_switches_take_torchs_parameters(name):
    """torch's Python-defined top-level switches: the same parameter names, kinds and defaults."""
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(getattr(framework, name)) == params(getattr(torch, name))


@pytest.mark.parametrize("name", ["dim_order", "share_memory_", "is_shared"])
def test_tensor_query_methods_take_torchs_parameters(name):
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(getattr(framework.Tensor, name)) == params(getattr(torch.Tensor, name))
