"""The differential fuzzer (tests/fuzz.py) in the suite: a bounded run has no undeclared divergence, the shrinker
finds a planted bug's minimal program, and causes once fixed stay fixed."""
import re
import types

import numpy as np
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
    d = Divergence(0, "grad_fn:inplace.add_", "t1.grad_fn: torch AsStridedBackward0, framework TBackward0")
    assert fuzz.declared(d) is not None
    assert fuzz.declared(Divergence(0, "value:unary.exp", "t1 values differ")) is None


def _program(*lines, **arrays):
    steps = [Step(f"{name} = m.tensor({name.replace('t', 'A')}, dtype=m.{dtype}, requires_grad=True)", "leaf",
                  {name.replace("t", "A"): __import__("numpy").array(value)})
             for name, (value, dtype) in arrays.items()]
    return steps + [Step(line, "step") for line in lines]


def _script(src: str) -> list:
    """A minimized program as the fuzzer prints it (tests.fuzz.to_script) back into its steps."""
    steps, data, block = [], {}, None
    for line in src.strip().splitlines():
        line = line.strip("\n")
        if not line.strip() or line.startswith(("import ", "#", "OP = ")):
            continue
        if re.fullmatch(r"[AG]\d+ = np\.array\(.*\)", line):
            name, expr = line.split(" = ", 1)
            data[name] = eval(expr, {"np": np})
        elif line.startswith("    ") and block is not None:
            steps.append(Step(block + "\n" + line, "step", data))
            block, data = None, {}
        elif line.startswith("with "):
            block = line
        else:
            steps.append(Step(line, "step", data))
            data = {}
    return steps


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
}


@pytest.mark.parametrize("name", list(FIXED))
def test_fixed_cause_stays_fixed(name):
    d = fuzz.replay(FIXED[name], framework, torch)
    assert d is None, f"{name} diverges again: {d}\n{fuzz.to_script(FIXED[name], d)}"
