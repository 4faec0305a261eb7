"""``grad_fn._saved_<name>`` / ``_raw_saved_<name>``: torch's names for what a node saved, with torch's values,
identities, errors and per-tensor hooks.  The sweep walks every op-table graph beside torch's (all inputs requiring
grad, then only the first) and compares, at each node, every tensor torch keeps with ours of the same name."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework
from framework.autograd.function import BackwardNode
from op_table import OPS
from saved_names_gen import build, graph_pairs, torch_tensor_saves

torch = pytest.importorskip("torch")

# rows whose nodes keep something else than torch's (another formula's intermediates), by row: what differs
_KEEPS_OTHER = "torch's node keeps {} (ours computes its backward from other saved values, so it has no such name)"
DIFFERENT_SAVES = {
    "max_pool2d": _KEEPS_OTHER.format("the argmax indices as result1"),
    "max_pool1d": _KEEPS_OTHER.format("the argmax indices as result1"),
    "max_pool1d_pad": _KEEPS_OTHER.format("the argmax indices as result1"),
    "logsigmoid": _KEEPS_OTHER.format("the buffer its CPU kernel fills"),
    "multilabel_soft_margin_loss": _KEEPS_OTHER.format("log_sigmoid's buffer"),
    "group_norm": _KEEPS_OTHER.format("the mean and rstd (result1, result2)"),
    "group_norm_plain": _KEEPS_OTHER.format("the mean and rstd (result1, result2)"),
    "linalg_det": _KEEPS_OTHER.format("its LU factorization (LU, pivots)"),
    "det_nonsym": _KEEPS_OTHER.format("its LU factorization (LU, pivots)"),
    "linalg_slogdet": _KEEPS_OTHER.format("its LU factorization (LU, pivots) and sign"),
    "logdet": _KEEPS_OTHER.format("its LU factorization (LU, pivots) and sign"),
    "linalg_solve": _KEEPS_OTHER.format("its LU factorization (LU, pivots)"),
    "linalg_solve_vec": _KEEPS_OTHER.format("its LU factorization (LU, pivots)"),
    "linalg_eigvalsh": _KEEPS_OTHER.format("the eigenvectors"),
    "rrelu_eval": _KEEPS_OTHER.format("a noise tensor"),
    "multi_margin_loss": _KEEPS_OTHER.format("target and weight as tensors"),
    "multilabel_margin_loss": _KEEPS_OTHER.format("target and is_target"),
    "ctc_loss": _KEEPS_OTHER.format("its forward variables (result0, result1)"),
    "ldexp": "torch's LdexpBackward0 keeps result also when only self needs a gradient; ours only when other does",
    "linalg_svdvals": "U and Vh are unique only up to the signs of their columns: ours (NumPy's LAPACK driver) differ "
                      "from torch's in sign",
    "quantile": "the same nodes with other values: ours sorts and picks the interpolation's neighbours in another "
                "layout than torch's",
    "nanquantile": "the same nodes with other values: ours sorts and picks the interpolation's neighbours in another "
                   "layout than torch's",
    "trapezoid_x": "ours multiplies the two operands in the other order (self and other swapped)",
}


def _mismatches(case) -> list[str]:
    rng = np.random.default_rng(0)
    lo, hi = case.domain
    arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]
    problems = []
    for which in (range(len(arrays)), (0,)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = build(case, torch, arrays, which)
        except Exception:  # noqa: BLE001 - the row needs its inputs requiring grad otherwise: not this variant
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = build(case, framework, arrays, which)
        for root_a, root_b in zip(ours, theirs):
            for a, b in graph_pairs(root_a, root_b):
                if not isinstance(a, BackwardNode):
                    continue
                for name, value in torch_tensor_saves(b).items():
                    where = f"{a.name()}._saved_{name} ({len(which)} requiring grad)"
                    if f"_saved_{name}" not in dir(a):
                        problems.append(f"{where}: missing")
                        continue
                    mine = getattr(a, f"_saved_{name}")
                    if value is None or mine is None:
                        if (value is None) != (mine is None):
                            problems.append(f"{where}: torch {value is not None}, ours {mine is not None}")
                        continue
                    v = value.detach().numpy()
                    m = mine.detach().cpu().numpy()
                    if m.shape != v.shape or m.dtype != v.dtype or not np.allclose(m, v, equal_nan=True):
                        problems.append(f"{where}: values differ")
    return problems


@pytest.mark.parametrize("case", OPS, ids=[c.name for c in OPS])
def test_saved_attributes_match_torch(case):
    problems = _mismatches(case)
    if case.name in DIFFERENT_SAVES:
        assert problems, f"{case.name} now matches torch: drop it from DIFFERENT_SAVES"
        pytest.xfail(DIFFERENT_SAVES[case.name])
    assert problems == []


# ---- the attributes' rules, each against torch ----------------------------------------------------------------

from scenario import outcome  # noqa: E402


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def test_an_input_comes_back_as_itself_and_an_output_as_a_new_tensor_of_the_node():
    """The autograd mechanics note's example: pow saves x itself, exp saves its result (a new tensor object)."""
    def run(m):
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x.pow(2)
        z = x.exp()
        r = z.grad_fn._saved_result
        return (x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, z.equal(r), z is r,
                r.grad_fn is z.grad_fn, r.requires_grad)

    assert _same(run) == ("ok", (True, True, True, False, True, True))


@pytest.mark.parametrize("op", ["pow", "exp", "mul", "addmm", "sigmoid", "div"])
def test_dir_lists_torchs_saved_tensor_names(op):
    def names(m):
        a = m.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        b = m.tensor([[1.5, 2.0], [-0.5, 1.0]], requires_grad=True)
        y = {"pow": lambda: a.pow(2), "exp": lambda: a.exp(), "mul": lambda: a * b, "div": lambda: a / b,
             "addmm": lambda: m.addmm(b, a, b), "sigmoid": lambda: a.sigmoid()}[op]()
        return sorted(n for n in dir(y.grad_fn) if n.startswith("_raw_saved_"))

    assert names(framework) == names(torch) != []


def test_a_value_not_kept_is_none_and_a_python_number_is_a_wrapped_tensor():
    def run(m):
        a = m.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        b = m.tensor([[1.5, 2.0], [-0.5, 1.0]])
        y = m.mm(a, b)  # only a needs a gradient: b is kept, a is not
        z, w = a * 2, a * 2.5
        return (y.grad_fn._saved_self, y.grad_fn._saved_mat2.tolist(), z.grad_fn._saved_other.item(),
                str(z.grad_fn._saved_other.dtype).split(".")[1], str(w.grad_fn._saved_other.dtype).split(".")[1],
                z.grad_fn._saved_other.dim())

    assert _same(run) == ("ok", (None, [[1.5, 2.0], [-0.5, 1.0]], 2, "int64", "float64", 0))


def test_reading_a_freed_value_raises_torchs_error():
    def run(m):
        x = m.tensor([0.5, -1.0], requires_grad=True)
        y = x.sin()
        y.sum().backward()
        return y.grad_fn._saved_self

    assert _same(run)[:2] == ("error", "RuntimeError")


def test_reading_a_value_changed_in_place_raises_torchs_version_error():
    def run(m):
        x = m.tensor([0.5, -1.0], requires_grad=True)
        b = x * 1
        y = b.sin()
        b.add_(1)
        return y.grad_fn._saved_self

    out = _same(run)
    assert out[0] == "error" and "modified by an inplace operation" in out[2]


def test_register_hooks_packs_now_and_backward_reads_what_unpack_returns():
    def run(m):
        calls = []
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x.pow(2)

        def pack(t):
            calls.append(("pack", t is x, t.requires_grad, t.tolist()))
            return "packed"

        def unpack(p):
            calls.append(("unpack", p))
            return m.ones(3)

        y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
        after_register = list(calls)
        seen = y.grad_fn._saved_self  # unpack runs on each read; the result carries x's history
        y.sum().backward()  # the gradient 2 * x is computed from what unpack returned
        return after_register, seen.tolist(), seen.requires_grad, calls[-1], x.grad.tolist()

    assert _same(run) == ("ok", ([("pack", False, False, [0.5, -1.0, 2.0])], [1.0, 1.0, 1.0], True,
                                 ("unpack", "packed"), [2.0, 2.0, 2.0]))


def test_register_hooks_on_an_output_and_in_place_changes_after_it():
    def run(m):
        x = m.tensor([0.5, -1.0], requires_grad=True)
        b = x * 1
        y = b.exp()
        got = []
        y.grad_fn._raw_saved_result.register_hooks(lambda t: (got.append(t.grad_fn is None), t.clone())[1],
                                                   lambda p: p)
        y.add_(1)  # the hooks own the value now: no version check, as with saved_tensors_hooks
        y.sum().backward()
        return got, [round(v, 6) for v in x.grad.tolist()]

    assert _same(run)[0] == "ok"


@pytest.mark.parametrize("case", ["twice", "none", "freed", "not_callable", "pack_modifies"])
def test_register_hooks_refusals_match_torch(case):
    def run(m):
        a = m.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        y = m.mm(a, m.ones(2, 2))
        raw = y.grad_fn._raw_saved_self if case == "none" else y.grad_fn._raw_saved_mat2
        if case == "twice":
            raw.register_hooks(lambda t: t, lambda p: p)
        if case == "freed":
            y.sum().backward()
        if case == "not_callable":
            raw.register_hooks(1, lambda p: p)
        if case == "pack_modifies":
            raw.register_hooks(lambda t: t.mul_(2), lambda p: p)
        raw.register_hooks(lambda t: t, lambda p: p)

    assert _same(run)[0] == "error"


def test_a_missing_saved_name_is_an_attribute_error():
    x = framework.tensor([1.0], requires_grad=True)
    with pytest.raises(AttributeError, match="_saved_other"):
        x.sin().grad_fn._saved_other
