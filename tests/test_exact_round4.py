"""PyTorch-exactness, causes found by the fuzzer (tests/fuzz.py) over the ops added after the issue-15 fixes: each
scenario runs under framework and torch and must end the same way (a value, or an error's class and first sentence).
"""
from __future__ import annotations

import itertools

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")

MIXES3 = ["".join(c) for c in itertools.product("fd", repeat=3)]


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _dt(m, code):
    return {"f": m.float32, "d": m.float64, "h": m.float16}[code]


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("self_shape", [(4,), (3, 4), (5,)])
@pytest.mark.parametrize("mix", MIXES3)
def test_addmm_dtype_checks_come_first_self_then_mat1(mix, self_shape, scaled):
    """torch checks self against mat2, then mat1 against mat2, before any shape (a (5,) self does not expand)."""
    def fn(m):
        a, b, c = (m.ones(s, dtype=_dt(m, k)) for s, k in zip((self_shape, (3, 2), (2, 4)), mix))
        return _dtype_name(a.addmm(b, c, beta=0.5, alpha=-2.0) if scaled else m.addmm(a, b, c))
    _same(fn)


@pytest.mark.parametrize("weight_shape", [(4,), (), (5,)])
@pytest.mark.parametrize("mix", MIXES3)
def test_lerp_tensor_weight_dtype(mix, weight_shape):
    """a weight of another dtype is an error unless it is 0-dim; end's dtype is checked first."""
    def fn(m):
        a, e, w = (m.ones(s, dtype=_dt(m, k)) for s, k in zip(((3, 4), (3, 4), weight_shape), mix))
        return _dtype_name(m.lerp(a, e, w))
    _same(fn)


@pytest.mark.parametrize("params", ["both", "weight", "bias", "bad_weight", "bad_bias", "bad_bias_only"])
@pytest.mark.parametrize("mix", ["".join(c) for c in itertools.product("fdh", repeat=3)])
def test_group_norm_parameter_checks(mix, params):
    """shapes first (a wrong bias is reported with weight's shape, as torch does), then torch's CPU mixed-dtype rules:
    a first parameter of another dtype than the input wants float parameters and a half input."""
    def fn(m):
        x, w, b = m.ones(2, 4, 3, dtype=_dt(m, mix[0])), m.ones(4, dtype=_dt(m, mix[1])), m.ones(4, dtype=_dt(m, mix[2]))
        w = {"bias": None, "bad_bias_only": None, "bad_weight": m.ones(5, dtype=_dt(m, mix[1]))}.get(params, w)
        b = {"weight": None, "bad_bias": m.ones(3, dtype=_dt(m, mix[2])),
             "bad_bias_only": m.ones(3, dtype=_dt(m, mix[2]))}.get(params, b)
        return _dtype_name(m.nn.functional.group_norm(x, 2, w, b))
    _same(fn)


CONVS = {  # name: (call, input and weight shapes): batch > 1, 4x4 filters or a large input take MKLDNN in torch
    "conv1d_batch2": (lambda m, x, w: m.nn.functional.conv1d(x, w, stride=2, padding=1), [(2, 3, 7), (4, 3, 3)]),
    "conv1d_batch1": (lambda m, x, w: m.nn.functional.conv1d(x, w, dilation=2, padding="same"),
                      [(1, 2, 6), (3, 2, 3)]),
    "conv1d_unbatched": (lambda m, x, w: m.nn.functional.conv1d(x, w), [(2, 5), (3, 2, 2)]),
    "conv1d_large": (lambda m, x, w: m.nn.functional.conv1d(x, w), [(1, 2, 10241), (3, 2, 2)]),
    "conv2d_batch2": (lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), [(2, 2, 5, 4), (3, 2, 3, 3)]),
    "conv2d_batch1": (lambda m, x, w: m.nn.functional.conv2d(x, w), [(1, 3, 5, 5), (4, 3, 3, 3)]),
    "conv2d_4x4": (lambda m, x, w: m.nn.functional.conv2d(x, w), [(1, 3, 5, 5), (4, 3, 4, 4)]),
    "conv2d_4x1": (lambda m, x, w: m.nn.functional.conv2d(x, w), [(1, 3, 5, 5), (4, 3, 4, 1)]),
    "conv_transpose2d_batch1": (lambda m, x, w: m.nn.functional.conv_transpose2d(x, w, stride=2, padding=1),
                                [(1, 2, 3, 3), (2, 3, 3, 3)]),
    "conv_transpose2d_batch2": (lambda m, x, w: m.nn.functional.conv_transpose2d(x, w, stride=2, padding=1),
                                [(2, 2, 3, 3), (2, 3, 3, 3)]),
}


@pytest.mark.parametrize("mix", ["fd", "df"])
@pytest.mark.parametrize("name", list(CONVS))
def test_conv_weight_dtype_text_follows_torchs_backend(name, mix):
    """a float32 input torch hands to MKLDNN gets MKLDNN's text for a weight of another dtype; others the native
    kernel's 'expected scalar type'."""
    call, shapes = CONVS[name]
    _same(lambda m: _dtype_name(call(m, *(m.ones(s, dtype=_dt(m, k)) for s, k in zip(shapes, mix)))))


def test_conv1d_bias_dtype_is_checked_before_the_weight():
    def fn(m):
        x, w, b = m.ones(2, 3, 7), m.ones(4, 3, 3, dtype=m.float64), m.ones(4, dtype=m.float64)
        return _dtype_name(m.nn.functional.conv1d(x, w, b))
    _same(fn)
