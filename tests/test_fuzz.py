"""The differential fuzzer (tests/fuzz.py) in the suite: a bounded run has no undeclared divergence, the shrinker
finds a planted bug's minimal program, and causes once fixed stay fixed."""
import types

import pytest

torch = pytest.importorskip("torch")

import framework  # noqa: E402
import fuzz  # noqa: E402
from fuzz import Divergence, Step  # noqa: E402

N_PROGRAMS = 400  # a few seconds per hundred; `python -m tests.fuzz --n 10000` runs the long version


def test_bounded_run_has_no_undeclared_divergence():
    rep = fuzz.fuzz(N_PROGRAMS, seed=0, fw=framework, torch=torch)
    assert rep.programs == N_PROGRAMS
    lines = []
    for cause in rep.undeclared:
        seed, program, d = rep.examples[cause]
        lines.append(f"{cause} (seed {seed}):\n{fuzz.to_script(program, d)}")
    assert not rep.undeclared, "undeclared divergences:\n\n" + "\n\n".join(lines)


def _planted_module():
    """framework, except that m.exp is wrong by a factor (a planted bug for the fuzzer to find)."""
    fake = types.ModuleType("framework_with_a_bug")
    fake.__dict__.update({k: getattr(framework, k) for k in dir(framework) if not k.startswith("__")})
    fake.exp = lambda x: framework.exp(x) * 1.5
    return fake


def test_shrinker_minimizes_a_planted_divergence():
    fake = _planted_module()
    found = None
    for seed in range(3000):
        program, d = fuzz.run_program(seed, fake, torch)
        if d is not None and d.cause == "value:unary.exp" and len(program) >= 6:
            found = program, d
            break
    assert found, "the fuzzer did not find the planted bug"
    program, d = found
    small = fuzz.shrink(program, d.cause, fake, torch)
    d2 = fuzz.replay(small, fake, torch)
    assert isinstance(d2, Divergence) and d2.cause == "value:unary.exp"
    assert len(small) < len(program)
    # 1-minimal: without any one of its steps the program no longer shows the planted divergence
    for i in range(len(small)):
        d3 = fuzz.replay(small[:i] + small[i + 1:], fake, torch)
        assert not (isinstance(d3, Divergence) and d3.cause == "value:unary.exp")
    assert "m.exp(" in small[-1].code
    script = fuzz.to_script(small, d2)
    assert "m.tensor(A" in script and "m.exp(" in script
    # the unmodified framework agrees with torch on the same minimal program
    assert fuzz.replay(small, framework, torch) is None


def test_first_sentence_and_declared_matching():
    e = RuntimeError("a leaf Variable that requires grad is being used in an in-place operation. More text.")
    assert fuzz._first_sentence(e) == "a leaf Variable that requires grad is being used in an in-place operation."
    d = Divergence(0, "version:autograd.grad", "t2.version: torch 1, framework 0")
    assert fuzz.declared(d) is not None
    # fixed: a view's grad_fn after an in-place write is AsStridedBackward0 here too, no longer declared
    assert fuzz.declared(Divergence(0, "grad_fn:inplace.add_", "t1.grad_fn: torch AsStridedBackward0, "
                                                                 "framework TBackward0")) is None
    assert fuzz.declared(Divergence(0, "value:unary.exp", "t1 values differ")) is None


def _program(*lines, **arrays):
    steps = [Step(f"{name} = m.tensor({name.replace('t', 'A')}, dtype=m.{dtype}, requires_grad=True)", "leaf",
                  {name.replace("t", "A"): __import__("numpy").array(value)})
             for name, (value, dtype) in arrays.items()]
    return steps + [Step(line, "step") for line in lines]


# Minimized programs of causes that are fixed: each must replay with no divergence. When a fix lands for a cause in
# fuzz.DECLARED_DEVIATIONS, move its minimized program (docs: the fuzz findings note) here and drop the declaration.
FIXED = {
    "noerror:backward (saved output changed in place)": _program(
        "t1 = m.exp(t0)", "t1.mul_(2.0)", "t1.sum().backward()", t0=([0.5, -1.0], "float32")),
    "errmsg:inplace.add_ (leaf that requires grad)": _program("t0.add_(1.0)", t0=([0.5, -1.0], "float64")),
    "noerror:backward (second backward)": _program(
        "t1 = (t0 * t0).sum()", "t1.backward()", "t1.backward()", t0=([0.5, -1.0], "float32")),
    "grad_value:backward (hook scales)": _program(
        "t1 = t0 * 2", "t1.register_hook(lambda g: g * 2)", "t1.retain_grad()", "t1.sum().backward()",
        t0=([[0.5, -1.0], [1.5, 0.25]], "float32")),
    "value:inplace.add_ (write through a view)": _program(
        "t1 = t0 * 1", "t1[0] = 1.5", "t1.t()[1].mul_(t0[0])", "(t1 * t1).sum().backward()",
        t0=([[0.5, -1.0], [1.5, 0.25]], "float64")),
    # issue 15, views and in-place writes (README "Views and in-place writes")
    "grad_fn:inplace.iadd (a view's grad_fn after a write is AsStridedBackward0)": _program(
        "t1 = m.minimum(t0, t0)", "t2 = t0.t()", "with m.set_grad_enabled(False):\n    t2 -= t1",
        t0=([0.03, -0.82], "float32")),
    "grad_fn:inplace.mul_ (view of a view, written through its base)": _program(
        "t1 = t0 * 1", "t2 = t1.t()[1:].unsqueeze(0)", "t1.mul_(t0)", "(t2 * t2).sum().backward()",
        t0=([[0.5, -1.0], [1.5, 0.25]], "float64")),
    "value:inplace.iadd (a view of a summed 0-d gradient writes into it)": _program(
        "t2 = m.tensor(-1.79, dtype=m.float64)", "t5 = m.softmax(t0, dim=-1)", "t7 = t5 - t2",
        "t8 = m.nn.functional.mse_loss(t7, t7)", "t9, t10, = m.autograd.grad(t8.sum(), [t0, t5])",
        "t11 = t10.unsqueeze(0)", "t11 -= -1.0", t0=(-1.7, "float32")),
    "grad_fn:inplace.setitem (a 0-d tensor value is fill_: FillBackward3)": _program(  # (a CPU value, as torch)
        "t0 = m.tensor(-1.87, dtype=m.float64, requires_grad=True, device='cpu')",
        "t1 = m.tensor([1.74], dtype=m.float64, device='cpu')", "t1[...] = t0", "(t1 * 2).sum().backward()"),
    "error:inplace.sub_ (a select of an expand repeats no element)": _program(
        "t0 = m.tensor(-0.89, dtype=m.float64)", "t6 = t0.expand(2)", "t7 = t6[None, -2]", "t7.sub_(t1)",
        t1=(-0.53, "float64")),
    "error:inplace.setitem (a slice of an expand repeats no element)": _program(
        "t3 = t2.expand(2)", "with m.no_grad():\n    t3[:1] = 1.5", t2=(-0.42, "float32")),
    "errmsg:inplace.add_ (partial overlap through an expand)": _program(
        "t2 = t1.expand(2)", "t3 = t2[::2]", "with m.no_grad():\n    t3.add_(t1)", t1=(-1.39, "float32")),
    "error:inplace.div_ (a slice of an expanded gradient)": _program(
        "t2 = m.where(t1 > 0, t1, t0)", "t3 = t1.expand(2, 3)",
        "t4, t5, = m.autograd.grad(t2.sum(), [t2, t3], retain_graph=True, allow_unused=True)",
        "t7 = t4.reshape((3,))", "t11 = t7[0:1]", "t11.div_(0.5)",
        t0=([0.69, 0.64, -1.07], "float64"), t1=([-1.3, -0.21, -0.91], "float32")),
    "error:inplace.zero_ (zero_ writes through an expanded gradient)": _program(
        "t1, = m.autograd.grad(t0.sum(), [t0], allow_unused=True)", "t1.zero_()", t0=([1.52, -0.49], "float32")),
    "noerror:flag.detach_ (a gradient that is sum's expand is a view)": _program(
        "t1, = m.autograd.grad(t0.sum(), [t0])", "t1.detach_()", t0=(-0.42, "float32")),
    "errmsg:inplace.copy_ (a gradient view made under no_grad, written with grad mode)": _program(
        "t2, = m.autograd.grad(t0.sum(), [t0])", "t2.copy_(t0)", t0=([[1.84, -0.09, 1.89, -0.29]], "float64")),
    "error:flag.requires_grad_false (a no_grad view after its base's write)": _program(
        "with m.no_grad():\n    t8 = t7.view(-1)", "with m.no_grad():\n    t7.fill_(0.5)", "t10 = t8.flatten()",
        "t10.requires_grad = False", "t8.retain_grad()", "t8.requires_grad_()",
        t7=([[0.3, -1.08, 0.12, 0.89], [-1.76, 1.46, 1.51, 0.09]], "float64")),
    "errmsg:backward (the implicit-gradient check comes first)": _program(
        "with m.set_grad_enabled(False):\n    t3 = t1.expand(2)", "with m.set_grad_enabled(False):\n    t1.fill_(0.5)",
        "t3.backward()", t1=(-1.15, "float32")),
    "is_leaf:flag.requires_grad_ (a view of a tensor that later requires grad)": _program(
        "t0 = m.tensor([[1.84, -0.39, -0.98]], dtype=m.float32)", "t3 = m.sqrt(t0.abs() + 0.5)",
        "t4 = t3.narrow(0, 0, 1)", "t4.fill_(0.5)", "t3.requires_grad_()"),
    "version:inplace.exp_ (a gradient passed through unchanged is the same tensor)": _program(
        "t1 = t0 + 2.5", "t3, t4, = m.autograd.grad(t1.sum(), [t0, t1])", "t4.exp_()", t0=(-1.18, "float32")),
    "error:inplace.copy_ (a gradient that repeats no memory can be written)": _program(
        "t1 = t0 + t0", "t2, t3, = m.autograd.grad(t1.sum(), [t1, t0])", "t3.copy_(t3)", t0=(0.37, "float64")),
    "error:backward (a view set to require grad is a root with its own grad)": _program(
        "t0 = m.tensor([-1.35], dtype=m.float64)", "t2 = t0.narrow(0, 0, 1)", "t4 = t2.flatten()",
        "t4.requires_grad_()", "t2.backward()"),
    "error:inplace.mul_ (an empty tensor repeats no memory)": _program(
        "t0 = m.tensor([[[0.62, -1.91]]], dtype=m.float32)", "t3 = t2[1:]", "t4 = t3 * t0", "t6 = t4[:-1]",
        "t7 = t6.std(dim=1, keepdim=False)", "t7.mul_(t3)", t2=([[1.02, -1.71], [-1.61, -0.79]], "float32")),
    "noerror:backward (a saved input detached in place)": _program(
        "t3 = t1.clone()", "t4 = t3 + t2", "t5 = t4.mean(dim=0, keepdim=True)", "t6 = t5.amin(-1, keepdim=True)",
        "t5.detach_()", "t6.backward(m.tensor(-0.97, dtype=t6.dtype))", t1=(0.81, "float32"), t2=(1.71, "float32")),
    "errmsg:op.scatter_add (the view error comes before the dtype check)": _program(
        "t4 = t3.split([1, 4], dim=1)[1]", "t5 = t3.unsqueeze(-1)", "with m.no_grad():\n    t5.copy_(t5)",
        "t8 = m.tensor([[1.82, 1.48, -0.12, -1.01], [-0.29, 0.42, 0.24, 0.78]], dtype=m.float32)",
        "t11 = m.scatter_add(t4, 0, m.tensor([[0, 1, 0, 0], [0, 2, 2, 1]]), t8)",
        t3=([[1.34, -1.63, 1.27, -1.01, -1.33], [-1.52, 0.3, 0.45, -0.22, -0.29], [-1.44, 0.19, 1.2, -0.37, -1.76]],
            "float64")),
    "grad_value:autograd.grad.create_graph (an in-place op's original input in double backward)": _program(
        "t2 = t0 * 1", "t2.mul_(t1)", "t3, t4 = m.autograd.grad((t2 * t2).sum(), [t0, t1], create_graph=True)",
        "t5 = m.stack(m.autograd.grad((t3 * t4).sum(), [t0, t1]))",  # (gradients' _version: declared apart)
        t0=([0.25, 0.5, 0.75], "float64"), t1=([0.5, 0.75, 1.0], "float64")),
}


@pytest.mark.parametrize("name", list(FIXED))
def test_fixed_cause_stays_fixed(name):
    d = fuzz.replay(FIXED[name], framework, torch)
    assert d is None, f"{name} diverges again: {d}\n{fuzz.to_script(FIXED[name], d)}"
