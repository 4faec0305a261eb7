"""Shared fixtures: plots go to files (Agg), a fixed seed per test, torch imported only when present."""
import sys, os
sys.path.insert(0, os.path.dirname(__file__))
import os

import numpy as np
import pytest

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
