"""PyTorch-exactness of the engine, gradients and op texts (issue 15's fuzzer causes): each scenario runs under
framework and torch and must end the same way (values, node names, flags, or an error's class and first sentence)."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.testing import gradcheck
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _arr(t) -> list:
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64).round(6).tolist()


def _node(t) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# ---- silent wrong results ---------------------------------------------------------------------------------------

def test_retain_grad_hook_moves_to_the_grad_fn_of_an_in_place_op():
    """t3.retain_grad(), then sigmoid_(t3): a later backward through t3's *old* node must not fill t3.grad."""
    def fn(m):
        t0 = m.tensor([-1.15], requires_grad=True)
        t3 = m.sin(t0)
        t3.retain_grad()
        t5 = t3 + 0.5
        m.sigmoid_(t3)
        t5.backward(m.tensor([1.51]), retain_graph=True)
        first = None if t3.grad is None else _arr(t3.grad)
        (t3 * 2).sum().backward()  # through the new node: now it does
        return first, _arr(t3.grad), _arr(t0.grad)

    assert _same(fn)[1][0] is None


def test_autograd_grad_of_a_node_that_runs_on_is_captured_before_its_tensor_hooks():
    """torch's evaluate_function: t2 leads on to t1 (also asked for), so t2's capture precedes its hook."""
    def fn(m):
        t0 = m.tensor([[[1.35, 1.7], [-0.53, 0.01]]], requires_grad=True)
        t1 = t0 * t0
        t2 = t1.select(1, 1)
        t2.register_hook(lambda g: g * 2)
        t3 = t2.expand(2, 2)
        both = m.autograd.grad(t3.sum(), [t2, t1], retain_graph=True)
        alone = m.autograd.grad(t3.sum(), [t2], retain_graph=True)
        return [_arr(g) for g in both], _arr(alone[0])

    both, alone = _same(fn)[1]
    assert both[0] == [[2.0, 2.0]] and alone == [[4.0, 4.0]]  # the hook applies when t2 is the only input


def test_remainder_is_bit_exact_on_the_jump():
    """(x * -3) % x sits on floor's jump: our kernel (fmod, then into the divisor's sign) is torch's, bit for bit."""
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        a = rng.uniform(0.6, 1.9, 20000).astype(dt)
        b = rng.uniform(0.6, 1.9, 20000).astype(dt)
        for x, y in ((a * -3, a), (a * 3, a), (a * -3, b), (a * 3, -b)):
            ours = (framework.tensor(x) % framework.tensor(y)).cpu().numpy()
            theirs = (torch.tensor(x) % torch.tensor(y)).numpy()
            assert ours.tobytes() == theirs.tobytes()


def test_gradient_passed_on_unchanged_is_the_same_tensor():
    """add's backward passes its gradient on: torch's two results are one tensor (one version counter)."""
    def fn(m):
        t0 = m.tensor(-1.18, requires_grad=True)
        t1 = t0 + 2.5
        g0, g1 = m.autograd.grad(t1.sum(), [t0, t1])
        g1.exp_()
        return g0._version, _arr(g0)

    _same(fn)


def test_zero_dim_gradient_sum_is_a_writeable_tensor():
    """Two 0-d gradients summed by the engine: a tensor that a view can write through (not a NumPy scalar)."""
    def fn(m):
        t0 = m.tensor(-1.7, requires_grad=True)
        t7 = m.softmax(t0, dim=-1) - m.tensor(-1.79, dtype=m.float64)
        g, = m.autograd.grad(m.nn.functional.mse_loss(t7, t7), [t7])
        g.unsqueeze(0).sub_(-1.0)
        return _arr(g)

    assert _same(fn)[1] == 1.0


# ---- errors --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["backward", "grad", "create_graph"])
def test_saved_input_detached_in_place_raises(how):
    def fn(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = (b * b).sum()
        b.detach_()
        if how == "grad":
            return m.autograd.grad(c, [a])
        c.backward(create_graph=how == "create_graph")

    assert _same(fn)[0] == "error"


def test_saved_std_input_detached_in_place_raises():
    def fn(m):
        t1 = m.tensor([[[1.67]]], requires_grad=True) ** 2
        t2 = t1.std(dim=0)
        t1.detach_()
        (t2 * t2).sum().backward(create_graph=True)

    _same(fn)


@pytest.mark.parametrize("op", ["where", "masked_fill", "masked_fill_tensor", "max_dim", "min_0d", "topk", "sort"])
def test_second_backward_through_a_freed_node_raises(op):
    """These nodes save (a condition, a mask, indices) as torch does: run again after being freed, they raise."""
    def fn(m):
        x = m.tensor([-0.92, 0.3], requires_grad=True)
        y = {"where": lambda: m.where(x > 0, x, 2.0),
             "masked_fill": lambda: x.masked_fill(x > 0, 2.0),
             "masked_fill_tensor": lambda: x.masked_fill(x > 0, m.tensor(2.0)),
             "max_dim": lambda: x[None].max(dim=1)[0],
             "min_0d": lambda: x[0].min(dim=-1)[0],
             "topk": lambda: x.topk(1).values,
             "sort": lambda: x.sort().values}[op]()
        y.sum().backward()
        y.sum().backward()

    assert _same(fn)[0] == "error"


@pytest.mark.parametrize("create_graph", [False, True])
def test_view_made_to_require_grad_is_a_backward_root(create_graph):
    def fn(m):
        t1 = m.tensor([1.76])[0]
        t1.requires_grad_()
        t1.backward(create_graph=create_graph)
        return _arr(t1.grad)

    _same(fn)


@pytest.mark.parametrize("dim", [0, -1])
def test_max_names_the_wrapped_dim_when_it_is_empty(dim):
    _same(lambda m: m.zeros(0).max(dim=dim))
    _same(lambda m: m.zeros(2, 0, 3).min(-2))
    _same(lambda m: m.zeros(2, 0, 3).amax(-2))


@pytest.mark.parametrize("target", ["float32", "float64", "int32", "int16", "uint8", "bool", "int64"])
@pytest.mark.parametrize("shapes", [((3,), ()), ((0, 3), (0,)), ((2, 3), (2,)), ((2, 3, 2), (2, 2)),
                                    ((2, 3, 2, 2), (2, 2, 2)), ((2, 3), (2, 3)), ((2, 3), (3,))])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_nll_and_cross_entropy_target_checks(target, shapes, loss):
    def fn(m):
        x, t = m.zeros(shapes[0]), m.zeros(shapes[1], dtype=getattr(m, target))
        return str(_arr(getattr(m.nn.functional, loss)(x, t)))  # str: an empty batch's mean is nan

    _same(fn)


# ---- create_graph node names and flags -----------------------------------------------------------------------

@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_node_and_values(approximate):
    def fn(m):
        x = m.tensor([-1.3, -0.2, 0.4, 2.1], dtype=m.float64, requires_grad=True)
        y = m.nn.functional.gelu(x, approximate=approximate)
        g, = m.autograd.grad((y * y).sum(), [x], create_graph=True)
        g2, = m.autograd.grad((g * g).sum(), [x], create_graph=True)
        g3, = m.autograd.grad((g2 * g2).sum(), [x])
        return _node(g), _arr(g2), _arr(g3)

    assert _same(fn)[1][0] == "GeluBackwardBackward0"


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradients_gradcheck(approximate):
    x = np.array([-1.3, -0.2, 0.4, 2.1])
    gelu = framework.nn.functional.gelu

    def first(a):
        return framework.autograd.grad(gelu(a, approximate=approximate).sum(), [a], create_graph=True)[0]

    def second(a):
        g = framework.autograd.grad((gelu(a, approximate=approximate) ** 2).sum(), [a], create_graph=True)[0]
        return framework.autograd.grad((g * g).sum(), [a], create_graph=True)[0]

    for fn in (lambda a: gelu(a, approximate=approximate), first, second):
        assert gradcheck(fn, [framework.tensor(x, requires_grad=True)])


@pytest.mark.parametrize("keepdim", [False, True])
def test_prod_of_a_0d_input_passes_its_gradient_on(keepdim):
    """torch's prod_backward returns grad itself for a 0-d input: no graph through it, so no requires_grad."""
    def fn(m):
        x = m.tensor(-1.97, requires_grad=True)
        g1, = m.autograd.grad(x.prod(dim=0, keepdim=keepdim).sum(), [x], create_graph=True)
        g2, = m.autograd.grad(x.prod(), [x], create_graph=True)
        return g1.requires_grad, g2.requires_grad, _arr(g1), _arr(g2)

    _same(fn)


@pytest.mark.parametrize("squeeze", ["dim_not_1", "dim_1", "all", "dims"])
def test_squeeze_backward_is_unsqueeze_to(squeeze):
    def fn(m):
        x = m.tensor(np.ones((2, 1, 4)), requires_grad=True)
        y = {"dim_not_1": lambda: x.squeeze(2), "dim_1": lambda: x.squeeze(1), "all": lambda: x.squeeze(),
             "dims": lambda: x[None].squeeze((0, 1))}[squeeze]()
        g, = m.autograd.grad((y ** 2).sum(), [x], create_graph=True)
        return _node(y), _node(g), _arr(g)

    _same(fn)


def _tree(fn):
    return None if fn is None else (type(fn).__name__, tuple(_tree(n) for n, _ in fn.next_functions))


@pytest.mark.parametrize("shapes", [((3, 4), (2, 4, 5)), ((4,), (2, 4, 5)), ((2, 5, 4), (4,)), ((2, 5, 4), (4, 3)),
                                    ((6, 4), (2, 1, 4, 3))])
@pytest.mark.parametrize("grads", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64")])
def test_matmul_folds_where_aten_does(shapes, grads, transposed, dtypes):
    """ATen's should_fold: fold into mm/mv when the small operand requires grad or the fold is a free view,
    otherwise the broadcast bmm (graph and dtype error texts follow)."""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])

    def fn(m):
        a, b = m.tensor(A, dtype=getattr(m, dtypes[0])), m.tensor(B, dtype=getattr(m, dtypes[1]))
        if transposed:
            a, b = (x.transpose(0, 1) if x.ndim == 3 else x for x in (a, b))
        a.requires_grad_(grads[0])
        b.requires_grad_(grads[1])
        out = a @ b
        gs = m.autograd.grad(out.sum(), [x for x in (a, b) if x.requires_grad])
        return _tree(out.grad_fn), tuple(out.shape), [_arr(g) for g in gs]

    _same(fn)


@pytest.mark.parametrize("reduction", ["mean", "none", "sum"])
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True), (False, False)])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_huber_loss_of_mixed_dtypes_keeps_the_input_dtype(reduction, grads, dtypes):
    """torch's huber_loss returns the input's dtype; its backward then refuses the other dtype."""
    def fn(m):
        x = m.tensor([0.1, 2.0, -3.0], dtype=getattr(m, dtypes[0]), requires_grad=grads[0])
        t = m.tensor([0.3, -1.0, -3.5], dtype=getattr(m, dtypes[1]), requires_grad=grads[1])
        out = m.nn.functional.huber_loss(x, t, reduction=reduction)
        seen = [str(out.dtype).split(".")[-1], _arr(out)]
        if out.requires_grad:
            out.sum().backward()
        return seen

    _same(fn)


@pytest.mark.parametrize("op", ["norm", "norm3", "std", "std_dim", "amax", "amax_0d", "expand_0d"])
def test_create_graph_gradient_ends_in_torchs_node(op):
    """The last op of a backward formula is the grad_fn a create_graph gradient shows: torch's formulas' order."""
    def fn(m):
        x = m.tensor([[-1.76, 1.52], [-0.26, 1.52]], dtype=m.float64, requires_grad=True)
        if op.endswith("_0d"):
            x = m.tensor(-0.23, dtype=m.float64, requires_grad=True)
        y = {"norm": lambda: x.norm(), "norm3": lambda: x.norm(p=3),
             "std": lambda: x.std(), "std_dim": lambda: x.std(dim=0),
             "amax": lambda: x.amax(dim=1), "amax_0d": lambda: x.amax(0, keepdim=True).tanh() * x,
             "expand_0d": lambda: x.expand(2).mean(dim=-1, keepdim=True).exp()}[op]()
        g, = m.autograd.grad(y.sum(), [x], create_graph=True)
        g2, = m.autograd.grad((g * g).sum(), [x], allow_unused=True)
        return _node(g), _arr(g), None if g2 is None else _arr(g2)

    _same(fn)


@pytest.mark.parametrize("conf", [(1, 1, 1), (2, 1, 1), (1, 2, 2), (3, 0, 1)])
@pytest.mark.parametrize("grads", [(True, True, True), (True, False, False), (False, True, False)])
def test_conv2d_double_backward(conf, grads):
    """Under create_graph conv2d's gradients come from a ConvolutionBackwardBackward0 node (requiring grad when
    any of grad, input, weight does, as torch's) whose own derivatives are torch's."""
    rng = np.random.default_rng(0)
    X, W, B = rng.standard_normal((2, 2, 5, 4)), rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)
    stride, padding, dilation = conf

    def fn(m):
        x, w, b = (m.tensor(v, dtype=m.float64, requires_grad=r) for v, r in zip((X, W, B), grads))
        y = m.nn.functional.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation)
        ins = [t for t in (x, w, b) if t.requires_grad]
        gs = m.autograd.grad((y * y).sum(), ins, create_graph=True)
        g2 = m.autograd.grad(sum((g * g).sum() for g in gs), ins, allow_unused=True)
        return [(_node(g), g.requires_grad) for g in gs], [None if g is None else _arr(g) for g in g2]

    _same(fn)


def test_conv2d_gradient_gradcheck():
    rng = np.random.default_rng(1)
    x = framework.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    w = framework.tensor(rng.standard_normal((2, 2, 3, 3)), requires_grad=True)

    def grads(x, w):
        y = framework.nn.functional.conv2d(x, w, stride=2, padding=1)
        return framework.autograd.grad((y * y).sum(), [x, w], create_graph=True)

    assert gradcheck(grads, [x, w])


# ---- issue 33: a gradient's _version (whether AccumulateGrad keeps it) and create_graph flags ---------------------

A24 = np.array([[0.07, -1.02, -1.68, 1.99], [0.5, -0.24, 0.58, 0.4]])
X8 = np.array([0.71, -0.84, -1.98, -0.13, 1.2, 0.3, -0.6, 0.9])


def _same_ok(fn):
    """_same, and the program must run (an error in both would hide the comparison)."""
    result = _same(fn)
    assert result[0] == "ok", result
    return result


def _grad_facts(t) -> tuple:
    """What decides and shows whether AccumulateGrad kept the engine's gradient: its _version, strides, flags."""
    g = t.grad
    return g._version, g.stride(), g.requires_grad, _node(g)


MM_CASES = {
    "linear_3d": lambda m, x, w: m.nn.functional.linear(x.view(2, 1, 4), w),  # matmul folds to mm(x, w.t())
    "linear_2d_bias": lambda m, x, w: m.nn.functional.linear(x.view(2, 4), w, w[:, 0]),  # addmm(b, x, w.t())
    "mm_wt": lambda m, x, w: m.mm(x.view(2, 4), w.t()),
    "mm_xt": lambda m, x, w: m.mm(x.view(4, 2).t(), w.t()),  # mat1 column-major too
    "mm_xt_w": lambda m, x, w: m.mm(w, x.view(2, 4).t()),
    "addmm_scaled": lambda m, x, w: m.addmm(w[0, :1], x.view(4, 2).t(), w.t(), beta=2, alpha=0.5),
    "column": lambda m, x, w: m.mm(x.view(8, 1).t(), x.view(1, 8).t()),  # (1, 8) @ (8, 1): size-1 dims
    "outer": lambda m, x, w: m.mm(x.view(8, 1), x.view(1, 8)[:, :2]),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", sorted(MM_CASES))
def test_mm_gradient_of_a_column_major_operand_is_computed_transposed(case, create_graph):
    """torch's mm_mat1/mat2_backward: an operand with strides (1, rows) (weight.t()) gets (m2 @ g.T).T, so the
    leaf's gradient is C-contiguous after TBackward0 and AccumulateGrad keeps it (version 0)."""
    def fn(m):
        x = m.tensor(X8, dtype=m.float64, requires_grad=True)
        w = m.tensor(A24, dtype=m.float64, requires_grad=True)
        out = MM_CASES[case](m, x, w)
        if create_graph:
            grads = m.autograd.grad((out * out).sum(), [x, w], create_graph=True, allow_unused=True)
            sum((g * g).sum() for g in grads if g is not None).backward()
        else:
            (out * out).sum().backward()
        return [(_grad_facts(t), _arr(t.grad)) if t.grad is not None else None for t in (x, w)]

    _same_ok(fn)


NO_DOF = {
    "var": lambda m, t: m.var(t),
    "var_dim_none": lambda m, t: t.var(dim=None, correction=3),
    "var_dim": lambda m, t: t.var(dim=0, correction=3),  # a dim given: torch's general formula (graph through t)
    "std": lambda m, t: t.std(correction=3),
    "var_mean": lambda m, t: sum(m.var_mean(t, correction=3)),
    "var_mean_dim": lambda m, t: sum(m.var_mean(t, dim=0, correction=3)),
    "std_mean": lambda m, t: m.std_mean(t, correction=2)[0],
}


@pytest.mark.parametrize("shape", [(), (2,)])
@pytest.mark.parametrize("name", sorted(NO_DOF))
def test_var_backward_without_degrees_of_freedom_has_no_graph_through_the_input(name, shape):
    """torch's var_backward over all elements with dof <= 0 is grad * where(t == t.mean(), nan, inf): +inf for
    every element off the mean (not inf * (t - mean)), and no graph through t under create_graph."""
    def fn(m):
        t = m.tensor(np.array([-0.62, 0.4] if shape else -0.62), dtype=m.float32, requires_grad=True)
        NO_DOF[name](m, t).backward(m.tensor(0.63), create_graph=True)
        return str(_arr(t.grad)), t.grad.requires_grad, _node(t.grad), t.grad._version

    _same_ok(fn)


SELECTIONS = {
    "index_add_dim1": lambda m, t: m.index_add(m.zeros(2, 4), 1, m.tensor([3, 0]), t),  # source: index_select
    "index_add_dim0": lambda m, t: m.index_add(m.zeros(3, 2), 0, m.tensor([2, 0]), t),
    "index_select_dim1": lambda m, t: m.index_select(t, 1, m.tensor([1, 1, 0])),
    "masked_select_broadcast": lambda m, t: m.masked_select(t[0], m.tensor([[True], [False]])),
    "masked_select": lambda m, t: m.masked_select(t, m.tensor([[True, False], [False, True]])),
    "masked_select_mask_broadcast": lambda m, t: m.masked_select(t, m.tensor([True, False])),
}


@pytest.mark.parametrize("retain_graph", [False, True])
@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_selection_gradients_version_as_torchs(name, retain_graph):
    """index_select's result is C-contiguous along any dim (index_add's source gradient is then kept as it is:
    version 0), and masked_select's gradient is written in place (version 1) unless the mask broadcast the input
    (the engine's sum back to its shape is a new tensor: version 0)."""
    def fn(m):
        t = m.tensor(np.array([[-0.1, -1.18], [1.55, 0.56]]), dtype=m.float32, requires_grad=True)
        out = SELECTIONS[name](m, t)
        out.backward(m.ones_like(out) * 1.5, retain_graph=retain_graph)
        return _grad_facts(t), _arr(t.grad), out.stride(), _arr(out)

    _same_ok(fn)


@pytest.mark.parametrize("create_graph", [False, True])
def test_trace_gradient_carries_index_fill_writes(create_graph):
    """torch's trace_backward fills zeros in place with index_fill_ of a tensor value (two writes: version 2),
    also when backward(inputs=...) limits the run."""
    def fn(m):
        t = m.tensor(A24, requires_grad=True)
        m.trace(t).backward(m.tensor(2.0), create_graph=create_graph)
        first = _grad_facts(t)
        u = m.tensor(X8[:3], requires_grad=True)
        v = u * u
        s = m.trace(m.tensor(A24, requires_grad=True) * 1)
        w = m.tensor(A24, requires_grad=True)
        (m.trace(w) * m.trace(w) + s).sum().backward(inputs=[w, v])
        return first, _grad_facts(w), _arr(w.grad)

    _same_ok(fn)


@pytest.mark.parametrize("correction", [0, 1, 2])
def test_cov_aweights_gradient_nodes_and_version(correction):
    """torch.cov with aweights: correction * (w * aweights).sum() is int * Tensor (MulBackward1), and the
    weights' gradient is summed from its uses in torch's node order (its _version)."""
    def fn(m):
        x = m.tensor(A24, dtype=m.float32)
        w = m.tensor(np.array([1.87, 1.38, 1.77, 1.05]), dtype=m.float64, requires_grad=True)
        c = m.cov(x, correction=correction, aweights=w)
        names = []
        stack = [c.grad_fn]
        while stack:
            node = stack.pop()
            if node is not None:
                names.append(node.name())
                stack.extend(n for n, _ in node.next_functions)
        g, = m.autograd.grad(c.sum(), [w])
        return names, g._version, _arr(g)

    _same_ok(fn)


SGN_SUMS = {
    "sgn_last": lambda m, x: (x * 3).sum() + (x.sgn() * 2).sum(),  # sgn's zero gradient arrives first
    "sgn_first": lambda m, x: (x.sgn() * 2).sum() + (x * 3).sum(),  # ... or second: summed in place
    "sgn_twice": lambda m, x: (x.sgn() * 2).sum() + (x.sgn() * 2).sum(),
    "sign_last": lambda m, x: (x * 3).sum() + (x.sign() * 2).sum(),  # sign's is a real zeros_like
    "abs_double_backward": lambda m, x: (lambda g: (g * g).sum())(
        m.autograd.grad(m.log(x.abs() + 0.5).sum(), [x], create_graph=True)[0]),  # abs's grad * sgn(x)
}


@pytest.mark.parametrize("name", sorted(SGN_SUMS))
def test_sgn_gradient_is_a_zero_tensor_the_engine_sums_into_a_new_one(name):
    """torch's sgn_backward of a real tensor is an _efficientzerotensor: a gradient summed with it is a copy of
    the other (version 0), two of them stay a zero tensor; summed into a real gradient it is add_ (version 1)."""
    def fn(m):
        x = m.tensor(X8[:4], requires_grad=True)
        SGN_SUMS[name](m, x).backward()
        # (torch's .grad is then a ZeroTensor itself, which refuses .numpy(): only its facts are compared)
        return _grad_facts(x), None if name == "sgn_twice" else _arr(x.grad)

    _same_ok(fn)


ORDERED = {
    "mul": lambda m, x, y: x * y,
    "div": lambda m, x, y: x / y,
    "mm": lambda m, x, y: m.mm(x, y),
    "addmm": lambda m, x, y: m.addmm(m.zeros(3, 3, dtype=m.float64), x, y),
    "atan2": lambda m, x, y: m.atan2(x, y),
}


@pytest.mark.parametrize("name", sorted(ORDERED))
def test_create_graph_builds_the_operands_gradients_in_torchs_order(name):
    """Which operand's gradient node a create_graph backward makes first (MulBackward0, DivBackward0 and
    MmBackward0: the second operand's; AddmmBackward0: mat1's), which orders a later backward's sums."""
    def fn(m):
        x = m.tensor(A24[:, 1:].T.copy(), requires_grad=True)  # (3, 2), C-contiguous leaves
        y = m.tensor(A24[:, :3] if name in ("mm", "addmm") else A24[:, :3].T.copy(), requires_grad=True)
        gx, gy = m.autograd.grad(ORDERED[name](m, x, y).sum(), [x, y], create_graph=True)
        return [g.grad_fn.name() for g in (gx, gy)], gx.grad_fn._sequence_nr() < gy.grad_fn._sequence_nr()

    _same_ok(fn)


BROADCAST_SUMS = {
    "scalar_leaf": lambda m: m.tensor(-0.67, requires_grad=True),  # summed to 0-d: a plain sum, not a view
    "row_leaf": lambda m: m.tensor([[-0.67, 2.0]], requires_grad=True),
    "vector_leaf": lambda m: m.tensor([-0.67, 2.0], requires_grad=True),  # leading dim dropped: a view
}


@pytest.mark.parametrize("name", sorted(BROADCAST_SUMS))
def test_a_gradient_summed_back_to_a_broadcast_input_is_a_view_only_when_torchs_is(name):
    """torch's sum_to: a plain sum to a 0-d shape, a keepdim sum, and a view only to drop leading dims; only a
    gradient that is not a view may have the next one summed into it in place (version 1)."""
    def fn(m):
        t = BROADCAST_SUMS[name](m)
        out = t.reshape(1, 1, -1) * t  # the leaf's own gradient first (broadcast back), then its view's
        out.backward(m.ones_like(out) * 0.5)
        return _grad_facts(t), _arr(t.grad)

    _same_ok(fn)


# ---- a leaf's first .grad: stolen (its _version kept) only when it has the leaf's layout (issue 33) ------------

def test_squeeze_keeps_an_expands_zero_strides_so_the_leaf_grad_is_a_copy():
    """unsqueeze's gradient is a squeeze of sum's expand: stride 0 kept, so AccumulateGrad copies it (_version 1)."""
    def fn(m):  # the fuzzer's shrunk program (seed 1006276)
        t0 = m.tensor([[1.18]], dtype=m.float64, requires_grad=True)
        t0.unsqueeze(-3).sum().backward(retain_graph=True)
        squeezed = m.zeros(1, 3).expand(2, 1, 3).squeeze(1)
        return t0.grad._version, squeezed.stride(), m.ones(2, 1, 1).expand(2, 1, 4).squeeze().stride()

    assert _same(fn)[1][0] == 1


CAST_BACKS = {  # a float32 leaf in a float64 op: its gradient is cast back (torch's to(), strides kept)
    "add_1": lambda m, a, t: (a + t).sum(),  # sum's expand, stride 0 in a size-1 dim: copied (_version 1)
    "add_1x1": lambda m, a, t: (a.view(1, 1) + t.view(1, 1)).sum(),
    "mul_1": lambda m, a, t: (a * t).sum(),  # a product: a fresh gradient, stolen (_version 0)
    "add_1_times": lambda m, a, t: (a + t).sum() * 3.0,
    "sub_row": lambda m, a, t: (a.expand(2, 1) - t).sum(),  # summed back over the broadcast dim: stolen
}


@pytest.mark.parametrize("inputs", [False, True])
@pytest.mark.parametrize("name", sorted(CAST_BACKS))
def test_a_gradient_cast_to_the_leafs_dtype_keeps_its_strides(name, inputs):
    """torch's to() keeps a dense gradient's strides, an expand's 0 in a size-1 dim too, so AccumulateGrad copies
    that cast gradient into .grad (_version 1) as it does an uncast one."""
    def fn(m):  # the fuzzer's shrunk program (seed 1900865): backward(inputs=[leaf, non-leaf])
        a = m.tensor(np.array([-0.61]), dtype=m.float64)
        t = m.tensor(np.array([-1.89]), dtype=m.float32, requires_grad=True)
        out = CAST_BACKS[name](m, a, t)
        out.backward(inputs=[t, out]) if inputs else out.backward()
        return t.grad._version, t.grad.stride(), t.grad.dtype is m.float32, _arr(t.grad)

    _same_ok(fn)


SUMMED_TWICE = {  # two gradients of one leaf, the first being what the node received (sub's grad_self)
    "sub_self": lambda t: t - t,
    "sub_exp": lambda t: t - t.exp(),
    "add_self": lambda t: t + t,  # add's two gradients are one tensor: summed into a new one
    "mul_self": lambda t: t * t,
}


@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (2, 3)])
@pytest.mark.parametrize("cast", ["bfloat16", "float", "double", None])
@pytest.mark.parametrize("name", sorted(SUMMED_TWICE))
def test_a_cast_gradient_summed_twice_is_summed_in_place_as_torchs(name, cast, shape):
    """ToCopyBackward0's cast of sum's expand keeps the 0 strides of its size-1 dims (torch's empty_strided): memory
    of its own, which the engine then sums the second gradient into in place (_version 1), where ours was a
    restrided NumPy view and counted as a view (_version 0; fuzz seed 4009406)."""
    if cast == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def fn(m):
        x = np.linspace(-0.8, 0.7, int(np.prod(shape))).reshape(shape)
        for dtype in (m.float64, m.float32):
            t0 = m.tensor(x, dtype=dtype, requires_grad=True)
            t1 = SUMMED_TWICE[name](t0)
            (getattr(t1, cast)() if cast else t1).sum().backward(retain_graph=True)
            yield t0.grad._version, t0.grad.stride(), _arr(t0.grad)

    _same_ok(lambda m: list(fn(m)))


def test_a_cast_of_a_difference_of_a_leaf_with_itself_program():
    def fn(m):  # the fuzzer's shrunk program (seed 4009406)
        t0 = m.tensor(np.array([[0.19]]), dtype=m.float64, requires_grad=True)
        t1 = t0 - t0
        t1.float().sum().backward(retain_graph=True)
        return t0.grad._version

    assert _same_ok(fn)[1] == 1


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_det_gradient_is_column_major_so_the_leaf_grad_is_a_copy(shape):
    """torch's det gradient comes from an lu_solve (column-major): copied into .grad, which has _version 1."""
    a = np.array([[1.75, -1.02, 0.8], [-1.3, 0.19, -1.2], [0.74, -1.49, 0.47]])

    def fn(m):  # the fuzzer's shrunk program (seed 1002462), and a batch
        t1 = m.tensor(np.broadcast_to(a, shape).copy(), dtype=m.float32, requires_grad=True)
        m.neg(m.det(t1)).sum().backward()
        return t1.grad._version, _arr(t1.grad)

    assert _same(fn)[1][0] == 1


def test_an_empty_gradient_is_dense_so_the_engine_sums_into_it_in_place():
    """torch's is_non_overlapping_and_dense ignores a dim of size 0: an empty gradient's second part is added in
    place (_version 1), whatever its stride."""
    def fn(m):  # the fuzzer's shrunk program (seed 1006901)
        t1 = m.tensor(0.05, dtype=m.float64, requires_grad=True)
        t5 = t1.flatten()[:0:1] * 3
        t9, = m.autograd.grad((t5 * t5).sum(), [t5], retain_graph=True)
        return t9._version, tuple(t9.shape)

    assert _same(fn)[1][0] == 1


@pytest.mark.parametrize("create_graph", [False, True])
def test_as_strided_backward_gives_a_view(create_graph):
    """torch's as_strided_backward returns a view of its result buffer: mul_ on it makes its grad_fn
    AsStridedBackward0 again, detach_ refuses it, and its version is the buffer's."""
    def fn(m):  # the fuzzer's shrunk programs (seeds 1000245 and 1007161)
        t0 = m.tensor(1.94, dtype=m.float64, requires_grad=True)
        t1 = t0[None,]
        with m.no_grad():
            t1.zero_()
        t5 = m.cat([m.sin(t1).view(-1), t1], dim=0)
        _, t7 = m.autograd.grad(t5.sum(), [t1, t0], retain_graph=True, create_graph=create_graph)
        before = _node(t7), t7._version
        t7.mul_(-1.0)
        s = m.sigmoid(m.tensor(-1.97, dtype=m.float64, requires_grad=True))
        r = s.reshape(())
        m.sigmoid_(s)
        g, = m.autograd.grad(r.sum(), [s], create_graph=create_graph)
        try:
            g.detach_()
            detached = "ok"
        except RuntimeError as e:
            detached = str(e).split(".")[0]
        return before, _node(t7), t7._version, _arr(t7), detached

    assert _same(fn)[1][-1] == "Can't detach views in-place"


@pytest.mark.parametrize("name", ["max", "min"])
def test_a_0d_max_along_a_dim_scatters_its_gradient(name):
    """max(dim=0) of a 0-d tensor: torch's gradient is zeros(()).scatter(0, indices, grad) (ScatterBackward0)."""
    def fn(m):  # the fuzzer's shrunk program (seed 1001746)
        t0 = m.tensor(1.12, dtype=m.float64, requires_grad=True)
        t3 = m.exp(getattr(t0, name)(dim=0, keepdim=False)[0])
        t8, _ = m.autograd.grad(t3[...].sum(), [t0, t3], create_graph=True)
        s = m.tensor(5.0, requires_grad=True)
        out = m.zeros(()).scatter(0, m.tensor(0), s)
        return _node(t8), t8._version, _arr(t8), _node(out), _arr(m.autograd.grad(out, [s])[0])

    assert _same(fn)[1][0] == "ScatterBackward0"


def test_an_empty_leaf_is_dense_so_its_create_graph_grad_is_a_copy():
    """torch's empty tensor is contiguous whatever its strides: a leaf made by a False index gets its first .grad
    by empty().copy_() (CopyBackwards), not a clone."""
    def fn(m):  # the fuzzer's shrunk program (seed 1104436)
        t4 = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float32)[0, None, False]
        t4.requires_grad_()
        (t4 * t4).sum().backward(create_graph=True)
        return tuple(t4.shape), _node(t4.grad), t4.grad._version

    assert _same(fn)[1][1] == "CopyBackwards"


def test_inputs_sharing_an_array_are_saved_each_as_itself():
    """atan2(x.detach(), x): the two saved inputs hold one array; the second is x, so a create_graph gradient
    requires grad (the first save was the detached one)."""
    def fn(m):  # the fuzzer's shrunk program (seed 1109636)
        t2 = m.tensor([[-0.0], [-1.24]], dtype=m.float32, requires_grad=True)
        t7 = m.atan2(t2.detach(), t2)
        g, = m.autograd.grad(t7, [t2], m.tensor([[1.24], [1.12]]), create_graph=True)
        return g.requires_grad, _node(g), _arr(g)

    assert _same(fn)[1][0] is True


GRAD_SLICES = {  # leaves whose gradients are slices of one gradient buffer in torch
    "stack_0d_bfloat16": lambda m, a, b: m.stack([a, b]),
    "cat": lambda m, a, b: m.cat([a, b]),
    "diff_prepend": lambda m, a, b: a.diff(2, 0, prepend=b),
    "stack_dim1": lambda m, a, b: m.stack([a, b], 1),  # strided slices: copied, so no shared counter
}


@pytest.mark.parametrize("name", list(GRAD_SLICES))
def test_leaf_grads_stolen_from_one_buffer_share_its_version_counter(name):
    # AccumulateGrad keeps a gradient only it holds: slices of cat's or stack's gradient stay views of one buffer,
    # so accumulating into one leaf's .grad bumps the others' _version too
    if name.endswith("bfloat16") and str(framework.empty(0).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def run(m):
        dtype = m.bfloat16 if name.endswith("bfloat16") else m.float32
        a = m.tensor([[0.54, -0.54], [-1.23, -0.4], [0.19, 1.41]], dtype=dtype, requires_grad=True)
        b = m.tensor([[-0.61, -0.53], [0.26, 1.95], [1.6, -1.71]], dtype=dtype, requires_grad=True)
        if name.endswith("bfloat16"):  # 0-d leaves
            a, b = (t[0, 0].detach().requires_grad_() for t in (a, b))
        y = GRAD_SLICES[name](m, a, b)
        y.backward(m.ones_like(y))
        versions = [(a.grad._version, b.grad._version)]
        a.sigmoid().sum().backward()
        versions.append((a.grad._version, b.grad._version))
        return versions, a.grad.tolist(), b.grad.tolist()

    (first, second), *_ = _same(run)[1]
    # b's gradient was not written: only a shared counter moves it
    assert second[1] == first[1] + (name != "stack_dim1")


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "exp"])
def test_bfloat16_gradient_of_a_transposed_input_keeps_its_layout_as_torchs(op):
    """A bfloat16 op's gradient formula multiplies an expanded gradient (sum's) by a transposed operand: the
    float32 copy of the expanded operand stays expanded, so the product is laid out as the transposed one, as
    torch's, and AccumulateGrad keeps it (version 0; fuzz seed 3403136)."""
    if str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    a = np.array([[0.74, 1.11, -1.38, 1.0], [-0.5, 0.51, -1.19, -1.49], [1.37, -0.85, -0.22, 0.44]])
    out = []
    for m in (torch, framework):
        leaf = m.tensor(a, dtype=m.bfloat16, requires_grad=True)
        t = leaf.transpose(0, -1)
        y = getattr(m, op)(t)
        (g,) = m.autograd.grad(y.sum(), t, retain_graph=True)
        y.sum().backward()
        out.append((g.stride(), leaf.grad.stride(), leaf.grad._version, leaf.grad.float().tolist()))
    assert out[0] == out[1]
