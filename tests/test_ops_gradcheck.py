"""Every op in the op table passes a float64 numerical gradient check (no torch needed)."""
import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from op_table import EINSUM_OPS, OPS


def make_inputs(case, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = case.domain
    return [rng.uniform(lo, hi, size=s).astype(dtype) for s in case.shapes]


@pytest.mark.parametrize("case", OPS + EINSUM_OPS, ids=[c.name for c in OPS + EINSUM_OPS])
def test_gradcheck(case):
    arrays = make_inputs(case)
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *ts: case.fn(framework, *ts), xs)


def test_gradcheck_catches_a_wrong_backward():
    class BadSquare(framework.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # wrong: should be 2 * g * x

    x = framework.tensor([1.0, 2.0], dtype=framework.float64, requires_grad=True)
    with pytest.raises(AssertionError):
        gradcheck(BadSquare.apply, [x])


@pytest.mark.parametrize("case", OPS, ids=[c.name for c in OPS])
def test_fast_array_backward_equals_tensor_backward(case):
    """Ops may define backward_arrays (used when create_graph=False); it must agree with backward()."""
    arrays = make_inputs(case)
    xs = [framework.tensor(a, dtype=framework.float64, requires_grad=True) for a in arrays]
    out = case.fn(framework, *xs)
    upstream = framework.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
    fast = framework.autograd.grad(out, xs, upstream, retain_graph=True, allow_unused=True)
    reference = framework.autograd.grad(out, xs, upstream, create_graph=True, allow_unused=True)
    for f, r in zip(fast, reference):
        assert (f is None) == (r is None)
        if f is not None:
            framework.testing.assert_close(f, r.detach(), rtol=1e-12, atol=1e-12)


def test_bce_with_logits_fused_gradcheck():
    rng = np.random.default_rng(0)
    x = framework.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    t = framework.tensor(rng.uniform(0, 1, (3, 2)), requires_grad=True)
    w = framework.tensor(rng.uniform(0.5, 2, (2,)), dtype=framework.float64)
    pw = framework.tensor(rng.uniform(0.5, 2, (2,)), dtype=framework.float64)
    F = framework.nn.functional
    for reduction in ("mean", "sum", "none"):
        assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, w, reduction=reduction, pos_weight=pw),
                         [x, t])
        assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), [x, t])


@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (1.5, 1.0)])
def test_softplus_backward_node_gradcheck(beta, threshold):
    """softplus's gradient under create_graph is its own node (SoftplusBackwardBackward0): its derivatives in both
    the incoming gradient and the input, away from the threshold's kink."""
    rng = np.random.default_rng(3)
    x = framework.tensor(rng.uniform(-2, 2, (3, 4)), dtype=framework.float64, requires_grad=True)
    g = framework.tensor(rng.uniform(-1, 1, (3, 4)), dtype=framework.float64, requires_grad=True)

    def grad_of_softplus(g, x):
        y = framework.nn.functional.softplus(x, beta=beta, threshold=threshold)
        return framework.autograd.grad(y, [x], g, create_graph=True)[0]
    assert gradcheck(grad_of_softplus, (g, x))


def test_hardtanh_backward_node_gradcheck():
    """hardtanh's gradient as a node (HardtanhBackwardBackward0): linear in the incoming gradient, flat in the input
    (inputs kept off the bounds)."""
    x = framework.tensor([-1.5, -0.5, 0.2, 0.7, 1.6], dtype=framework.float64, requires_grad=True)
    g = framework.tensor([0.3, -1.1, 0.8, 2.0, -0.4], dtype=framework.float64, requires_grad=True)

    def grad_of_hardtanh(g, x):
        return framework.autograd.grad(framework.nn.functional.hardtanh(x), [x], g, create_graph=True)[0]
    assert gradcheck(grad_of_hardtanh, (g, x))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_backward_node_gradcheck(reduction):
    """nll_loss's gradient as a node (NllLossBackwardBackward0): linear in the incoming gradient, flat in the input."""
    rng = np.random.default_rng(5)
    x = framework.tensor(rng.normal(size=(4, 3)), dtype=framework.float64, requires_grad=True)
    target, weight = framework.tensor([0, 2, 1, 2]), framework.tensor([0.5, 1.5, 2.0], dtype=framework.float64)
    shape = (4,) if reduction == "none" else ()
    g = framework.tensor(rng.normal(size=shape), dtype=framework.float64, requires_grad=True)

    def grad_of_nll(g, x):
        loss = framework.nn.functional.nll_loss(x, target, weight=weight, reduction=reduction)
        return framework.autograd.grad(loss, [x], g, create_graph=True)[0]
    assert gradcheck(grad_of_nll, (g, x))


def _grad_of(call):
    """The create_graph gradient of ``call``'s output as a function of (incoming gradient, input)."""
    def grad_of(g, *xs):
        return framework.autograd.grad(call(*xs), list(xs), g, create_graph=True)
    return grad_of


@pytest.mark.parametrize("name", ["glu", "logsigmoid", "soft_margin_mean", "soft_margin_none", "mse_mean",
                                  "huber_mean", "smooth_l1_sum", "det", "bilinear"])
def test_double_backward_node_gradcheck(name):
    """The create_graph gradients that are nodes of their own (GluBackwardBackward0, LogSigmoidBackwardBackward0,
    SoftMarginLossBackwardBackward0, MseLossBackwardBackward0, HuberLossBackwardBackward0, det's solve form,
    bilinear's _trilinear): their derivatives in the incoming gradient and in the inputs, numerically (no torch).
    (det's SVD form at a singular matrix is compared with torch's in test_exact_fuzz_causes: finite differences
    there step onto matrices whose det is exactly 0 or 1e-21, too ill-conditioned for a numerical check.)"""
    F = framework.nn.functional
    rng = np.random.default_rng(7)

    def t(*shape, lo=-2.0, hi=2.0):
        return framework.tensor(rng.uniform(lo, hi, shape), dtype=framework.float64, requires_grad=True)
    target = framework.tensor(rng.uniform(-2, 2, (3, 4)), dtype=framework.float64)
    sign = framework.tensor(np.sign(rng.uniform(-1, 1, (3, 4))), dtype=framework.float64)
    calls = {
        "glu": (lambda x: F.glu(x, 1), [t(3, 4)], (3, 2)),
        "logsigmoid": (F.logsigmoid, [t(3, 4)], (3, 4)),
        "soft_margin_mean": (lambda x: F.soft_margin_loss(x, sign), [t(3, 4)], ()),
        "soft_margin_none": (lambda x: F.soft_margin_loss(x, sign, reduction="none"), [t(3, 4)], (3, 4)),
        "mse_mean": (lambda x, y: F.mse_loss(x, y), [t(3, 4), t(3, 4)], ()),
        # (inputs kept off the kink at |x - y| = delta)
        "huber_mean": (lambda x: F.huber_loss(x, target, delta=10.0), [t(3, 4)], ()),
        "smooth_l1_sum": (lambda x: F.smooth_l1_loss(x, target, beta=10.0, reduction="sum"), [t(3, 4)], ()),
        "det": (framework.det, [t(2, 3, 3)], (2,)),
        "bilinear": (lambda a, b, w: F.bilinear(a, b, w), [t(5, 3), t(5, 4), t(2, 3, 4)], (5, 2)),
    }
    call, xs, out_shape = calls[name]
    g = framework.tensor(rng.uniform(-1, 1, out_shape), dtype=framework.float64, requires_grad=True)
    assert gradcheck(_grad_of(call), [g] + xs)
