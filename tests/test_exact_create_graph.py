"""PyTorch-exactness, round two of the create_graph family (issue 15): causes the fuzzer (tests/fuzz.py) found in
`--seed 0`, each checked against torch: grad_fn names and requires_grad of create_graph gradients, and graphs.
"""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck

torch = pytest.importorskip("torch")


def _graph(f) -> str:
    """The node names of a graph, nested: 'TransposeBackward0(UnsafeViewBackward0(...))'."""
    if f is None:
        return "-"
    kids = ",".join(_graph(n) for n, _ in f.next_functions)
    return type(f).__name__ + (f"({kids})" if kids else "")


def _np(t) -> np.ndarray:
    """t's values as a NumPy array (from the device under FRAMEWORK_TEST_DEVICE; force: torch's second
    derivatives may be ZeroTensors, which numpy() refuses otherwise)."""
    return t.detach().cpu().numpy(force=True)


def _meta(t) -> tuple:
    """What the fuzzer compares of a tensor besides its values."""
    return (tuple(t.shape), t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__)


def _both(fn):
    """fn(m) under framework and torch: the two results (equal metadata asserted by the caller)."""
    return fn(framework), fn(torch)


@pytest.mark.parametrize("shapes", [((1, 4, 2), (4, 2, 1)), ((1, 4, 2), (3, 2, 5)), ((3, 4, 2), (1, 2, 5)),
                                    ((1, 4, 2), (1, 2, 5)), ((1, 1, 4, 2), (4, 2, 1)), ((1, 4, 2), (2, 3, 2, 5))])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_matmul_squeezes_a_single_batch_that_requires_grad(shapes, needs):
    """3-D @ 3-D where one side's batch is 1 and it requires grad: ATen squeezes it and folds into one mm (the
    fuzzer's seed 1879: TransposeBackward0 over UnsafeViewBackward0 over MmBackward0, not a bmm)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]

    def fn(m):
        a, b = (m.tensor(x, requires_grad=r) for x, r in zip(arrays, needs))
        out = a @ b
        out.sum().backward()
        return _graph(out.grad_fn), _np(out), a.grad is None, b.grad is None

    ours, theirs = _both(fn)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2:] == theirs[2:]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")  # torch's own warning
@pytest.mark.parametrize("layout", ["expand", "step_slice", "transposed", "contiguous"])
def test_create_graph_first_grad_of_a_leaf_that_is_not_dense_is_a_clone(layout):
    """torch's clone_obey_contract: a leaf's first .grad under create_graph is empty_strided(...).copy_(g)
    (CopyBackwards) when the leaf is non-overlapping and dense, else g.clone() (CloneBackward0; seed 7466: the
    detach of an autograd.grad result that is an expand)."""
    base = np.arange(1.0, 13.0).reshape(3, 4)

    def fn(m):
        x = m.tensor(base, dtype=m.float64)
        leaf = {"expand": x[0].expand(3, 4), "step_slice": x[:, ::2], "transposed": x.t(),
                "contiguous": x}[layout].detach().requires_grad_()
        (leaf * leaf).sum().backward(create_graph=True)
        return _meta(leaf.grad), type(leaf.grad.grad_fn).__name__, _np(leaf.grad).tolist()

    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((), (2, 1))])
def test_maximum_create_graph_gradient_is_masked_fill(op, shapes):
    """torch's formula where(a == b, grad / 2, grad).masked_fill_(lost, 0): under create_graph with a gradient
    that requires grad, each side's gradient is a MaskedFillBackward0 node (seed 9090), then summed to its
    shape; a tie splits it, a NaN gives both sides all of it, and an infinite gradient is 0 where a side lost."""
    rng = np.random.default_rng(1)
    xa, xb = (np.round(rng.standard_normal(s), 0) for s in shapes)  # rounded: some ties

    def fn(m):
        a = m.tensor(xa, dtype=m.float64, requires_grad=True)
        b = m.tensor(xb, dtype=m.float64, requires_grad=True)
        out = getattr(m, op)(a, b)
        w = m.tensor(np.full(out.shape, 1.5), dtype=m.float64, requires_grad=True)
        ga, gb = m.autograd.grad((out * w).sum(), [a, b], create_graph=True)
        second = m.autograd.grad((ga * ga).sum() + gb.sum(), [w])[0]
        return _meta(ga), _meta(gb), _np(ga).tolist(), _np(gb).tolist(), \
            _np(second).tolist()

    ours, theirs = _both(fn)
    assert ours == theirs


def test_maximum_gradient_with_nan_and_inf():
    def fn(m):
        a = m.tensor([1.0, float("nan"), 2.0, 3.0], requires_grad=True)
        b = m.tensor([1.0, 0.0, 5.0, 1.0], requires_grad=True)
        m.maximum(a, b).backward(m.tensor([2.0, 3.0, float("inf"), float("-inf")]))
        return _np(a.grad).tolist(), _np(b.grad).tolist()

    ours, theirs = _both(fn)
    np.testing.assert_array_equal(np.array(ours), np.array(theirs))


def _double_backward_outcome(m, op, arrays, needs):
    """create_graph gradients of sum(op(*inputs) * w) (their metadata and values), then the gradients of a
    function of them (so the double-backward node's own backward runs)."""
    inputs = [m.tensor(x, dtype=m.float64, requires_grad=r) for x, r in zip(arrays, needs)]
    out = op(m, *inputs)
    w = m.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(out.shape), dtype=m.float64, requires_grad=True)
    wanted = [t for t in inputs if t.requires_grad]
    grads = m.autograd.grad((out * w).sum(), wanted, create_graph=True)
    metas = [_meta(g) for g in grads]
    total = sum((g * g).sum() for g in grads if g.requires_grad)
    second = m.autograd.grad(total, wanted + [w], allow_unused=True) if grads[0].requires_grad or \
        any(g.requires_grad for g in grads) else []
    return metas, [_np(g) for g in grads], [None if s is None else _np(s) for s in second]


def _same_double_backward(op, arrays, needs):
    ours, theirs = (_double_backward_outcome(m, op, arrays, needs) for m in (framework, torch))
    assert ours[0] == theirs[0]
    for mine, ref in zip(ours[1:], theirs[1:]):
        assert len(mine) == len(ref)
        for x, y in zip(mine, ref):
            assert (x is None) == (y is None)
            if x is not None:
                np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("slope", [0.2, 0.01, -0.5, 1.5])
def test_leaky_relu_create_graph_gradient_is_its_own_node(slope):
    """torch's leaky_relu_backward(grad, self) under create_graph: LeakyReluBackwardBackward0, which requires
    grad through self even when the incoming gradient does not (seed 2274); its gradient in self is zero."""
    x = np.array([[-0.08, 1.5, -2.0], [0.3, -0.7, 2.5]])
    _same_double_backward(lambda m, a: m.nn.functional.leaky_relu(a, slope), [x], [True])


def test_leaky_relu_inplace_create_graph_gradient():
    def op(m, a):
        return m.nn.functional.leaky_relu(a * 1.0, 0.3, inplace=True)
    _same_double_backward(op, [np.array([-0.5, 0.25, 2.0])], [True])


def test_leaky_relu_double_backward_gradcheck():
    """float64 gradcheck of the create_graph gradient (the LeakyReluBackwardBackward0 node's own backward)."""
    x = framework.tensor([[-0.8, 1.5, -2.0], [0.3, -0.7, 2.5]], dtype=framework.float64, requires_grad=True)
    g = framework.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=framework.float64, requires_grad=True)

    def grad_of(x, g):
        out = framework.nn.functional.leaky_relu(x, 0.2)
        return framework.autograd.grad(out, [x], g, create_graph=True)[0]

    assert gradcheck(grad_of, [x, g])


CONV1D = {
    "batched": lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, stride=2, padding=1),
    "dilated": lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, dilation=2),
    "unbatched": lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, padding=1),
    "conv2d": lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, padding=1),
}


@pytest.mark.parametrize("needs", [(True, True, False), (True, False, False), (False, True, True), (True, True, True)])
@pytest.mark.parametrize("kind", list(CONV1D))
def test_conv1d_create_graph_gradient_is_a_convolution_backward_node(kind, needs):
    """conv1d's create_graph gradients are one ConvolutionBackwardBackward0 node, as conv2d's (seed 3175: the
    input's gradient requires grad through the weight), with torch's second derivatives: None (allow_unused) for
    an input no term reaches (x's needs the weight gradient's gradient, as torch's formula)."""
    rng = np.random.default_rng(2)
    x_shape = {"unbatched": (3, 7), "conv2d": (2, 3, 5, 4)}.get(kind, (2, 3, 7))
    arrays = [rng.standard_normal(x_shape), rng.standard_normal((4, 3, 3) + ((2,) if kind == "conv2d" else ())),
              rng.standard_normal(4)]
    _same_double_backward(CONV1D[kind], arrays, needs)


def test_conv1d_double_backward_gradcheck():
    rng = np.random.default_rng(3)
    x, w, g = (framework.tensor(rng.standard_normal(s), dtype=framework.float64, requires_grad=True)
               for s in [(2, 2, 6), (3, 2, 3), (2, 3, 3)])

    def grads_of(x, w, g):
        out = framework.nn.functional.conv1d(x, w, stride=2, padding=1)
        return framework.autograd.grad(out, [x, w], g, create_graph=True)

    assert gradcheck(grads_of, [x, w, g])


# op-table rows whose create_graph gradient had no grad_fn or another node than torch's (the create_graph survey)
SURVEY_ROWS = ["leaky_relu", "elu", "elu_inplace", "smooth_l1_loss", "smooth_l1_loss_sum",
               "smooth_l1_loss_none", "huber_loss", "huber_loss_none", "norm_inf", "baddbmm", "addmm_scaled",
               "addcdiv", "addcdiv_", "pow_tensor", "conv1d", "conv1d_dilated", "conv1d_unbatched", "maximum",
               "remainder", "remainder_neg", "fmod", "max_pool2d", "avg_pool2d", "max_pool1d", "max_pool1d_pad",
               "avg_pool1d", "pad_reflect1d", "pad_reflect2d", "pad_replicate1d", "pad_replicate2d",
               "adaptive_avg_pool2d", "adaptive_avg_pool2d_3d", "prelu", "prelu_single", "conv_transpose2d",
               "group_norm", "group_norm_plain",
               # where the incoming gradient requires grad too: torch's formulas' last ops
               "mean", "mean_dim", "adaptive_avg_pool2d_global", "clamp", "clamp_min", "where", "where_scalar_other",
               "where_scalar_self", "masked_fill", "lerp", "lerp_", "lerp_high", "interpolate_nearest",
               "interpolate_nearest1d", "interpolate_bilinear", "interpolate_bilinear_corners", "interpolate_linear",
               "max", "min", "median", "max_dim", "min_dim_keepdim", "median_dim", "median_keepdim", "mode_last",
               "topk", "topk_smallest", "sort", "sort_descending", "scatter", "cumsum", "getitem_int", "getitem_slice",
               "getitem_mixed", "getitem_list", "getitem_bool", "getitem_adv_2d", "narrow", "select", "index_select",
               "embedding_padding_idx", "repeat_interleave_tensor", "take", "as_strided", "as_strided_overlap",
               "as_strided_of_view", "trace"]


@pytest.mark.parametrize("name", SURVEY_ROWS)
def test_create_graph_gradients_of_op_table_rows(name):
    """Each input's create_graph gradient has torch's grad_fn and requires_grad, and differentiating a function
    of the gradients gives torch's second derivatives (None where torch's is None)."""
    from op_table import OPS

    case = next(c for c in OPS if c.name == name)
    rng = np.random.default_rng(4)
    arrays = [rng.uniform(*case.domain, size=s) for s in case.shapes]
    _same_double_backward(case.fn, arrays, [True] * len(arrays))


def test_smooth_l1_and_huber_double_backward_gradcheck():
    rng = np.random.default_rng(5)
    for loss in (lambda a, b: framework.nn.functional.smooth_l1_loss(a, b, beta=0.5),
                 lambda a, b: framework.nn.functional.huber_loss(a, b, reduction="sum", delta=0.7)):
        x, t = (framework.tensor(rng.uniform(-2, 2, (3, 4)), dtype=framework.float64, requires_grad=True)
                for _ in range(2))
        g = framework.tensor(0.75, dtype=framework.float64, requires_grad=True)

        def grads_of(x, t, g):
            return framework.autograd.grad(loss(x, t), [x, t], g, create_graph=True)

        assert gradcheck(grads_of, [x, t, g])


def test_elu_double_backward_gradcheck():
    x = framework.tensor([[-0.8, 1.5, -2.0], [0.3, -0.7, 2.5]], dtype=framework.float64, requires_grad=True)
    g = framework.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=framework.float64, requires_grad=True)
    for inplace in (False, True):
        def grad_of(x, g):
            out = framework.nn.functional.elu(x * 1.0, alpha=0.7, inplace=inplace)
            return framework.autograd.grad(out, [x], g, create_graph=True)[0]

        assert gradcheck(grad_of, [x, g])


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_hardsigmoid_create_graph_gradient_is_not_implemented(scale):
    """torch has no derivative for hardsigmoid_backward: the create_graph gradient requires grad with a
    NotImplemented node (name() torch::autograd::NotImplemented), and differentiating it raises (seed 2666)."""
    def fn(m):
        x = m.tensor([[0.5, -4.0, 2.9], [3.5, -1.0, 0.0]], requires_grad=True)
        gx, = m.autograd.grad(m.nn.functional.hardsigmoid(x * scale).sum(), [x], create_graph=True)
        try:
            m.autograd.grad(gx.sum(), [x])
            error = None
        except RuntimeError as e:
            error = str(e)
        return (_meta(gx), gx.grad_fn.name(), repr(gx.grad_fn).split(" object")[0], str(gx).split("grad_fn=")[1],
                _np(gx).tolist(), error)

    ours, theirs = _both(fn)
    assert ours == theirs


def test_not_implemented_node_class_and_name():
    """torch's C++ NotImplemented node: the class is NotImplemented (what str() and repr() show), name() is
    torch::autograd::NotImplemented (floor_divide has no derivative)."""
    def fn(m):
        y = m.floor_divide(m.tensor([1.5, -3.0], requires_grad=True), 2.0)
        return type(y.grad_fn).__name__, y.grad_fn.name(), repr(y.grad_fn).split(" object")[0], \
            str(y).split("grad_fn=")[1]

    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_div_rounding_mode_values_and_graph(mode, dtype):
    """div(rounding_mode=...) is differentiable with zero gradients (DivBackward2), floor with floor_divide's
    rounding; integers stay integers (torch's div_floor / div_trunc)."""
    xa = np.array([[7.0, -7.0, 0.5, -0.5], [6.0, -6.0, 1e-3, 9.0]])
    xb = np.array([2.0, 3.0, -0.7, 4.0])

    def fn(m):
        dt = getattr(m, dtype)
        floating = dtype != "int64"
        a = m.tensor(xa, dtype=dt, requires_grad=floating)
        b = m.tensor(xb if floating else np.where(xb == -0.7, -3.0, xb), dtype=dt, requires_grad=floating)
        q = m.div(a, b, rounding_mode=mode)
        grads = [g.tolist() for g in m.autograd.grad(q.sum(), [a, b])] if floating else None
        return _meta(q), str(q.dtype).split(".")[-1], _np(q).tolist(), grads

    ours, theirs = _both(fn)
    assert ours == theirs


def test_div_rounding_mode_error():
    for m in (framework, torch):
        with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                               "but found 'round'"):
            m.div(m.ones(2), 2, rounding_mode="round")


@pytest.mark.parametrize("with_bias", [False, True])
def test_conv_transpose2d_double_backward_gradcheck(with_bias):
    rng = np.random.default_rng(6)
    x, w, b, g = (framework.tensor(rng.standard_normal(s), dtype=framework.float64, requires_grad=True)
                  for s in [(2, 2, 3, 3), (2, 3, 2, 2), (3,), (2, 3, 5, 5)])

    def grads_of(x, w, b, g):
        out = framework.nn.functional.conv_transpose2d(x, w, b if with_bias else None, stride=2, padding=1,
                                                       output_padding=1)
        return framework.autograd.grad(out, [x, w, b] if with_bias else [x, w], g, create_graph=True)

    assert gradcheck(grads_of, [x, w, b, g])


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "pad_reflect2d", "adaptive_avg_pool2d", "prelu",
                                  "group_norm", "group_norm_plain",
               # where the incoming gradient requires grad too: torch's formulas' last ops
               "mean", "mean_dim", "adaptive_avg_pool2d_global", "clamp", "clamp_min", "where", "where_scalar_other",
               "where_scalar_self", "masked_fill", "lerp", "lerp_", "lerp_high", "interpolate_nearest",
               "interpolate_nearest1d", "interpolate_bilinear", "interpolate_bilinear_corners", "interpolate_linear",
               "max", "min", "median", "max_dim", "min_dim_keepdim", "median_dim", "median_keepdim", "mode_last",
               "topk", "topk_smallest", "sort", "sort_descending", "scatter", "cumsum", "getitem_int", "getitem_slice",
               "getitem_mixed", "getitem_list", "getitem_bool", "getitem_adv_2d", "narrow", "select", "index_select",
               "embedding_padding_idx", "repeat_interleave_tensor", "take", "as_strided", "as_strided_overlap",
               "as_strided_of_view", "trace"])
def test_pool_pad_prelu_double_backward_gradcheck(name):
    """The new double-backward nodes' own backward, by central differences (no torch)."""
    from op_table import OPS

    case = next(c for c in OPS if c.name == name)
    rng = np.random.default_rng(7)
    xs = [framework.tensor(rng.uniform(*case.domain, size=s), dtype=framework.float64, requires_grad=True)
          for s in case.shapes]
    g = framework.tensor(rng.standard_normal(tuple(case.fn(framework, *xs).shape)), dtype=framework.float64,
                         requires_grad=True)

    def grads_of(g, *xs):
        return framework.autograd.grad(case.fn(framework, *xs), list(xs), g, create_graph=True)

    assert gradcheck(grads_of, [g, *xs])


def test_hooks_of_a_node_backward_neither_runs_nor_captures_do_not_fire():
    """torch's engine never evaluates a node that leads to no input of autograd.grad / backward(inputs=) and is
    not captured: a retain_grad or register_hook there does not fire (fuzz seed 1764: t2.grad stayed None)."""
    def fn(m):
        a = m.tensor(-1.62, dtype=m.float64, requires_grad=True)
        b = m.tensor(-0.02, dtype=m.float64, requires_grad=True)
        c = m.neg(a)
        c.retain_grad()
        seen = []
        c.register_hook(lambda g: seen.append("c"))
        a.register_hook(lambda g: seen.append("a"))
        gb, = m.autograd.grad(m.atan2(c, b).sum(), [b])
        b.backward(inputs=[c], retain_graph=True)
        m.atan2(c, b).sum().backward(inputs=[b])
        return c.grad is None, a.grad is None, seen, float(gb), float(b.grad)

    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("name", ["as_strided", "as_strided_overlap", "take", "trace"])
def test_as_strided_and_take_double_backward_gradcheck(name):
    """as_strided's and take's create_graph gradients are nodes (AsStridedBackward0, PutBackward0) whose own
    backward maps back: a second derivative in the incoming gradient, by central differences."""
    from op_table import OPS

    case = next(c for c in OPS if c.name == name)
    rng = np.random.default_rng(8)
    x = framework.tensor(rng.uniform(-2, 2, case.shapes[0]), dtype=framework.float64, requires_grad=True)
    g = framework.tensor(rng.standard_normal(tuple(case.fn(framework, x).shape)), dtype=framework.float64,
                         requires_grad=True)

    def grad_of(g, x):
        return framework.autograd.grad(case.fn(framework, x), [x], g, create_graph=True)[0]

    assert gradcheck(grad_of, [g, x])


def test_a_sole_root_fires_its_hooks_even_when_it_leads_to_no_input():
    """One root tensor is torch's graph root: always evaluated, so its retain_grad fires though it leads to no
    input (fuzz seed 4555); its function does not run (a second backward still works). Several roots go through a
    GraphRoot whose edges are filtered: their hooks do not fire."""
    def fn(m):
        x = m.tensor([0.31, -1.29], dtype=m.float64, requires_grad=True)
        z = m.tensor(3.0, dtype=m.float64, requires_grad=True)
        y = m.cat([x, x])
        y.retain_grad()
        y.backward(m.ones(4, dtype=m.float64), inputs=[z])
        y.backward(m.ones(4, dtype=m.float64))  # y's node did not run: not freed
        y1, y2 = x * 2, x * 3
        y1.retain_grad()
        y2.retain_grad()
        m.autograd.backward([y1, y2], [m.ones(2, dtype=m.float64)] * 2, inputs=[z])
        return _np(y.grad).tolist(), _np(x.grad).tolist(), y1.grad is None, y2.grad is None, z.grad is None

    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("needs", [(False, True, False), (False, True, True), (False, False, True), (True, True, False)])
def test_group_norm_weight_gradient_requires_grad_through_the_saved_stats(needs):
    # torch's create_graph backward reads mean and rstd, outputs of the forward node: they require grad whenever
    # an input does, so weight's gradient does even when x needs none (its own second derivative is then None)
    def run(m):
        x, w, b = (m.tensor(a, dtype=m.float64, requires_grad=r) for a, r in zip(
            (np.linspace(-1, 1, 24).reshape(2, 4, 3), [1.0, 2.0, 0.5, -1.0], [0.1, 0.2, 0.3, 0.4]), needs))
        cot = m.tensor(np.linspace(0.5, 2, 24).reshape(2, 4, 3), dtype=m.float64)  # needs no grad
        wanted = [t for t in (x, w, b) if t.requires_grad]
        grads = m.autograd.grad((m.nn.functional.group_norm(x, 2, w, b) * cot).sum(), wanted, create_graph=True)
        total = sum((g * g).sum() for g in grads if g.requires_grad)
        second = m.autograd.grad(total, wanted, allow_unused=True) if isinstance(total, m.Tensor) else []
        return [_meta(g) for g in grads], [None if s is None else _np(s).round(9).tolist() for s in second]

    ours, theirs = _both(run)
    assert ours == theirs
