"""PyTorch-exactness, causes found by the fuzzer (tests/fuzz.py) over the ops added after the issue-15 fixes: each
scenario runs under framework and torch and must end the same way (a value, or an error's class and first sentence).
"""
from __future__ import annotations

import itertools

import numpy as np
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


@pytest.mark.parametrize("needs", ["weight", "input", "end"])
def test_lerp_tensor_weight_is_saved_whatever_needs_grad(needs):
    """torch's LerpBackward1 saves the weight always: changing it in place then raises at backward."""
    def fn(m):
        a, e, w = m.ones(3, 4), m.zeros(3, 4), m.full((4,), 0.25)
        {"weight": w, "input": a, "end": e}[needs].requires_grad_()
        out = m.lerp(a, e, w)
        with m.no_grad():
            w.mul_(2)
        out.sum().backward()
        return "ok"
    _same(fn)


def test_softplus_double_backward_nodes_and_values():
    """under create_graph softplus's gradient is one SoftplusBackwardBackward0 node; its own gradient is torch's
    softplus_double_backward (a Scalar mul last, 0 where beta a >= threshold), to the third order."""
    def fn(m):
        x = m.tensor([[-1.2, 1.31, -0.65, 25.0], [-0.39, 0.32, 4.0 / 3, 1.43]], dtype=m.float64, requires_grad=True)
        y = m.nn.functional.softplus(x, beta=1.5, threshold=2.0)
        g, = m.autograd.grad(y.sum(), [x], create_graph=True)
        h, = m.autograd.grad((g * g).sum(), [x], create_graph=True)
        k, = m.autograd.grad(h.sum(), [x])
        names = [type(t.grad_fn).__name__ for t in (g, h)]
        return names, [[[round(v, 10) for v in row] for row in t.detach().tolist()] for t in (g, h, k)]
    _same(fn)


@pytest.mark.parametrize("write", ["masked_fill_", "mul_"])
def test_regenerated_overlapping_as_strided_view_accumulates_its_gradient(write):
    """after a no_grad write the view's grad_fn is AsStridedBackward0: elements it shows several times (an
    overlapping as_strided, no stride 0) get the sum of their gradients."""
    def fn(m):
        x = m.tensor([[float(4 * i + j) for j in range(4)] for i in range(3)], dtype=m.float64, requires_grad=True)
        v = m.as_strided(x, (3, 3), (1, 1), 2)
        with m.no_grad():
            v.masked_fill_(v > 100, 0.0) if write == "masked_fill_" else v.mul_(1.0)
        v.sum().backward()
        return type(v.grad_fn).__name__, x.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("offset_by", ["slice", "storage_offset"])
def test_partial_overlap_is_seen_through_as_strided(offset_by):
    def fn(m):
        a = m.arange(12.0).reshape(3, 4) * 1
        v = a[1:].as_strided((2, 3), (3, 1)) if offset_by == "slice" else a.as_strided((2, 3), (3, 1), 4)
        v.add_(v[1:])
        return a.tolist()
    _same(fn)


@pytest.mark.parametrize("call", ["relu6", "hardtanh", "hardtanh_"])
def test_hardtanh_gradient_under_create_graph_is_its_own_node(call):
    """torch's hardtanh_backward is a node (HardtanhBackwardBackward0) with an edge to the input: the gradient
    requires grad even though its derivative in the input is zero."""
    def fn(m):
        x = m.tensor([-0.5, 0.2, 1.7, -2.0, 0.9], dtype=m.float64, requires_grad=True)
        F = m.nn.functional
        y = {"relu6": lambda: F.relu6(x * 4), "hardtanh": lambda: F.hardtanh(x),
             "hardtanh_": lambda: F.hardtanh(x * 1, inplace=True)}[call]()
        g, = m.autograd.grad(y.sum(), [x], create_graph=True)
        h, = m.autograd.grad((g * g).sum(), [x], allow_unused=True)
        return type(g.grad_fn).__name__, g.requires_grad, g.tolist(), h.tolist()
    _same(fn)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 3, 2, 2), (2, 3, 5)])
def test_nll_loss_gradient_under_create_graph_is_its_own_node(shape, reduction):
    """torch's nll_loss_backward is a node (NllLossBackwardBackward0 / NllLoss2DBackwardBackward0) with edges to the
    incoming gradient and the input: the gradient requires grad; its own gradient is the loss of the incoming
    gradient, and zero in the input."""
    def fn(m):
        x = m.tensor([[float((7 * i) % 5) - 2.0] for i in range(int(np.prod(shape)))], dtype=m.float64)
        x = x.reshape(shape).requires_grad_()
        n = shape[0] if len(shape) > 1 else None
        rest = shape[2:] if len(shape) > 2 else ()
        t = m.tensor(np.arange(int(np.prod((n,) + rest)) if n else 1).reshape((n,) + rest if n else ()) % 3)
        loss = m.nn.functional.nll_loss(x, t, weight=m.tensor([0.5, 1.5, 2.0], dtype=m.float64), reduction=reduction)
        gg = m.ones(loss.shape, dtype=m.float64, requires_grad=True) * 1.5
        g, = m.autograd.grad(loss, [x], gg, create_graph=True)
        hx, hg = m.autograd.grad((g * x).sum(), [x, gg])
        values = [np.round(np.asarray(t.tolist()), 12).tolist() for t in (g, hx, hg)]  # torch's -w g / total: an ulp
        return type(g.grad_fn).__name__, g.requires_grad, values
    _same(fn)
