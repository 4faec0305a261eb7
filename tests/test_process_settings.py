"""Process-wide switches torch scripts call: interop threads, flush-denormal, warn-always, the deterministic debug
mode and the deprecated set_default_tensor_type; against torch, each test restoring what it changed."""
import warnings

import pytest

import framework
from framework import settings
from scenario import outcome


@pytest.fixture
def restore():
    saved = dict(settings._state), framework.get_default_dtype()
    yield
    settings._state.clear()
    settings._state.update(saved[0])
    framework.set_default_dtype(saved[1])


def test_interop_threads_are_set_once_and_positive(restore):
    settings._state["interop_threads"] = None
    assert framework.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError, match="^set_num_interop_threads expects a positive integer$"):
        framework.set_num_interop_threads(0)
    framework.set_num_interop_threads(3)
    assert framework.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="^Error: cannot set number of interop threads after parallel work"):
        framework.set_num_interop_threads(4)


def test_interop_thread_errors_are_torchs():
    torch = pytest.importorskip("torch")
    assert outcome(lambda m: m.set_num_interop_threads(0), framework) == \
        outcome(lambda m: m.set_num_interop_threads(0), torch)


def test_flush_denormal_reports_what_is_in_effect():
    """Turning flushing off succeeds (denormals are kept), turning it on cannot (NumPy cannot flush them)."""
    assert framework.set_flush_denormal(False) is True
    assert framework.set_flush_denormal(True) is False
    tiny = framework.tensor([1e-310], dtype=framework.float64)
    assert (tiny * 0.5).item() != 0.0  # still a denormal, as the False above says


def test_warn_always_flag(restore):
    torch = pytest.importorskip("torch")
    assert framework.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    framework.set_warn_always(True)
    assert framework.is_warn_always_enabled() is True
    framework.set_warn_always(False)
    assert framework.is_warn_always_enabled() is False


@pytest.mark.parametrize("mode", [0, 1, 2, "default", "warn", "error"])
def test_deterministic_debug_mode_as_torch(mode, restore):
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        before = (m.are_deterministic_algorithms_enabled(), m.is_deterministic_algorithms_warn_only_enabled())
        try:
            m.set_deterministic_debug_mode(mode)
            outs.append((m.get_deterministic_debug_mode(), m.are_deterministic_algorithms_enabled(),
                         m.is_deterministic_algorithms_warn_only_enabled()))
        finally:
            m.use_deterministic_algorithms(*before[:1], warn_only=before[1])
    assert outs[0] == outs[1]


def test_debug_mode_follows_use_deterministic_algorithms(restore):
    framework.use_deterministic_algorithms(True, warn_only=True)
    assert framework.get_deterministic_debug_mode() == 1
    framework.use_deterministic_algorithms(True)
    assert framework.get_deterministic_debug_mode() == 2
    framework.use_deterministic_algorithms(False)
    assert framework.get_deterministic_debug_mode() == 0


@pytest.mark.parametrize("bad", ["x", 3, 1.0])
def test_deterministic_debug_mode_errors_are_torchs(bad):
    torch = pytest.importorskip("torch")
    assert outcome(lambda m: m.set_deterministic_debug_mode(bad), framework) == \
        outcome(lambda m: m.set_deterministic_debug_mode(bad), torch)


TENSOR_TYPES = {
    "DoubleTensor": lambda m: m.DoubleTensor, "FloatTensor": lambda m: m.FloatTensor,
    "double_string": lambda m: "torch.DoubleTensor", "LongTensor": lambda m: m.LongTensor,
    "dtype_object": lambda m: m.float64,
}


@pytest.mark.parametrize("name", sorted(TENSOR_TYPES))
def test_set_default_tensor_type_as_torch(name, restore):
    torch = pytest.importorskip("torch")
    outs = []
    for m in (framework, torch):
        before = m.get_default_dtype()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = outcome(lambda _: m.set_default_tensor_type(TENSOR_TYPES[name](m)), m)
            outs.append((result, str(m.get_default_dtype()).split(".")[-1], str(m.ones(1).dtype).split(".")[-1],
                         [(w.category, str(w.message).split(" (Triggered")[0]) for w in caught]))
        finally:
            m.set_default_dtype(before)
    assert outs[0] == outs[1]
