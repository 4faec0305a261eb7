"""The fuzzer's undeclared divergences (README "undeclared"), each as its program and as the rule behind it: the
layout a copy, a cast or a reduction writes (which decides whether a later view() is allowed), and the nodes that
refuse a second backward once the first one has freed them."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")

A34 = np.array([[0.07, -1.02, -1.68, 1.99], [0.5, -0.24, 0.58, 0.4], [0.71, -0.84, -1.98, -0.13]])


def _same(fn):
    """fn(m) under both libraries: the same value, or an error of the same class and first sentence."""
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


def _layout(t) -> tuple:
    """What a user can observe of a layout: the strides of the dims of size > 1, and contiguity."""
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1), t.is_contiguous()


# ---- 1. clone() keeps its input's layout (torch.preserve_format), so view() after it can be refused -------------

def test_view_after_pow_clone_program():
    def program(m):
        t3 = m.tensor(A34, dtype=m.float64, requires_grad=True)
        t4 = t3.T
        t7 = (t4.abs() + 0.5) ** (t4.abs() + 0.5)
        return t7.clone().view(12).tolist()

    assert _same(program)[0] == "error"  # torch: "view size is not compatible with input tensor's size and stride"


# inputs of every kind of layout: contiguous, transposed, permuted, sliced with steps (not dense), expanded
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.transpose(0, 2),
    "permuted": lambda x: x.permute(1, 2, 0),
    "stepped": lambda x: x.transpose(0, 2)[::2],
    "narrowed": lambda x: x.permute(2, 0, 1)[:, :, 1:],
    "expanded": lambda x: x[:, :1].expand(2, 3, 4),
    "expanded_transposed": lambda x: x[:1].expand(3, 3, 4).transpose(1, 2),
}
COPIES = {
    "clone": lambda m, t: t.clone(),
    "clone_contiguous": lambda m, t: t.clone(memory_format=m.contiguous_format),
    "clone_preserve": lambda m, t: m.clone(t, memory_format=m.preserve_format),
    "contiguous": lambda m, t: t.contiguous(),
    "double": lambda m, t: t.double(),
    "to_float16": lambda m, t: t.to(m.float16),
}


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy_layout_matches_torch(layout, copy):
    def program(m):
        x = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float32)
        out = COPIES[copy](m, LAYOUTS[layout](x))
        return _layout(out), out.tolist()

    _same(program)


def test_contiguous_refuses_preserve_format():
    _same(lambda m: m.ones(2, 3).T.contiguous(memory_format=m.preserve_format))


def test_clone_keeps_the_graph_of_torch():
    """The copies the ops make themselves stay contiguous, as torch's: repeat_interleave's flatten is a view."""
    def program(m):
        x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        names, fn = [], x.T.repeat_interleave(2, dim=1).grad_fn
        while fn is not None:
            names.append(fn.name().replace("torch::autograd::", ""))
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return names

    _same(program)


# ---- 2. a reduction over dims writes a contiguous result, whatever its input's layout ----------------------------

def test_amin_double_view_program():
    def program(m):
        t3 = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float32, requires_grad=True)
        t6 = m.swapaxes(t3, 0, 2).amin(1, keepdim=True).double()
        return t6.view(-1).tolist()

    assert _same(program)[0] == "ok"


REDUCTIONS = {
    "sum": lambda m, x, k: x.sum(1, keepdim=k),
    "sum_dims": lambda m, x, k: x.sum((0, 2), keepdim=k),
    "sum_int": lambda m, x, k: (x > 0).long().sum(1, keepdim=k),
    "mean": lambda m, x, k: x.mean(1, keepdim=k),
    "amax": lambda m, x, k: x.amax(1, keepdim=k),
    "amin": lambda m, x, k: x.amin((0, 2), keepdim=k),
    "prod": lambda m, x, k: x.prod(1, keepdim=k),
    "var": lambda m, x, k: x.var(1, keepdim=k),
    "std": lambda m, x, k: x.std(1, keepdim=k),
    "logsumexp": lambda m, x, k: x.logsumexp(1, keepdim=k),
    "norm": lambda m, x, k: x.norm(dim=1, keepdim=k),
    "any": lambda m, x, k: (x > 0).any(1, keepdim=k),
    "all": lambda m, x, k: (x > 0).all(1, keepdim=k),
    "count_nonzero": lambda m, x, k: m.count_nonzero(x, 1),
}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_of_transposed_input_is_contiguous(op, keepdim):
    def program(m):
        x = m.swapaxes(m.tensor(np.random.default_rng(0).standard_normal((2, 3, 4))), 0, 2)
        out = REDUCTIONS[op](m, x, keepdim)
        return _layout(out), np.round(out.tolist(), 12).tolist()

    _same(program)


# ---- 3. CopySlices drops its wrapped node when a backward frees the graph ----------------------------------------

def test_lerp_reshape_backward_twice_program():
    def program(m):
        t0 = m.tensor(np.array([-1.06, 0.55, 1.26]), dtype=m.float64, requires_grad=True)
        t5 = m.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=m.float32, requires_grad=True)
        t6 = t5.lerp(t5, 0.8)
        t7 = t6.reshape((4, 3))
        t7.sub_(t0)
        t8 = t6.reshape((3, 4))
        t7.backward(m.ones(4, 3, dtype=t7.dtype))
        (t8 * 1).sum().backward()

    kind, cls, first, _ = _same(program)
    assert (kind, cls) == ("error", "RuntimeError") and first.startswith("Trying to backward through the graph a "
                                                                         "second time")


def test_copy_slices_backward_twice():
    """Here no node saves a tensor (AddBackward0 of a scalar, the add_ of a view): CopySlices itself refuses."""
    def program(m):
        a = m.arange(6.0, requires_grad=True)
        b = a + 1
        b[:3].add_(1)
        b.sum().backward()
        (b * 1).sum().backward()

    assert _same(program)[0] == "error"


def test_copy_slices_backward_twice_with_retain_graph():
    def program(m):
        a = m.arange(6.0, requires_grad=True)
        b = a + 1
        b[:3].add_(1)
        b.sum().backward(retain_graph=True)
        (b * 1).sum().backward()
        return a.grad.tolist()

    assert _same(program) == ("ok", [2.0] * 6)


# ---- 4. nodes that save index tensors refuse a second backward ---------------------------------------------------

def test_adv_index_backward_twice_program():
    def program(m):
        t4 = m.tensor(np.arange(12.0).reshape(3, 4), dtype=m.float32, requires_grad=True)
        t5 = t4[[0, 1, 1], [2, 3, 3]]
        t5.sum().backward()
        t8 = t5[None, -3]
        (t8 * t8).sum().backward()

    assert _same(program)[0] == "error"


INDEX_OPS = {
    "index_list": lambda m, x, i, s: x[[0, 2]],
    "index_mask": lambda m, x, i, s: x[x > 0],
    "index_select": lambda m, x, i, s: x.index_select(0, i),
    "scatter": lambda m, x, i, s: x.scatter(0, i.view(2, 1).expand(2, 4), s),
    "scatter_value": lambda m, x, i, s: x.scatter(0, i.view(2, 1).expand(2, 4), 0.5),
    "scatter_add": lambda m, x, i, s: x.scatter_add(0, i.view(2, 1).expand(2, 4), s),
    "gather": lambda m, x, i, s: x.gather(0, i.view(2, 1).expand(2, 4)),
}


@pytest.mark.parametrize("op", INDEX_OPS)
def test_index_saving_node_backward_twice(op):
    def program(m):
        x = m.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        src = m.tensor(np.ones((2, 4)), requires_grad=True)
        y = INDEX_OPS[op](m, x, m.tensor([2, 0]), src)
        y.sum().backward()
        y.sum().backward()

    assert _same(program)[0] == "error"


# ---- copy_ of a tensor's own memory: torch returns before its overlap checks (found by the fuzzer) ----------------

_SAME_DATA_PROGRAMS = [
    # an expanded gradient (stride 0) copied onto itself: torch's copy_ sees the same data and does nothing
    "t0 = m.tensor([1.52, -0.84], requires_grad=True)\n"
    "g, = m.autograd.grad(t0.sum(), [t0], create_graph=True)\ng.copy_(g)\nr = (g.tolist(), g._version)",
    # setitem: t[0] = t views the value without its leading 1-dims: the very memory of t[0]
    "t1 = m.tensor([[1.09, 0.57, 1.47]], requires_grad=True)\n"
    "g, = m.autograd.grad(t1.sum(), [t1])\ng[0] = g\nr = (g.tolist(), g._version)",
    # same memory, other strides: the overlap check still refuses the write
    "a = m.ones(3).expand(2, 3)\na.copy_(m.ones(2, 3))\nr = a.tolist()",
    "a = m.zeros(3)\na.expand(2, 3).copy_(a.expand(2, 3))\nr = a._version",
    # an ordinary tensor copied onto itself: a no-op that still bumps the version and records CopyBackwards
    "x = m.tensor([1.0, 2.0], requires_grad=True)\ny = x * 1\ny.copy_(y)\nr = (y.tolist(), y._version, "
    "type(y.grad_fn).__name__)",
]


@pytest.mark.parametrize("program", _SAME_DATA_PROGRAMS)
def test_copy_onto_its_own_memory_skips_the_overlap_check_as_torch(program):
    torch = pytest.importorskip("torch")
    results = []
    for m in (framework, torch):
        ns = {"m": m}
        try:
            exec(program, ns)
            results.append(("ok", ns["r"]))
        except RuntimeError as e:
            results.append(("error", str(e).split("\n")[0].replace("torch.", "framework.")))
    assert results[0] == results[1]


# ---- torch's C++ nodes name themselves with their namespace; matrix norms permute the matrix dims to the end ------

def test_cpp_nodes_are_named_with_torchs_namespace():
    def names(m):
        a = m.ones(3, requires_grad=True)
        b = a.clone()
        b[0] = 2.0
        acc = b.grad_fn.next_functions[0][0].next_functions[0][0]
        return b.grad_fn.name(), type(b.grad_fn).__name__, acc.name(), type(acc).__name__

    assert names(framework) == names(torch) == ("torch::autograd::CopySlices", "CopySlices",
                                                "torch::autograd::AccumulateGrad", "AccumulateGrad")


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (1, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_svd_orders_take_torchs_graph(ord, dim, keepdim):
    """torch permutes the two dims to the end even when they are already there (the input's gradient under
    create_graph comes out of PermuteBackward0), and 'nuc' reduces with keepdim before its one unsqueeze."""
    A = np.random.default_rng(0).standard_normal((2, 3, 4))

    def run(m):
        t = m.tensor(A, dtype=m.float64, requires_grad=True)
        y = m.linalg.matrix_norm(t, ord, dim, keepdim)
        g, = m.autograd.grad(y.sum(), [t], create_graph=True)
        chain, fn = [], y.grad_fn
        while fn is not None:
            chain.append(type(fn).__name__)
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return g.grad_fn.name(), chain, y.detach().cpu().numpy(), g.detach().cpu().numpy()

    (gn, chain, y, g), (tgn, tchain, ty, tg) = run(framework), run(torch)
    assert (gn, chain) == (tgn, tchain)
    np.testing.assert_allclose(y, ty, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)


def test_threshold_gradient_is_threshold_backward_of_the_input():
    """torch's threshold backward is threshold_backward(grad, input, threshold), an op of the input too: under
    create_graph the input's gradient requires grad even for a constant incoming gradient (fuzz seed 54541)."""
    A = np.array([[-0.17, -1.5, -0.68, 0.1], [1.43, -1.45, 0.77, 0.34], [0.89, -0.9, -1.42, 0.26]])

    def run(m):
        x = m.tensor(A, dtype=m.float64, requires_grad=True)
        g, = m.autograd.grad(m.nn.functional.threshold(x, 0.3, -1.0)[-2], [x],
                             m.tensor([0.58, 1.86, -1.66, -1.52], dtype=m.float64), create_graph=True)
        gg, = m.autograd.grad((g * g).sum(), [x], allow_unused=True, materialize_grads=True)
        return g.requires_grad, g.grad_fn.name(), g.tolist(), gg.tolist()

    assert run(framework) == run(torch)
    assert run(framework)[:2] == (True, "ThresholdBackwardBackward0")


def test_a_view_op_reads_its_inputs_history_before_its_own_checks():
    """torch collects a view op's edges before running it: a no_grad view whose base changed raises its history
    error before select's index check (fuzz seed 50207)."""
    def run(m):
        x = m.tensor([-1.39, -1.2], dtype=m.float64, requires_grad=True)
        y = x / (x.abs() + 1)
        with m.no_grad():
            v = y.permute(0)
            v.clamp_(-1.0, 1.0)
        return v.select(0, 2)

    assert _same(run)[0] == "error"


@pytest.mark.parametrize("kind", ["contiguous", "channels_last", "expanded", "transposed", "sliced"])
def test_cat_and_stack_of_4d_tensors_take_torchs_memory_format(kind):
    """torch's cat writes a contiguous result unless every input is channels-last (then channels-last): NumPy's
    kept an expanded input's order, so view(-1) of a cat of expands failed where torch's works (fuzz seed 201621)."""
    A = np.random.default_rng(0).standard_normal((2, 3, 4, 5))

    def run(m):
        t = m.tensor(A)
        t = {"contiguous": t, "channels_last": t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
             "expanded": m.tensor(A[:1, :, :1]).expand(2, 3, 4, 5), "transposed": t.transpose(1, 2),
             "sliced": t[:, :, ::2]}[kind]
        c, s = m.cat([t, t], 1), m.stack([t[:, 0], t[:, 1]], 1)
        flat = m.cat([t, t], 0).view(-1).shape[0] if kind != "channels_last" else None  # (channels-last: no view)
        return c.stride(), s.stride(), flat

    assert _same(run)[0] == "ok"


def test_expand_strides_are_torchs_and_setitem_of_a_tensor_into_its_own_row_is_refused():
    """torch's expand gives a broadcast dim stride 0, a new dim of size 1 the size times stride of the next one and
    keeps a size-1 dim's stride; NumPy's broadcast_to zeroes size-1 dims. copy_ compares the strides of the same
    memory: ``t[0] = t`` with t of shape (1, 1, 1) is a partial overlap in torch (fuzz seed 204636)."""
    def strides(m):
        a, b, c = m.tensor(1.0), m.ones(3, 1), m.ones(1, 3)
        return (a.expand(1, 1).stride(), b.expand(1, 3, 1).stride(), c.expand(2, 1, 3).stride(),
                b.expand(3, 4).stride(), m.ones(2, 3).t().expand(1, 1, 3, 2).stride())

    assert _same(strides)[1] == ((0, 0), (3, 1, 1), (0, 3, 1), (1, 0), (3, 3, 1, 3))

    for shape in [(1, 1, 1), (1, 1), (1,)]:
        def run(m):
            t = m.sigmoid(m.tensor(np.full(shape, 1.4), dtype=m.float32, requires_grad=True))
            t[0] = t
            return t.tolist()

        assert _same(run)[0] == ("ok" if shape == (1,) else "error")


def test_copy_slices_release_drops_its_node_without_freeing_it():
    """torch's CopySlices::release_variables only drops the in-place op's node: a graph of backward that reaches
    that node itself (its saved output's history) still runs it after CopySlices ran (found by the agraph tests)."""
    def run(m):
        a = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        x = a.clone()
        x[1:].exp_()
        z = x.view(3, 1).t().tanh()
        g, = m.autograd.grad(x.sum() + z.sum(), a, create_graph=True)
        return [round(v, 12) for v in m.autograd.grad(g.sum(), a)[0].tolist()]

    assert _same(run)[0] == "ok"


@pytest.mark.parametrize("shapes", [((2, 3, 4), (3,)), ((2, 3, 4), ()), ((5,), (1,)), ((), (1,))])
def test_prelu_reshapes_its_slopes_as_torch(shapes):
    """torch's prelu reshapes a weight with fewer dims than the input to broadcast over dim 1 (ViewBackward0 on the
    weight's edge), and its kernel's weight gradient is summed by sum_to_size (SumBackward1 under create_graph)."""
    rng = np.random.default_rng(0)
    A, W = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])

    def run(m):
        x, w = m.tensor(A, requires_grad=True), m.tensor(W, requires_grad=True)
        y = m.nn.functional.prelu(x, w)
        gx, gw = m.autograd.grad(y.sum(), [x, w], create_graph=True)
        names = [type(n).__name__ for n, _ in y.grad_fn.next_functions]
        return names, gw.grad_fn.name(), [round(v, 12) for v in m.autograd.grad((gw * gw).sum(), x)[0].reshape(-1)
                                           .tolist()]

    _same(run)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_a_transposed_input_is_contiguous_as_torchs(fn):
    """torch's softmax kernels read input.contiguous(): a later view(-1) works (fuzz seed 7135)."""
    def run(m):
        t = m.tensor(A34.reshape(3, 2, 2), requires_grad=True).swapaxes(0, 2)
        y = getattr(m, fn)(t, dim=-1)
        return y.stride(), y.view(-1).shape[0]

    assert _same(run)[0] == "ok"


@pytest.mark.parametrize("fn", ["softshrink", "hardshrink"])
def test_shrink_gradients_are_their_backward_ops_of_the_input(fn):
    """torch's {soft,hard}shrink_backward(grad, x, lambd) is an op of x: under create_graph the gradient requires
    grad for a constant incoming gradient (fuzz seed 5304)."""
    def run(m):
        x = m.tensor(A34, requires_grad=True)
        g, = m.autograd.grad(getattr(m.nn.functional, fn)(x, 0.4), x, m.ones(3, 4, dtype=m.float64),
                             create_graph=True)
        return g.requires_grad, g.grad_fn.name(), g.tolist()

    assert _same(run)[1][:2] == (True, fn.capitalize() + "BackwardBackward0")


def test_copy_slices_skips_the_base_gradient_a_limited_backward_does_not_need():
    """torch's CopySlices writes the base's gradient only when the backward needs it: backward(inputs=[base]) of an
    expanded view changed in place never writes into the expanded slice (fuzz seed 8197)."""
    def run(m):
        t0 = m.tensor([1.56, 0.57], dtype=m.float32, requires_grad=True)
        t2 = t0.amax(0)
        t3 = t2.expand(2)
        t3.masked_fill_(t3 > 0, 0.25)
        t3.sum().backward(retain_graph=True, inputs=[t2])
        return t2.grad.tolist(), t0.grad

    assert _same(run)[1] == (2.0, None)


def test_hypot_saves_an_input_only_when_its_gradient_is_wanted():
    """torch's HypotBackward0 keeps other only when other needs grad: changing it in place then is fine (seed
    107147)."""
    def run(m):
        a = m.tensor(A34, dtype=m.float32, requires_grad=True)
        b = m.tensor([1.85, 1.28, 1.63, 0.7], dtype=m.float32)
        y = m.minimum(a, m.tanh(m.hypot(a, b)))
        m.sigmoid_(b)
        (y * y).sum().backward()
        return [round(v, 5) for v in a.grad.reshape(-1).tolist()]

    assert _same(run)[0] == "ok"


@pytest.mark.parametrize("inplace", [False, True], ids=["addcdiv", "addcdiv_"])
@pytest.mark.parametrize("self_dtype", ["float32", "float64"])
def test_addcdiv_keeps_tensor2_even_when_only_self_needs_a_gradient(inplace, self_dtype):
    """torch's AddcdivBackward0 saves tensor2 whatever needs a gradient and unpacks it in every backward: changing
    it in place before backward is refused, also when only self requires grad (seed 100000's mixed-dtype draw)."""
    def run(m):
        s = m.tensor([0.5, -1.0, 2.0], dtype=getattr(m, self_dtype), requires_grad=True)
        t1 = m.tensor([1.5, 0.25, -0.5], dtype=m.float32)
        t2 = m.tensor([2.0, 4.0, -8.0], dtype=m.float32)
        y = s.clone().addcdiv_(t1, t2, value=0.5) if inplace else m.addcdiv(s, t1, t2, value=0.5)
        t2.add_(1)
        y.sum().backward()
        return s.grad.tolist()

    assert _same(run)[0] == "error"


_LAYOUT_CASES = {
    "colmajor_times_rowmajor": lambda m, ai, b, c: ai * b,
    "rowmajor_times_colmajor": lambda m, ai, b, c: b * ai,
    "colmajor_plus_rowmajor": lambda m, ai, b, c: ai + b,
    "rowmajor_minus_colmajor": lambda m, ai, b, c: b - ai,
    "colmajor_div_rowmajor": lambda m, ai, b, c: ai / b,
    "colmajor_times_row": lambda m, ai, b, c: ai * b[0],
    "colmajor_times_column": lambda m, ai, b, c: ai * b[:, :1],
    "colmajor_times_batch": lambda m, ai, b, c: ai * m.ones(2, 3, 3),
    "transposed3d_times_contiguous": lambda m, ai, b, c: c.transpose(0, 2) * c.transpose(0, 2).contiguous(),
    "permuted_times_ones": lambda m, ai, b, c: c.permute(1, 2, 0) * m.ones(3, 4, 2),
    "strided_times_ones": lambda m, ai, b, c: c.transpose(0, 2)[:, ::2] * m.ones(4, 2, 2),
}


@pytest.mark.parametrize("name", list(_LAYOUT_CASES))
def test_an_elementwise_result_is_laid_out_by_its_first_operand_as_torchs(name):
    """torch's TensorIterator lets the first operand decide the result's dim order where operands disagree; NumPy
    lets C order win. A product of a LAPACK (column-major) result and a row-major tensor then reshaped: torch
    records UnsafeViewBackward0 (a copy), ours recorded ViewBackward0 (seed 100000)."""
    def run(m):
        a = m.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=m.float64, requires_grad=True)
        b = m.tensor(A34[:, :3], dtype=m.float64)
        c = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float64)
        y = _LAYOUT_CASES[name](m, m.linalg.inv(a), b, c)
        return _layout(y), y.reshape(-1).grad_fn.name() if y.requires_grad else None

    _same(run)


def test_stale_no_grad_view_error_comes_before_the_empty_reduction_check():
    """torch's autograd reads the input's history before the kernel checks its shape: min over an empty dim of a
    no_grad view whose memory changed raises the view error, not the IndexError (found by the fuzzer)."""
    messages = []
    for m in (torch, framework):
        t0 = m.tensor(-1.54, requires_grad=True)
        t3 = t0.view(-1)
        with m.no_grad():
            t10 = t3.narrow(0, 0, 0)
            t10 += -1.0
        with pytest.raises(RuntimeError) as info:
            t10.min(dim=0)
        messages.append(str(info.value).split(".")[0])
    assert messages[0] == messages[1] and messages[0].startswith("A view was created in no_grad mode")


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy"])
@pytest.mark.parametrize("dt,dt2", [("int64", "int64"), ("int32", "int32"), ("bool", "bool"), ("float32", "int64"),
                                    ("int64", "float32"), ("int64", "bool")])
def test_losses_of_integer_operands_as_torch(name, dt, dt2):
    """Both operands integral: torch's kernels have no such version ('"mse_cpu" not implemented for 'Long''); one
    float: computed in its dtype (float32, not NumPy's float64). Found by the fuzzer (mse_loss of an argmax)."""
    results = []
    for m in (torch, framework):
        def make(d):
            return m.tensor([True, False, True] if d == "bool" else [1, 0, 1], dtype=getattr(m, d))
        try:
            out = getattr(m.nn.functional, name)(make(dt), make(dt2))
            results.append(("ok", str(out.dtype).split(".")[1], float(out)))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            results.append((type(e).__name__, str(e).split("\n")[0].replace("torch.", "framework.")))
    assert results[0] == results[1]


# ---- nearest interpolation's backward sums each input's own outputs (a NaN reaches no other input) --------------

def _interp_grad(m, shape, mode, nan_at, **kw):
    x = m.tensor(np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape), requires_grad=True)
    y = m.nn.functional.interpolate(x, mode=mode, **kw)
    g = np.ones(tuple(y.shape))
    g.reshape(-1)[nan_at % g.size] = np.nan
    (gx,) = m.autograd.grad(y, x, m.tensor(g, dtype=y.dtype))
    return gx.detach().cpu().numpy()


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("scale", [0.3, 0.5, 1.5, 2.0])
def test_nearest_backward_with_a_nan_gradient_matches_torch(mode, dims, scale):
    shape = (1, 2) + (7, 5, 4)[:dims]
    for nan_at in (0, 5):
        ours = _interp_grad(framework, shape, mode, nan_at, scale_factor=scale)
        theirs = _interp_grad(torch, shape, mode, nan_at, scale_factor=scale)
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_allclose(np.nan_to_num(ours), np.nan_to_num(theirs), rtol=1e-6)
        assert (np.signbit(ours) == np.signbit(theirs)).all()  # an untouched input gets +0.0


def test_nearest_exact_3d_backward_program():
    def program(m):  # the fuzzer's shrunk program (seed 608243)
        t2 = m.tensor(-0.71).std(dim=-1, keepdim=True)
        a3 = [[[[[0.35, -0.17], [-0.97, 0.43], [1.55, 0.78], [-2.0, -1.0]],
                 [[1.92, 1.74], [-0.34, -1.51], [0.1, 0.3], [0.2, 1.09]]]]]
        t3 = m.tensor(a3, requires_grad=True)
        t4 = m.nn.functional.interpolate(t3, scale_factor=(1.5, 0.5, 2), mode="nearest-exact")
        t6 = m.minimum(m.atan2(t2, t4), t4)
        return np.isnan(m.autograd.grad(t6.sum(), [t4, t3])[1].cpu().numpy()).tolist()

    assert _same(program)[0] == "ok"


@pytest.mark.parametrize("mode,shape", [("linear", (1, 1, 6)), ("bilinear", (1, 1, 6, 5)),
                                        ("trilinear", (1, 1, 4, 3, 5))])
@pytest.mark.parametrize("align_corners", [False, True])
def test_linear_modes_copy_a_dim_whose_size_does_not_change(mode, shape, align_corners):
    """torch copies a dim whose size stays, whatever the scale (1.1 on 6 pixels keeps 6): no tap of weight 0 on the
    neighbour, so a NaN stays where it is, and the values are the input's."""
    def program(m):
        x = m.tensor(np.arange(float(np.prod(shape))).reshape(shape))
        scaled = m.nn.functional.interpolate(x, scale_factor=1.1, mode=mode, align_corners=align_corners)
        x.view(-1)[3] = float("nan")
        y = m.nn.functional.interpolate(x, size=shape[2:], mode=mode, align_corners=align_corners)
        return np.isnan(y.cpu().numpy()).tolist(), scaled.cpu().numpy().round(5).tolist()

    _same(program)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_an_op_given_x_and_x_data_checks_each_version(dtype):
    """atan2(t1, t1.data) saves both; writing through .data (its own version counter) must fail the backward, as
    torch's (ours saved the first tensor twice, the arrays being one object; found by the fuzzer)."""
    if dtype == "bfloat16" and str(framework.empty(0).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def program(m):
        t0 = m.tensor(-0.89, requires_grad=True)
        t1 = t0.to(getattr(m, dtype))
        t2 = t1.data
        t4 = m.atan2(t1, t2)
        t2[...] = t1
        (t4 / (t2.abs() + 1)).sum().backward()
    theirs = outcome(program, torch)
    assert outcome(program, framework) == theirs and theirs[0] == "error"


def test_expand_error_names_bfloat16_as_torch():
    if str(framework.empty(0).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    messages = []
    for m in (torch, framework):
        t0 = m.tensor([-0.16, -0.04, -0.79, 1.59], dtype=m.bfloat16)
        with pytest.raises(RuntimeError) as info:
            t0.expand(())
        messages.append(str(info.value).replace("torch.", "framework."))
    assert messages[0] == messages[1]


# ---- issue 33: empty indices and results, integer input to floating-only activations ----------------------------

def test_empty_list_index_is_an_empty_long_index():
    """fuzz seed 1007362: ``t[[]] = t[-1:]`` of an empty narrow; torch reads ``[]`` as an empty long index."""
    def prog(m):
        t = (m.tensor(A34, dtype=m.float32, requires_grad=True) * 1).narrow(0, 0, 0)
        t[[]] = t[-1:]
        return tuple(t.shape), t._version, tuple(m.zeros(2, 3)[[]].shape), tuple(m.zeros(2, 3)[:, []].shape)
    assert _same(prog)[0] == "ok"


@pytest.mark.parametrize("index", ["[False,]", "[False]", "[None, False]", "[0, False]", "[[]]", "[:, []]"])
def test_empty_index_results_have_contiguous_strides(index):
    """NumPy gives a new empty array zero strides; torch's empty results are contiguous (size-0 dims step as 1)."""
    def prog(m):
        out = eval(f"m.zeros(2, 3, 4){index}")  # noqa: S307 - the index as the fuzzer writes it
        return tuple(out.shape), out.stride(), out.is_contiguous()
    assert _same(prog)[0] == "ok"


def test_softmax_of_an_empty_long_tensor_runs_no_kernel():
    """fuzz seed 1004921: ``t2[False,]`` of a Long argmin is an empty Long tensor, whose softmax torch returns
    (empty, Long) without reaching the kernel that refuses integers; a non-empty one is still refused."""
    def prog(m):
        t = m.tensor(-0.79, dtype=m.float32).argmin(None, keepdim=True)[False,]
        out, log = m.softmax(t, dim=-1), m.log_softmax(t, dim=0)
        return str(out.dtype)[-5:], tuple(out.shape), out.stride(), str(log.dtype)[-5:]
    assert _same(prog)[0] == "ok"
    assert _same(lambda m: m.softmax(m.tensor([1, 2]), dim=-1))[0] == "error"


_INT_ACTIVATIONS = {
    "leaky_relu": lambda F, a: F.leaky_relu(a, 0.2), "leaky_relu_": lambda F, a: F.leaky_relu(a, 0.2, inplace=True),
    "gelu": lambda F, a: F.gelu(a), "gelu_tanh": lambda F, a: F.gelu(a, approximate="tanh"),
    "silu": lambda F, a: F.silu(a), "silu_": lambda F, a: F.silu(a, inplace=True), "mish": lambda F, a: F.mish(a),
    "hardswish": lambda F, a: F.hardswish(a), "hardsigmoid": lambda F, a: F.hardsigmoid(a),
    "logsigmoid": lambda F, a: F.logsigmoid(a), "softplus": lambda F, a: F.softplus(a),
    "prelu": lambda F, a: F.prelu(a, a.new_ones(1)), "glu": lambda F, a: F.glu(a, 0),
    "hardshrink": lambda F, a: F.hardshrink(a, 0.4), "softshrink": lambda F, a: F.softshrink(a, 0.4),
    "rrelu": lambda F, a: F.rrelu(a), "rrelu_train": lambda F, a: F.rrelu(a, training=True),
    "elu": lambda F, a: F.elu(a), "relu": lambda F, a: F.relu(a), "relu6": lambda F, a: F.relu6(a),
    "hardtanh": lambda F, a: F.hardtanh(a), "hardtanh_01": lambda F, a: F.hardtanh(a, 0.0, 1.0),
    "hardtanh_": lambda F, a: F.hardtanh(a, inplace=True), "threshold": lambda F, a: F.threshold(a, 0.3, 2.0),
    "threshold_": lambda F, a: F.threshold(a, 0.3, 2.0, inplace=True), "softsign": lambda F, a: F.softsign(a),
}


@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("rows", [4, 0])
@pytest.mark.parametrize("name", sorted(_INT_ACTIVATIONS))
def test_activations_of_integer_input_as_torch(name, rows, dt):
    """fuzz seed 1109673: leaky_relu of a Long argmin. torch's floating-only kernels refuse an integer or bool
    input (even an empty one); relu, hardtanh and threshold take integers, with their own errors for bool/uint8."""
    def prog(m):
        out = _INT_ACTIVATIONS[name](m.nn.functional, m.ones(rows, 2, dtype=getattr(m, dt)))
        return str(out.dtype).split(".")[-1], out.tolist()
    _same(prog)


@pytest.mark.parametrize("dt", ["float32", "bfloat16", "float64"])
def test_mse_loss_backward_of_an_empty_slice(dt, device):
    """fuzz seed 1209230: mean mse_loss of an empty slice (nan), then backward: an empty gradient, no division by
    its zero element count."""
    if dt == "bfloat16" and device != "cpu":
        pytest.skip("CuPy has no bfloat16 (test_bfloat16.py's test_gpu_refuses_bfloat16 covers the device)")
    def prog(m):
        t1 = m.tensor(0.96, dtype=getattr(m, dt), requires_grad=True)
        t4 = t1.flatten()[-1:0:1]
        loss = m.nn.functional.mse_loss(t4, t4)
        loss.backward(m.tensor(-0.09, dtype=loss.dtype), retain_graph=True)
        return loss.isnan().item(), t1.grad.tolist()
    assert _same(prog)[0] == "ok"


def test_view_and_unsqueeze_of_an_expand_keep_torchs_strides():
    """view()/unsqueeze() of a tensor with a stride-0 dim: torch's computeStride keeps 0 in the new size-1 dims (NumPy
    normalises them), which decides whether AccumulateGrad keeps such a gradient (found by the fuzzer: the .grad
    of a (1, 1) leaf summed through view(1) or squeeze(-1) is a copy, version 1)."""
    for m in (torch, framework):
        g = m.ones(()).expand(1)
        h = m.ones(3, 1).expand(3, 4)
        strides = (g.view(1, 1).stride(), g.unsqueeze(-1).stride(), g.unsqueeze(0).stride(), h.unsqueeze(1).stride(),
                   h[:, :1].view(3, 1, 1).stride(), m.ones(1, 4).expand(2, 4).view(2, 1, 4).stride())
        if m is torch:
            theirs = strides
    assert strides == theirs
    versions = []
    for m in (torch, framework):
        t1 = m.tensor([[-0.78]], requires_grad=True)
        t1.squeeze(-1).sum().backward()
        t2 = m.tensor([[-0.87]], dtype=m.float64, requires_grad=True)
        t2.view(1).sum().backward()
        versions.append((t1.grad._version, t2.grad._version))
    assert versions[0] == versions[1] == (1, 1)


@pytest.mark.parametrize("k", [1, 3])
def test_rot90_lays_out_its_copy_as_torch(k):
    """rot90 flips into a copy laid out as its input, then transposes: a non-contiguous gradient rotates back into a
    C-ordered one, which AccumulateGrad keeps (version 0)."""
    out = []
    for m in (torch, framework):
        x = m.tensor(np.arange(24.0).reshape(2, 3, 4))
        strides = [m.rot90(y, k, (0, 2)).stride() for y in (x, x.transpose(0, 2), x.permute(1, 0, 2))]
        t5 = m.tensor([[1.78, 1.83, -1.96], [1.52, -1.36, 1.61]], requires_grad=True)
        t6 = m.rot90(t5, k)
        (t6 * t6).sum().backward()
        out.append((strides, t5.grad._version, t5.grad.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_gradient_is_one_node_under_create_graph(training):
    results = []
    for m in (torch, framework):
        x = m.tensor([[-0.42, 0.74], [-1.3, 0.58]], dtype=m.float64, requires_grad=True)
        y = m.nn.functional.rrelu(x, 0.1, 0.3, training=training)
        g, = m.autograd.grad(y.sum(), [x], create_graph=True)
        gg, = m.autograd.grad(g.sum(), [x])
        results.append((g.requires_grad, type(g.grad_fn).__name__, gg.tolist()))
    assert results[0] == results[1]


def test_float32_bessel_overflow_as_torch():
    """torch's float32 i0/i1 compute exp(|x|) in float32: inf from |x| = 88.72284 on, below float32's max."""
    values = [88.72283, 88.72284, -90.0, 5.0, -3.0]
    for f in (lambda m, t: m.i0(t), lambda m, t: m.special.i1(t)):
        ours, theirs = f(framework, framework.tensor(values)), f(torch, torch.tensor(values))
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)
        assert np.array_equal(np.isinf(ours.cpu().numpy()), np.isinf(theirs.numpy()))


def test_quantile_along_the_last_dim_sorts_the_input_itself():
    """torch's quantile sorts the input itself when dim is its last (no view node): the gradient the engine then
    holds may be summed into in place (t2.grad's _version 3 after a copy_ over the result; found by the fuzzer)."""
    a2 = np.array([[-0.42, 0.03, 1.29, 1.76], [1.74, 0.6, -0.58, -1.92], [-0.59, -0.09, -1.94, -1.86]])
    versions = []
    for m in (torch, framework):
        t2 = m.tensor(a2, requires_grad=True)
        t7 = m.quantile(t2, 0.3, dim=1)
        t7.copy_(m.diag(t2, 1))
        (t7 * t7).sum().backward()
        versions.append((t2.grad._version, t2.grad.tolist()))
    assert versions[0] == versions[1]


def test_block_diag_gradient_of_a_1d_input_from_an_expanded_gradient():
    """torch's block_diag backward gives a 1-D input its (1, n) row of the (here expanded) gradient, which the
    engine sums to a fresh contiguous tensor that AccumulateGrad keeps (version 0; found by the fuzzer)."""
    out = []
    for m in (torch, framework):
        t2 = m.tensor([[0.1, -0.04, 1.31], [0.57, -0.98, -1.55]], requires_grad=True)
        t3 = m.tensor([0.1, 1.62, 1.5], requires_grad=True)
        m.block_diag(t2, t3).sum().backward(retain_graph=True, inputs=[t3])
        out.append((t3.grad._version, t3.grad.stride(), t3.grad.tolist()))
    assert out[0] == out[1]
