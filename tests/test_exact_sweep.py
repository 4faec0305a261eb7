"""PyTorch-exactness outside the fuzzer's reach (grad modes, .grad assignment, autograd.Function extras, module
hooks, optimizers and schedulers): each scenario runs under framework and torch and must end the same way (a
value, or an error's class and first sentence)."""
from __future__ import annotations

import warnings

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _warnings(fn, m) -> list:
    """The first lines of the warnings fn(m) raises (torch's C++ suffix "(Triggered internally ...)" cut off)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(m)
    return [str(w.message).split(" (Triggered internally")[0].replace("torch.", "framework.") for w in caught]


# ---- grad modes -------------------------------------------------------------------------------------------------

def test_set_grad_enabled_as_decorator_leaves_the_mode_as_it_was():
    def fn(m):
        @m.set_grad_enabled(False)
        def f(x):
            return x * 2
        after_def = m.is_grad_enabled()
        out = f(m.ones(2, requires_grad=True))
        return after_def, out.requires_grad, m.is_grad_enabled()
    try:
        assert _same(fn) == ("ok", (True, False, True))
    finally:
        framework.set_grad_enabled(True)


@pytest.mark.parametrize("outer", ["inference_mode", "no_grad", "none"])
def test_inference_mode_false_turns_grad_mode_on_and_inference_off(outer):
    def fn(m):
        ctx = {"inference_mode": m.inference_mode, "no_grad": m.no_grad}.get(outer)
        with ctx() if ctx else m.enable_grad():
            with m.inference_mode(False):
                x = m.ones(2)
                inner = (m.is_grad_enabled(), m.is_inference_mode_enabled(), x.is_inference())
            return inner, m.is_grad_enabled(), m.is_inference_mode_enabled()
    _same(fn)
