"""Every example runs (``main(["--quick", ...])``) in a temporary directory."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# examples are scripts run as a user runs them (on the CPU, the default device); the device path of what they
# drive is tested in test_trainers.py
pytestmark = pytest.mark.explicit_device
EXAMPLES = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".py"))


def _load(name):
    spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(ROOT, "examples", name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    module = _load(name)
    argv = ["--quick"]
    with open(os.path.join(ROOT, "examples", name)) as f:
        takes_out = "--out" in f.read()
    if takes_out:
        argv += ["--out", str(tmp_path / "out")]
    assert module.main(argv) == 0
    assert capsys.readouterr().out.strip()


def test_examples_cover_the_seed_topics():
    for needed in ("leaf_tensors.py", "retain_grad_and_hooks.py", "inplace_errors.py", "no_grad_sgd.py",
                   "sin_derivative.py", "gan_detach.py", "classify_digits.py"):
        assert needed in EXAMPLES


def test_sin_derivative_png(tmp_path):
    assert _load("sin_derivative.py").main(["--out", str(tmp_path)]) == 0
    assert (tmp_path / "sin_derivative.png").stat().st_size > 1000
