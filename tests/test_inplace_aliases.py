"""In-place twins and in-place aliases torch has (addmm_, addmv_, addr_, addbmm_, baddbmm_, atan2_/arctan2_,
arccos_/arcsin_/arctan_, divide_/multiply_/subtract_/true_divide_/negative_, heaviside_, igamma_, igammac_):
values, gradients, node names and version bumps against torch; float64 gradchecks; torch's errors."""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome

_rng = np.random.default_rng(0)

# name: (fn(m, self_copy, *others), shapes, domain); self is the first input, written into after `* 1`
CASES = {
    "addmm_": (lambda m, a, b, c: a.addmm_(b, c), [(3, 4), (3, 2), (2, 4)], (-2, 2)),
    "addmm_scaled": (lambda m, a, b, c: a.addmm_(b, c, beta=0.5, alpha=-2.0), [(3, 4), (3, 2), (2, 4)], (-2, 2)),
    "addmv_": (lambda m, a, b, c: a.addmv_(b, c, alpha=3), [(3,), (3, 2), (2,)], (-2, 2)),
    "torch.addmv_": (lambda m, a, b, c: m.addmv_(a, b, c, beta=2), [(3,), (3, 2), (2,)], (-2, 2)),
    "addr_": (lambda m, a, b, c: a.addr_(b, c, beta=-1), [(3, 2), (3,), (2,)], (-2, 2)),
    "addbmm_": (lambda m, a, b, c: a.addbmm_(b, c), [(3, 4), (2, 3, 2), (2, 2, 4)], (-2, 2)),
    "baddbmm_": (lambda m, a, b, c: a.baddbmm_(b, c, alpha=0.5), [(2, 3, 4), (2, 3, 2), (2, 2, 4)], (-2, 2)),
    "atan2_": (lambda m, a, b: a.atan2_(b), [(3, 4), (4,)], (-2, 2)),
    "arctan2_": (lambda m, a, b: a.arctan2_(b), [(3, 4), (3, 4)], (-2, 2)),
    "arccos_": (lambda m, a: a.arccos_(), [(5,)], (-0.9, 0.9)),
    "arcsin_": (lambda m, a: a.arcsin_(), [(5,)], (-0.9, 0.9)),
    "arctan_": (lambda m, a: a.arctan_(), [(5,)], (-2, 2)),
    "torch.arccos_": (lambda m, a: m.arccos_(a), [(5,)], (-0.9, 0.9)),
    "torch.arcsin_": (lambda m, a: m.arcsin_(a), [(5,)], (-0.9, 0.9)),
    "torch.arctan_": (lambda m, a: m.arctan_(a), [(5,)], (-2, 2)),
    "divide_": (lambda m, a, b: a.divide_(b), [(3, 4), (4,)], (0.5, 2)),
    "divide_floor": (lambda m, a, b: a.divide_(b, rounding_mode="floor"), [(3, 4), (4,)], (0.5, 2)),
    "div_trunc_scalar": (lambda m, a: a.div_(-0.7, rounding_mode="trunc"), [(3, 4)], (0.5, 2)),
    "true_divide_": (lambda m, a, b: a.true_divide_(b), [(3, 4), (3, 4)], (0.5, 2)),
    "multiply_": (lambda m, a, b: a.multiply_(b), [(3, 4), (4,)], (-2, 2)),
    "subtract_": (lambda m, a, b: a.subtract_(b, alpha=2), [(3, 4), (4,)], (-2, 2)),
    "negative_": (lambda m, a: a.negative_(), [(3, 4)], (-2, 2)),
    "igammac_x": (lambda m, a, b: a.detach().igammac_(b), [(4,), (4,)], (0.5, 2)),
    "igamma_x": (lambda m, a, b: a.detach().igamma_(b), [(4,), (4,)], (0.5, 2)),
}


def _run(m, name, arrays, dtype):
    fn, _, _ = CASES[name]
    xs = [m.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    a = xs[0] * 1
    version = a._version
    out = fn(m, a, *xs[1:])
    assert out is a or name.startswith("igamma")  # (the igamma rows write into a detached copy)
    bumped = out._version - version if out is a else 1
    out.sum().backward()
    return (out.detach().cpu().numpy(), [None if x.grad is None else x.grad.cpu().numpy() for x in xs],
            out.grad_fn.name().split("::")[-1], bumped)


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_alias_matches_torch(name):
    torch = pytest.importorskip("torch")
    _, shapes, (lo, hi) = CASES[name]
    arrays = [_rng.uniform(lo, hi, size=s) for s in shapes]
    ours = _run(framework, name, arrays, framework.float64)
    theirs = _run(torch, name, arrays, torch.float64)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    for g, h in zip(ours[1], theirs[1]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12)
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("name", sorted(n for n in CASES if "floor" not in n and "trunc" not in n))
def test_inplace_alias_gradcheck(name):
    fn, shapes, (lo, hi) = CASES[name]
    rng = np.random.default_rng(1)
    xs = [framework.tensor(rng.uniform(lo, hi, size=s), requires_grad=True) for s in shapes]
    if name.startswith("igamma"):  # torch has no derivative for igamma's input: the check is in x alone
        xs[0].requires_grad_(False)
    assert gradcheck(lambda *ts: fn(framework, ts[0] * 1, *ts[1:]), xs)


def test_the_old_input_is_saved_for_backward_as_torch():
    """atan2_'s and igammac_'s gradients need the input from before the write (torch's original_self)."""
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        a = m.tensor([0.5, 1.5], dtype=m.float64, requires_grad=True)
        b = m.tensor([2.0, 0.7], dtype=m.float64, requires_grad=True)
        y = a * 1
        y.atan2_(b)
        (y * y).sum().backward()
        outs.append((a.grad.tolist(), b.grad.tolist()))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)


ERRORS = {
    "addmm_broadcast_self": lambda m: m.ones(3, 1).addmm_(m.ones(3, 3), m.ones(3, 3)),
    "addmv_broadcast_self": lambda m: m.ones(1).addmv_(m.ones(3, 3), m.ones(3)),
    "baddbmm_broadcast_self": lambda m: m.ones(1, 3, 3).baddbmm_(m.ones(2, 3, 3), m.ones(2, 3, 3)),
    "addr_broadcast_self": lambda m: m.ones(3, 1).addr_(m.ones(3), m.ones(3)),
    "addmm_dtype": lambda m: m.ones(2, 2).addmm_(m.ones(2, 2, dtype=m.float64), m.ones(2, 2)),
    "atan2_int_self": lambda m: m.ones(3, dtype=m.int64).atan2_(m.ones(3)),
    "atan2_grows_self": lambda m: m.ones(3).atan2_(m.ones(2, 3)),
    "atan2_number": lambda m: m.ones(3).atan2_(2),
    "arccos_int": lambda m: m.ones(3, dtype=m.int64).arccos_(),
    "divide_int": lambda m: m.ones(3, dtype=m.int64).divide_(2),
    "true_divide_int": lambda m: m.ones(3, dtype=m.int64).true_divide_(2),
    "divide_bad_mode": lambda m: m.ones(3).divide_(2, rounding_mode="round"),
    "heaviside_dtypes": lambda m: m.ones(3).heaviside_(m.ones(3, dtype=m.float64)),
    "igamma_int_self": lambda m: m.ones(3, dtype=m.int64).igamma_(m.ones(3)),
    "igamma_input_grad": lambda m: m.ones(3, requires_grad=True).mul(1).igamma_(m.ones(3)).sum().backward(),
    "heaviside_backward": lambda m: m.ones(3, requires_grad=True).mul(1).heaviside_(m.ones(3)).sum().backward(),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_inplace_alias_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    assert outcome(ERRORS[name], framework) == outcome(ERRORS[name], torch)


def test_heaviside_and_floor_division_in_place_values():
    torch = pytest.importorskip("torch")
    vals = [-1.5, 0.0, 2.0, 0.0]
    outs = []
    for m in (framework, torch):
        a = m.tensor(vals)
        a.heaviside_(m.tensor([0.5, 0.25, 0.5, 3.0]))
        b = m.tensor([7, -7, 5], dtype=m.int64)
        b.divide_(2, rounding_mode="floor")
        c = m.tensor([7, -7, 5], dtype=m.int64)
        c.div_(m.tensor([2, 2, -2]), rounding_mode="trunc")
        outs.append((a.tolist(), a._version, b.tolist(), b.dtype == m.int64, c.tolist()))
    assert outs[0] == outs[1]
