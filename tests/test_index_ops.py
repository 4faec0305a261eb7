"""Index writes and reductions (index_add/copy/fill/reduce, put, masked_scatter, scatter_reduce, scatter(reduce=),
diagonal/select/slice_scatter) and their in-place twins: against torch (values, gradients, grad_fn names, version
counters, CopySlices on views, the saved index changed in place, errors), plus float64 gradchecks without torch.

The op table (tests/op_table.py) has a row for each too: those drive test_ops_gradcheck/test_ops_vs_torch and the
fuzzer; here are the semantics a row cannot express.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import framework
from framework.testing import gradcheck, gradgradcheck


def _torch():
    return pytest.importorskip("torch")


def _first_sentence(e: BaseException) -> str:
    line = str(e).split("\n")[0].replace("torch.", "framework.")
    cut = line.find("instead.")
    return line[:cut + len("instead.")] if cut >= 0 else re.split(r"(?<=\.)\s", line)[0]


def _outcome(scenario, m):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ran", scenario(m)
    except Exception as e:  # noqa: BLE001 - we compare whatever was raised
        return type(e).__name__, _first_sentence(e)


# ---- values, gradients and grad_fn names, out of place and in place (on a tensor, on a view) ----------------

R = np.random.default_rng(0)
X = np.round(R.standard_normal((5, 3)) * 2) / 2  # halves: ties for amax/amin, exact zeros for prod
S = np.round(R.standard_normal((3, 3)) * 2) / 2
S[0, 1] = S[1, 1] = 0.0  # two zeros folded into the same position (prod), and one alone
J = [[0, 1, 1], [2, 0, 3], [0, 1, 1]]


def _index_add(m, x, s):
    return x.index_add(0, m.tensor([0, 2, 2]), s, alpha=2.0)


CASES = {
    "index_add": _index_add,
    "index_add_": lambda m, x, s: (x * 1).index_add_(1, m.tensor([2, 0, 2]), s.repeat(2, 1)[:5]),
    "index_add_view": lambda m, x, s: (x * 1)[1:].index_add_(0, m.tensor([3, 3, 0]), s),
    "index_copy": lambda m, x, s: x.index_copy(0, m.tensor([4, 0, 1]), s),
    "index_copy_view": lambda m, x, s: (x * 1)[:, 1:].index_copy_(1, m.tensor([1]), s[:, :1].repeat(5, 1)[:5]),
    "index_fill": lambda m, x, s: x.index_fill(0, m.tensor([1, -1]), 3.0),
    "index_fill_tensor": lambda m, x, s: x.index_fill(1, m.tensor([0, 0, 2]), s.sum()),
    "index_fill_view": lambda m, x, s: (x * 1).t().index_fill_(0, m.tensor([2]), s[0, 0]),
    "put": lambda m, x, s: x.put(m.tensor([0, 14, -2]), s[0]),
    "put_accumulate": lambda m, x, s: x.put(m.tensor([[0, 0, 1], [0, 0, 1], [5, 5, 5]]), s, accumulate=True),
    "put_": lambda m, x, s: (x * 1).put_(m.tensor([3, 1, 3]), s[1], accumulate=True),
    "masked_scatter": lambda m, x, s: x.masked_scatter(x > 0, s.reshape(-1).repeat(2)),
    "masked_scatter_view": lambda m, x, s: (x * 1)[2].masked_scatter_(m.tensor([True, False, True]), s[0]),
    "diagonal_scatter": lambda m, x, s: m.diagonal_scatter(x, s[0], -1),
    "select_scatter": lambda m, x, s: m.select_scatter(x, s[2], 0, -2),
    "slice_scatter": lambda m, x, s: m.slice_scatter(x, s[:2], 0, 1, 5, 2),
    "scatter_": lambda m, x, s: (x * 1).scatter_(0, m.tensor(J), s),
    "scatter_value_view": lambda m, x, s: (x * 1)[1:].scatter_(0, m.tensor(J), 2.5),
    "scatter_add_view": lambda m, x, s: (x * 1)[:, :].scatter_add_(0, m.tensor(J), s),
    "tril_": lambda m, x, s: (x * 1).tril_(-1),
    "triu_view": lambda m, x, s: (x * 1)[1:].triu_(),
}
for _red in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        CASES[f"scatter_reduce_{_red}_{_inc}"] = (
            lambda red, inc: lambda m, x, s: x.scatter_reduce(0, m.tensor(J), s, red, include_self=inc))(_red, _inc)
        CASES[f"scatter_reduce__{_red}_{_inc}_view"] = (
            lambda red, inc: lambda m, x, s: (x * 1)[:, :].scatter_reduce_(0, m.tensor(J), s, red,
                                                                          include_self=inc))(_red, _inc)
        if _red != "sum":
            CASES[f"index_reduce_{_red}_{_inc}"] = (
                lambda red, inc: lambda m, x, s: x.index_reduce(0, m.tensor([0, 2, 0]), s, red,
                                                               include_self=inc))(_red, _inc)
            CASES[f"index_reduce__{_red}_{_inc}"] = (
                lambda red, inc: lambda m, x, s: (x * 1).index_reduce_(0, m.tensor([1, 1, 4]), s, red,
                                                                       include_self=inc))(_red, _inc)


def _run(m, fn):
    x = m.tensor(X, requires_grad=True)
    s = m.tensor(S, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(m, x, s)
    name, version = y.grad_fn.name(), y._version
    base = y._base
    base_name = _name(base.grad_fn) if base is not None else None
    y.backward(m.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)) - 4.0))
    return y.detach().cpu().numpy(), name, version, base_name, x.grad.cpu().numpy(), _numpy(s.grad)


def _name(node) -> str:
    """A node's name; torch's C++ CopySlices reads torch::autograd::CopySlices (ours: CopySlices)."""
    return node.name().replace("torch::autograd::", "")


def _numpy(grad):
    return None if grad is None else grad.cpu().numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    torch = _torch()
    ours, theirs = _run(framework, CASES[case]), _run(torch, CASES[case])
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert ours[1:4] == theirs[1:4]  # grad_fn name, _version, the base's CopySlices for a view
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-12, atol=1e-12)
    assert (ours[5] is None) == (theirs[5] is None)
    if ours[5] is not None:
        np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-12, atol=1e-12)


def test_in_place_on_a_view_is_copy_slices_and_bumps_the_shared_counter():
    torch = _torch()

    def run(m):
        base = m.zeros(4, 3, requires_grad=True) * 1
        view = base[1:]
        view.index_add_(0, m.tensor([0, 0]), m.ones(2, 3))
        return _name(base.grad_fn), base._version, view._version, view.grad_fn.name()

    assert run(framework) == run(torch)
    assert run(framework)[0] == "CopySlices"


def test_integer_mean_floors_as_torch():
    torch = _torch()
    for m in (framework, torch):
        a = m.tensor([0, 5, -3]).scatter_reduce(0, m.tensor([0, 0, 2, 2]), m.tensor([1, 2, 4, 4]), "mean")
        b = m.tensor([0, 5, -3]).index_reduce(0, m.tensor([2, 2]), m.tensor([4, 5]), "mean")
        assert a.tolist() == [1, 5, 1] and b.tolist() == [0, 5, 2]


# ---- the saved index (or mask) changed in place before backward --------------------------------------------

def _changed(forward, src_grad=True):
    def scenario(m):
        x = m.randn(5, 3, requires_grad=True)
        s = m.randn(3, 3, requires_grad=src_grad)
        i = m.tensor([0, 2, 2])
        y = forward(m, x, s, i)
        i.add_(1)
        y.sum().backward()

    return scenario


SAVED = [
    _changed(lambda m, x, s, i: x.index_add(0, i, s)),
    _changed(lambda m, x, s, i: x.index_add(0, i, s), src_grad=False),  # torch keeps no index then: no error
    _changed(lambda m, x, s, i: x.index_copy(0, i, s), src_grad=False),
    _changed(lambda m, x, s, i: x.index_fill(0, i, 2.0)),
    _changed(lambda m, x, s, i: x.index_reduce(0, i, s, "amax")),
    _changed(lambda m, x, s, i: (x * 1).index_reduce_(0, i, s, "prod")),
    _changed(lambda m, x, s, i: x.put(i, s[0])),
    _changed(lambda m, x, s, i: x.scatter_reduce(0, i[:, None].expand(3, 3), s, "sum"), src_grad=False),
    _changed(lambda m, x, s, i: x.scatter_reduce(0, i[:, None].expand(3, 3), s, "mean")),
    _changed(lambda m, x, s, i: (x * 1).scatter_(0, i[:, None].expand(3, 3), s)),
]


def _mask_changed(m):
    x, mask = m.randn(2, 3, requires_grad=True), m.tensor([True, False, True])
    y = x.masked_scatter(mask, m.randn(6))
    mask[1] = True
    y.sum().backward()


def _source_changed(forward):
    def scenario(m):
        x, s, i = m.randn(5, 3, requires_grad=True), m.randn(3, 3), m.tensor([0, 2, 1])
        y = forward(m, x, s, i)
        s.mul_(2)  # a source that needs no gradient: torch keeps it only where the formula reads it anyway
        y.sum().backward()

    return scenario


SAVED += [
    _source_changed(lambda m, x, s, i: x.index_add(0, i, s)),
    _source_changed(lambda m, x, s, i: x.index_copy(0, i, s)),
    _source_changed(lambda m, x, s, i: x.put(i, s[0])),
    _source_changed(lambda m, x, s, i: x.scatter_reduce(0, i[:, None].expand(3, 3), s, "sum")),
    _source_changed(lambda m, x, s, i: x.index_reduce(0, i, s, "amax")),
    _source_changed(lambda m, x, s, i: x.masked_scatter(x > 0, s.reshape(-1).repeat(2))),
    _source_changed(lambda m, x, s, i: m.diagonal_scatter(x, s[0])),
]


@pytest.mark.parametrize("k", range(len(SAVED) + 1))
def test_saved_index_changed_in_place_matches_torch(k):
    torch = _torch()
    scenario = (SAVED + [_mask_changed])[k]
    ours, theirs = _outcome(scenario, framework), _outcome(scenario, torch)
    assert ours[0] == theirs[0]
    if ours[0] != "ran":
        assert ours == theirs


def test_scatter_with_reduce_has_no_derivative_as_torch():
    torch = _torch()

    def scenario(m, inplace):
        def run(m):
            x = m.randn(3, 2, requires_grad=True) * 1
            j = m.tensor([[0, 1], [0, 0]])
            y = x.scatter_(0, j, 2.0, reduce="multiply") if inplace else x.scatter(0, j, x[:2], reduce="add")
            name = y.grad_fn.name()
            y.sum().backward()
            return name
        return run

    for inplace in (False, True):
        ours, theirs = _outcome(scenario(framework, inplace), framework), _outcome(scenario(torch, inplace), torch)
        assert ours == theirs == ("RuntimeError", f"derivative for aten::scatter{'_' * inplace} is not implemented")


def test_scatter_with_reduce_values_match_torch():
    torch = _torch()
    for reduce in ("add", "multiply"):
        outs = []
        for m in (framework, torch):
            x, j = m.tensor(X), m.tensor(J)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outs.append((x.scatter(0, j, m.tensor(S), reduce=reduce).cpu().numpy(),
                             x.clone().scatter_(0, j, 1.5, reduce=reduce).cpu().numpy()))
        np.testing.assert_array_equal(outs[0][0], outs[1][0])
        np.testing.assert_array_equal(outs[0][1], outs[1][1])


# ---- errors: torch's class and first sentence --------------------------------------------------------------

def _x(m):
    return m.randn(5, 3)


def _s(m, *shape):
    return m.randn(*(shape or (3, 3)))


def _i(m, *values):
    return m.tensor(values or (0, 2, 2))


ERRORS = [
    lambda m: _x(m).index_add(0, _i(m).float(), _s(m)),
    lambda m: _x(m).index_add(0, m.tensor([0, 5, 1]), _s(m)),
    lambda m: _x(m).index_add(0, m.tensor([0, -1, 1]), _s(m)),
    lambda m: _x(m).index_add(0, _i(m), _s(m, 3, 4)),
    lambda m: _x(m).index_add(0, _i(m), _s(m, 2, 3)),
    lambda m: _x(m).index_add(0, _i(m)[None], _s(m)),
    lambda m: _x(m).index_add(0, _i(m), _s(m).double()),
    lambda m: _x(m).index_add(2, _i(m), _s(m)),
    lambda m: _x(m).index_copy(0, _i(m).int(), _s(m)),
    lambda m: _x(m).index_copy(0, m.tensor([0, 5, 1]), _s(m)),
    lambda m: _x(m).index_copy(0, _i(m), _s(m, 3, 4)),
    lambda m: _x(m).index_copy(0, _i(m), _s(m, 2, 3)),
    lambda m: _x(m).index_copy(0, _i(m)[None], _s(m)),
    lambda m: _x(m).index_copy(0, _i(m), _s(m).double()),
    lambda m: _x(m).index_fill(0, _i(m).int(), 1.0),
    lambda m: _x(m).index_fill(0, m.tensor([5]), 1.0),
    lambda m: _x(m).index_fill(0, m.tensor([-6]), 1.0),
    lambda m: _x(m).index_fill(0, _i(m), m.tensor([1.0])),
    lambda m: _x(m).index_fill(0, _i(m)[None], 1.0),
    lambda m: _x(m).index_reduce(0, _i(m), _s(m), "sum"),
    lambda m: _x(m).index_reduce(0, m.tensor([0, 5, 1]), _s(m), "prod"),
    lambda m: _x(m).index_reduce(0, m.tensor([0, -1, 1]), _s(m), "amax"),
    lambda m: _x(m).index_reduce(0, _i(m), _s(m, 2, 3), "mean"),
    lambda m: _x(m).index_reduce(0, _i(m), _s(m).double(), "mean"),
    lambda m: _x(m).index_reduce(0, _i(m).float(), _s(m), "amin"),
    lambda m: _x(m).index_reduce(0, _i(m)[None], _s(m), "amin"),
    lambda m: _x(m).index_reduce(0, _i(m), _s(m, 3, 4), "amin"),
    lambda m: _x(m).masked_scatter(_x(m) > 0, m.zeros(0)),
    lambda m: _x(m).masked_scatter((_x(m) > 0).int(), _s(m, 15)),
    lambda m: _x(m).masked_scatter(_x(m) > 0, _s(m, 15).double()),
    lambda m: m.randn(3).masked_scatter_(_x(m) > 0, _s(m, 15)),
    lambda m: _x(m).put(m.tensor([15]), m.tensor([1.0])),
    lambda m: _x(m).put(m.tensor([-16]), m.tensor([1.0])),
    lambda m: _x(m).put(m.tensor([1], dtype=m.int32), m.tensor([1.0])),
    lambda m: _x(m).put(m.tensor([1, 2]), m.tensor([1.0])),
    lambda m: _x(m).put(m.tensor([1]), m.tensor([1.0], dtype=m.float64)),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J), _s(m), "foo"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J).float(), _s(m), "sum"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J) + 3, _s(m), "sum"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J) - 1, _s(m), "amax"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J), _s(m).double(), "sum"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J)[0], _s(m), "sum"),
    lambda m: _x(m).scatter_reduce(0, m.zeros(2, 4, dtype=m.int64), _s(m), "sum"),
    lambda m: _x(m).scatter_reduce(0, m.tensor(J), _s(m), "sum", include_self=2),
    lambda m: _x(m).scatter(0, m.tensor(J), _s(m), reduce="mean"),
    lambda m: m.diagonal_scatter(m.randn(3, 4), m.randn(4)),
    lambda m: m.select_scatter(m.randn(3, 4), m.randn(3), 0, 1),
    lambda m: m.select_scatter(m.randn(3, 4), m.randn(4), 0, 5),
    lambda m: m.slice_scatter(m.randn(3, 4), m.randn(2, 4), 0, 0, 1),
    lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0, 1]), m.randn(4, requires_grad=True), "sum").sum().backward(),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_error_matches_torch(k):
    torch = _torch()
    ours, theirs = _outcome(ERRORS[k], framework), _outcome(ERRORS[k], torch)
    assert ours[0] != "ran"
    assert ours == theirs


# ---- float64 gradchecks (no torch) --------------------------------------------------------------------------

def _t(shape, seed=0, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    return framework.tensor(rng.uniform(lo, hi, shape), requires_grad=True)


GRADCHECKS = {
    "index_add": (lambda a, b: a.index_add(0, framework.tensor([0, 2, 2]), b, alpha=0.5), [(5, 3), (3, 3)]),
    "index_add_": (lambda a, b: (a * 1).index_add_(1, framework.tensor([1, 1]), b), [(2, 3), (2, 2)]),
    "index_copy": (lambda a, b: a.index_copy(0, framework.tensor([1, 4]), b), [(5, 3), (2, 3)]),
    "index_copy_": (lambda a, b: (a * 1).index_copy_(0, framework.tensor([3]), b), [(5, 3), (1, 3)]),
    "index_fill_tensor": (lambda a, v: a.index_fill(0, framework.tensor([0, 0, 3]), v.sum()), [(5, 3), (2,)]),
    "index_fill_": (lambda a: (a * 1).index_fill_(1, framework.tensor([2]), 1.0), [(5, 3)]),
    "index_reduce_prod": (lambda a, b: a.index_reduce(0, framework.tensor([0, 2, 0]), b, "prod"), [(5, 3), (3, 3)]),
    "index_reduce_mean": (lambda a, b: a.index_reduce(0, framework.tensor([0, 2, 0]), b, "mean"), [(5, 3), (3, 3)]),
    "index_reduce_amax": (lambda a, b: a.index_reduce(0, framework.tensor([0, 2, 0]), b, "amax",
                                                      include_self=False), [(5, 3), (3, 3)]),
    "index_reduce_amin_": (lambda a, b: (a * 1).index_reduce_(0, framework.tensor([1, 1, 0]), b, "amin"),
                           [(5, 3), (3, 3)]),
    "scatter_reduce_sum": (lambda a, b: a.scatter_reduce(0, framework.tensor(J), b, "sum", include_self=False),
                           [(5, 3), (3, 3)]),
    "scatter_reduce_prod": (lambda a, b: a.scatter_reduce(0, framework.tensor(J), b, "prod"), [(5, 3), (3, 3)]),
    "scatter_reduce_mean": (lambda a, b: a.scatter_reduce(0, framework.tensor(J), b, "mean", include_self=False),
                            [(5, 3), (3, 3)]),
    "scatter_reduce_amax_": (lambda a, b: (a * 1).scatter_reduce_(0, framework.tensor(J), b, "amax"),
                             [(5, 3), (3, 3)]),
    "scatter_reduce_amin": (lambda a, b: a.scatter_reduce(1, framework.tensor([[2, 2]]), b, "amin"), [(2, 3), (1, 2)]),
    "scatter_": (lambda a, b: (a * 1).scatter_(0, framework.tensor([[0, 1, 2]]), b), [(3, 3), (1, 3)]),
    "scatter_add_": (lambda a, b: (a * 1).scatter_add_(0, framework.tensor(J), b), [(5, 3), (3, 3)]),
    "put": (lambda a, b: a.put(framework.tensor([0, 5, -1]), b), [(3, 4), (3,)]),
    "put_accumulate_": (lambda a, b: (a * 1).put_(framework.tensor([1, 1]), b, accumulate=True), [(3, 4), (2,)]),
    "masked_scatter": (lambda a, b: a.masked_scatter(framework.tensor([True, False, True]), b), [(2, 3), (5,)]),
    "masked_scatter_": (lambda a, b: (a * 1).masked_scatter_(framework.tensor([[False], [True]]), b), [(2, 3), (3,)]),
    "diagonal_scatter": (lambda a, b: framework.diagonal_scatter(a, b, 1, 1, 0), [(4, 3), (3,)]),
    "select_scatter": (lambda a, b: framework.select_scatter(a, b, 0, 1), [(3, 4), (4,)]),
    "slice_scatter": (lambda a, b: framework.slice_scatter(a, b, 1, 0, 4, 3), [(3, 4), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, shapes = GRADCHECKS[name]
    xs = [_t(s, seed=k) for k, s in enumerate(shapes)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(fn, xs)


@pytest.mark.parametrize("name", ["index_add", "index_reduce_prod", "scatter_reduce_mean", "put", "masked_scatter",
                                  "diagonal_scatter"])
def test_gradgradcheck(name):
    fn, shapes = GRADCHECKS[name]
    xs = [_t(s, seed=k, lo=0.5, hi=2.0) for k, s in enumerate(shapes)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradgradcheck(fn, xs)


def test_prod_gradient_with_zeros_without_torch():
    """d/ds of prod(x, s1, s2): the product of the others; 0 for every factor when two of them are zero."""
    x = framework.tensor([2.0, 3.0], requires_grad=True)
    s = framework.tensor([0.0, 5.0, 0.0, 0.0], requires_grad=True)
    y = x.scatter_reduce(0, framework.tensor([0, 0, 1, 1]), s, "prod")
    y.sum().backward()
    assert y.tolist() == [0.0, 0.0]
    assert x.grad.tolist() == [0.0, 0.0]
    assert s.grad.tolist() == [10.0, 0.0, 0.0, 0.0]


def test_amax_ties_share_the_gradient_without_torch():
    x = framework.tensor([1.0, 0.0], requires_grad=True)
    s = framework.tensor([1.0, 1.0, -1.0], requires_grad=True)
    y = x.index_reduce(0, framework.tensor([0, 0, 1]), s, "amax")
    y.backward(framework.tensor([3.0, 1.0]))
    assert x.grad.tolist() == [1.0, 1.0] and s.grad.tolist() == [1.0, 1.0, 0.0]


# ---- framework.compile: the index ops replay (no graph break), bit for bit equal to eager ---------------------

@pytest.mark.explicit_device  # framework.compile records NumPy calls: on the CPU, as tests/test_compile.py
def test_compiled_step_with_index_ops_replays_bit_for_bit():
    idx, j = framework.tensor([0, 2, 2]), framework.tensor(J)

    def step(x, s):
        x, s = x.detach().requires_grad_(), s.detach().requires_grad_()
        y = x.index_add(0, idx, s) * x.scatter_reduce(0, j, s, "amax") + x.index_reduce(0, idx, s, "prod") \
            + x.put(framework.tensor([1, 4]), s[0, :2], accumulate=True) + framework.select_scatter(x, s[1], 0, 1) \
            + x.masked_scatter(x > 0, s.reshape(-1).repeat(2)) + x.index_copy(0, framework.tensor([4, 0, 1]), s) \
            + framework.diagonal_scatter(x, s[2], -1) + (x * 1).scatter_(0, j, s)
        y.sum().backward()
        return y.detach(), x.grad, s.grad

    rng = np.random.default_rng(0)
    data = [(framework.tensor(rng.standard_normal((5, 3))), framework.tensor(rng.standard_normal((3, 3))))
            for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager = [step(*d) for d in data]
        compiled = framework.compile(step, fullgraph=True)  # a graph break would raise
        replayed = [compiled(*data[i % 3]) for i in range(6)]
    assert compiled.captures == 1 and compiled.replays == 5
    for i, outs in enumerate(replayed):
        for a, b in zip(eager[i % 3], outs):
            np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())


def test_in_place_into_an_expanded_tensor_as_torch():
    """index_fill_ is a fill: it writes an expand()ed tensor's shared elements; the others refuse such a target."""
    torch = _torch()

    def run(m, op):
        def scenario(m):
            x = m.zeros(1, 3).expand(2, 3)
            getattr(x, op)(0, m.tensor([0]), *((1.0,) if op == "index_fill_" else (m.ones(1, 3),)))
            return x
        return _outcome(scenario, m)

    for op in ("index_fill_", "index_copy_", "index_add_"):
        ours, theirs = run(framework, op), run(torch, op)
        assert ours[0] == theirs[0]
        if ours[0] == "ran":
            np.testing.assert_array_equal(ours[1].cpu().numpy(), theirs[1].cpu().numpy())
        else:
            assert ours == theirs
