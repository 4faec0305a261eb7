"""Parity table: for each op and each of its inputs and its output modified in place after the forward,
backward raises exactly when torch's does (same class, same first sentence, same versions)."""
import numpy as np
import pytest

from op_table import OPS
from scenario import outcome

torch = pytest.importorskip("torch")


def _targets(case):
    return [f"input{i}" for i in range(len(case.shapes))] + ["output"]


CASES = [(c, t) for c in OPS for t in _targets(c)]


def _scenario(case, target):
    rng = np.random.default_rng(0)
    lo, hi = case.domain
    arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]

    def run(m):
        xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        out = case.fn(m, *xs)
        victim = out if target == "output" else xs[int(target[5:])]
        with m.no_grad():
            victim.mul_(1.0)  # same values, new version
        out.sum().backward()
        return "backward ran"

    return run


@pytest.mark.parametrize("case,target", CASES, ids=[f"{c.name}-{t}" for c, t in CASES])
def test_inplace_after_forward_matches_torch(case, target):
    import framework

    run = _scenario(case, target)
    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert ours == theirs


@pytest.mark.parametrize("case,target", CASES, ids=[f"{c.name}-{t}" for c, t in CASES])
def test_explain_marks_stale_exactly_when_backward_rejects(case, target):
    """explain(loss) shows a STALE saved tensor if and only if backward raises the version error."""
    import framework

    rng = np.random.default_rng(0)
    lo, hi = case.domain
    arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    out = case.fn(framework, *xs)
    victim = out if target == "output" else xs[int(target[5:])]
    try:
        with framework.no_grad():
            victim.mul_(1.0)
    except RuntimeError:  # e.g. writing into an expand()ed view is refused outright
        pytest.skip("the in-place change itself is refused for this op")
    try:
        loss = out.sum()
    except RuntimeError as e:  # torch too: an output of unbind/split cannot be used once its base changed
        assert "is a view and its base or another view of its base has been modified inplace" in str(e)
        pytest.skip("the changed view cannot be used at all for this op")
    stale = "STALE" in framework.autograd.explain(loss)
    try:
        loss.backward()
        raised = False
    except RuntimeError as e:
        raised = "modified by an inplace operation" in str(e)
    assert stale == raised


BOTH_SAVED = {
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
}


@pytest.mark.parametrize("name", list(BOTH_SAVED))
def test_error_names_the_saved_tensor_torchs_node_unpacks_first(name):
    """Both saved inputs changed in place, by different counts: the error names the one torch's node unpacks first
    (the order it declares its saved variables in: other_ before self_), so its versions are torch's (fuzz seed
    4302138: t1 * t0, then both changed)."""
    import framework

    def run(m):
        a = m.tensor([1.05, -1.15, -0.88], dtype=m.float64, requires_grad=True)
        b = m.tensor([0.3, 0.7, -0.2], dtype=m.float64, requires_grad=True)
        out = BOTH_SAVED[name](m, a, b)
        with m.no_grad():
            a.add_(1.0)  # self: version 1
            b.add_(1.0)
            b.mul_(1.0)  # other: version 2
        out.sum().backward()
        return "backward ran"

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert theirs[0] == "error" and ours == theirs


def test_fuzz_seed_4302138_backward_names_torchs_saved_tensor():
    """The shrunk fuzz program: MulBackward0's other (t0, changed twice) is checked before its self (t1, once)."""
    import framework

    def run(m):
        t0 = m.tensor(np.array([1.05, -1.15, -0.88, -0.9]), dtype=m.float32, requires_grad=True)
        t1 = t0 / (t0.abs() + 1)
        with m.no_grad():
            t0.add_(t1)
        t2 = t1 * t0
        with m.no_grad():
            m.relu_(t0)
        t1.tanh_()
        t2.prod(dim=0, keepdim=False).backward()
        return "backward ran"

    ours, theirs = outcome(run, framework), outcome(run, torch)
    assert theirs == ("error", "RuntimeError", "one of the variables needed for gradient computation has been "
                      "modified by an inplace operation", ("2", "1")) and ours == theirs
