"""Shared fixtures: the test device, plots go to files (Agg), a fixed seed per test, torch imported only when present.

The device: ``FRAMEWORK_TEST_DEVICE`` = ``cpu`` (default), ``cuda`` (a real GPU through CuPy; every test skips,
with its reason, where there is none) or ``strict`` (the strict CPU stand-in for CuPy in strict_cupy.py, which
fails where CuPy fails for NumPy-written code). Every test runs with that device as framework's default device, so
ops, layers, optimizers, views, seed scenarios and trainer steps all run there; tests that name devices
themselves (test_devices.py) mark themselves ``explicit_device``.
"""
import os
import sys

import numpy as np
import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TESTS)  # op_table.py, scenario.py and strict_cupy.py sit beside the tests

os.environ.setdefault("MPLBACKEND", "Agg")

TEST_DEVICE = os.environ.get("FRAMEWORK_TEST_DEVICE", "cpu")
if TEST_DEVICE not in ("cpu", "cuda", "strict"):
    raise ValueError(f"FRAMEWORK_TEST_DEVICE must be cpu, cuda or strict, not {TEST_DEVICE!r}")
if TEST_DEVICE == "strict":
    import strict_cupy

    from framework import backend

    backend.use_cupy(strict_cupy)
    # subprocesses (trainer CLIs) pick the stand-in up through backend's FRAMEWORK_CUPY hook
    os.environ["FRAMEWORK_CUPY"] = "strict_cupy"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (TESTS, os.environ.get("PYTHONPATH")) if p)


def torch_on_gpu() -> bool:
    """True when torch's reference tensors live on the GPU too (FRAMEWORK_TEST_DEVICE=cuda and torch has CUDA)."""
    if TEST_DEVICE != "cuda":
        return False
    try:
        import torch  # optional: the test oracle
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_configure(config):
    config.addinivalue_line("markers", "explicit_device: the test names its devices itself (no default device)")


def pytest_report_header(config):
    return f"framework test device: {TEST_DEVICE}"


def _cuda_available() -> bool:
    import framework

    return framework.cuda.is_available()


def device_name() -> str:
    """'cpu' or 'cuda:0' (a GPU, or the strict stand-in's device)."""
    return "cpu" if TEST_DEVICE == "cpu" else "cuda:0"


_SUFFIXES = (", size=", ", dtype=", ", grad_fn=", ", requires_grad=")


def on_device(shown: str) -> str:
    """A CPU tensor repr (as the seed documents print it) as torch prints it on the test device: every
    ``tensor(...)`` gets ``device='cuda:0'`` first among its suffixes."""
    if device_name() == "cpu":
        return shown
    out, i = [], 0
    while (start := shown.find("tensor(", i)) >= 0:
        depth, j = 0, start + len("tensor")
        while True:  # the closing parenthesis of this tensor(...)
            depth += {"(": 1, ")": -1}.get(shown[j], 0)
            if depth == 0:
                break
            j += 1
        inner = shown[start:j]
        cut = min((k for k in (inner.find(m) for m in _SUFFIXES) if k >= 0), default=len(inner))
        out.append(shown[i:start] + inner[:cut] + f", device='{device_name()}'" + inner[cut:])
        i = j
    return "".join(out) + shown[i:]


@pytest.fixture
def device():
    """The one device tests run on (see the module docstring); skips where a GPU is asked for and absent."""
    if TEST_DEVICE != "cpu" and not _cuda_available():
        pytest.skip("FRAMEWORK_TEST_DEVICE=cuda but no CUDA device (cupy with an NVIDIA GPU is needed)")
    return device_name()


@pytest.fixture(params=["cpu", "cuda"])
def both_devices(request):
    """The CPU and a GPU (the stand-in's under strict) for tests that move between them; no GPU: that case skips."""
    if request.param == "cuda" and not _cuda_available():
        pytest.skip("no CUDA device (cupy with an NVIDIA GPU is needed for the GPU cases)")
    return "cuda:0" if request.param == "cuda" else "cpu"


@pytest.fixture(autouse=True)
def _on_device(request):
    """Every test runs on the test device: it is framework's default device for the test's duration."""
    import framework

    if request.node.get_closest_marker("explicit_device"):
        yield
        return
    dev = request.getfixturevalue("device")
    framework.set_default_device(dev)
    if torch_on_gpu():  # torch's side of the comparisons runs on the same GPU
        import torch  # optional: the test oracle

        torch.set_default_device("cuda")
    try:
        yield
    finally:
        framework.set_default_device("cpu")
        if torch_on_gpu():
            torch.set_default_device("cpu")


@pytest.fixture(autouse=True)
def _seed():
    import framework

    framework.manual_seed(0)
    np.random.seed(0)
    yield


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def torch_device(device, torch):
    """Where torch's reference tensors go: the same GPU when torch has CUDA, else the CPU (compared after .cpu())."""
    return "cuda" if device != "cpu" and torch_on_gpu() else "cpu"
