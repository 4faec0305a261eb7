"""Shared fixtures: plots go to files (Agg), a fixed seed per test, torch imported only when present."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))  # op_table.py and scenario.py sit beside the tests

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _seed():
    import framework

    framework.manual_seed(0)
    np.random.seed(0)
    yield


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _cuda_available() -> bool:
    import framework

    return framework.cuda.is_available()


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """Runs a test on the CPU and on a GPU; the GPU case skips, with its reason, where there is none.
    FRAMEWORK_TEST_DEVICE=cuda makes the CPU case run on the GPU too (the whole suite on the GPU)."""
    wanted = request.param
    if os.environ.get("FRAMEWORK_TEST_DEVICE") == "cuda":
        wanted = "cuda"
    if wanted == "cuda" and not _cuda_available():
        pytest.skip("no CUDA device (cupy with an NVIDIA GPU is needed for the GPU cases)")
    return "cuda:0" if wanted == "cuda" else "cpu"
