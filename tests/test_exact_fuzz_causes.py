"""PyTorch-exactness, causes found by the fuzzer (tests/fuzz.py) after the issue-15 fixes: each scenario runs under
framework and torch and must end the same way (a value, or an error's class and first sentence)."""
from __future__ import annotations

import pytest

import framework
from scenario import outcome

torch = pytest.importorskip("torch")


def _same(fn):
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours == theirs
    return ours


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_broadcast_error_text(name):
    _same(lambda m: getattr(m, name)(m.ones(9), m.ones(3)))


@pytest.mark.parametrize("dtypes", [("d", "f", "d"), ("f", "d", "f"), ("f", "f", "d"), ("d", "d", "f"),
                                    ("d", "f", "f")])
def test_conv2d_dtype_checks_in_torchs_order(dtypes):
    def fn(m):
        dt = {"f": m.float32, "d": m.float64}
        x, w, b = (dt[c] for c in dtypes)
        return m.nn.functional.conv2d(m.ones(1, 2, 4, 4, dtype=x), m.ones(3, 2, 3, 3, dtype=w), m.ones(3, dtype=b))

    _same(fn)


@pytest.mark.parametrize("dtypes", [("d", "f"), ("f", "d")])
def test_conv_transpose2d_dtype_check(dtypes):
    def fn(m):
        dt = {"f": m.float32, "d": m.float64}
        return m.nn.functional.conv_transpose2d(m.ones(1, 2, 4, 4, dtype=dt[dtypes[0]]),
                                                m.ones(2, 3, 3, 3, dtype=dt[dtypes[1]]))

    _same(fn)


@pytest.mark.parametrize("op", ["scatter", "scatter_add"])
def test_scatter_src_dtype_must_match(op):
    _same(lambda m: getattr(m.ones(2, 3, dtype=m.float64), op)(1, m.tensor([[0, 1]]), m.ones(1, 2)))


@pytest.mark.parametrize("dtypes", ["dff", "fdf", "ffd"])
def test_baddbmm_dtype_checks(dtypes):
    def fn(m):
        dt = {"f": m.float32, "d": m.float64}
        return m.baddbmm(*(m.ones(2, 2, 2, dtype=dt[c]) for c in dtypes))

    _same(fn)


@pytest.mark.parametrize("dtypes", [("d", "f"), ("f", "d")])
def test_binary_cross_entropy_target_dtype(dtypes):
    def fn(m):
        dt = {"f": m.float32, "d": m.float64}
        return m.nn.functional.binary_cross_entropy(m.full((3,), 0.5, dtype=dt[dtypes[0]]),
                                                    m.ones(3, dtype=dt[dtypes[1]]))

    _same(fn)


def test_lerp_end_dtype():
    _same(lambda m: m.ones(3).lerp_(m.ones(3, dtype=m.float64), 0.3))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_tensor(fn):
    def run(m):
        x = m.ones(2, 0, requires_grad=True)
        y = getattr(m, fn)(x, dim=-1)
        y.sum().backward()
        return y.shape, x.grad.shape, type(y.grad_fn).__name__

    _same(run)


def test_detach_in_place_refuses_any_view():
    def fn(m):
        t = m.ones(3)
        with m.no_grad():
            v = t.unsqueeze(-1)
        with pytest.raises(RuntimeError) as info:
            v.detach_()
        return str(info.value).split(". ")[0]  # torch's first sentence (its second names torch's own files)

    assert fn(framework) == fn(torch) == "Can't detach views in-place"


@pytest.mark.parametrize("stmt", ["a[0] = 100", "a[:1] = 0.5", "a[:, :] = 1.0", "a[..., :] = 1.0", "a[..., 0] = 1.0"])
def test_setitem_on_a_leaf_names_the_leaf_when_the_key_covers_it(stmt):
    def fn(m):
        a = m.tensor([[2.0, 1.0]], requires_grad=True)
        exec(stmt)

    _same(fn)


@pytest.mark.parametrize("op", ["neg_", "zero_", "mul_"])
def test_in_place_on_the_gradient_of_a_0d_sum(op):
    """A 0-d gradient is a broadcast of nothing: no element repeats, so torch writes into it."""
    def fn(m):
        t0 = m.tensor(1.13, requires_grad=True)
        (g,) = m.autograd.grad(t0.sum(), [t0])
        getattr(g, op)(*([2.0] if op == "mul_" else []))
        return g.tolist(), g._version

    _same(fn)


def test_in_place_on_an_expanded_gradient_still_refused():
    def fn(m):
        t0 = m.tensor([1.0, 2.0], requires_grad=True)
        (g,) = m.autograd.grad(t0.sum(), [t0])
        g.neg_()

    _same(fn)


@pytest.mark.parametrize("call", ["x.max(dim=1)", "x.max(dim=-1)", "x.min(dim=1)", "x.amax(1)", "x.amax((0, 1))",
                                  "x.amin(-2)", "x.argmax(1)", "x.argmin(-2)", "x.amax(2)"])
def test_max_like_reductions_over_an_empty_dim(call):
    def fn(m):
        x = m.ones(2, 0, 3)
        out = eval(call)
        return tuple((out[0] if isinstance(out, tuple) else out).shape)

    _same(fn)


@pytest.mark.parametrize("inputs", ["[t0, t0]", "[t0, t0.flatten()]"])
def test_backward_inputs_naming_a_tensor_twice_accumulates_once(inputs):
    """Found by the fuzzer (a silent double count): flatten of a 1-D tensor is the tensor itself, in both."""
    def fn(m):
        t0 = m.tensor([-0.39, 1.9], requires_grad=True)
        (t0 * 3).sum().backward(inputs=eval(inputs))
        return t0.grad.tolist()

    assert _same(fn) == ("ok", [3.0, 3.0])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_gradient_with_a_nan(name):
    """Found by the fuzzer: torch gives each side the gradient unless it lost, so against a NaN both get it."""
    def fn(m):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = m.tensor([float("nan"), 2.0, 0.5], requires_grad=True)
        getattr(m, name)(a, b).sum().backward()
        return a.grad.tolist(), b.grad.tolist()

    _same(fn)


@pytest.mark.parametrize("op", ["sqrt_", "exp_", "sin_", "sigmoid_", "tanh_", "log_", "cos_"])
def test_float_inplace_on_integer_tensor_names_long_as_torch(op):
    """exp_ & co. on an int64 tensor: torch's cast error names the type 'Long' (clamp_'s says 'long int')."""
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        with pytest.raises(RuntimeError) as err:
            getattr(m.tensor([1, 2, 3]), op)()
        texts.append(str(err.value).split("\n")[0])
    assert texts[0] == texts[1]


def test_clamp_inplace_on_integer_tensor_names_long_int_as_torch():
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        with pytest.raises(RuntimeError) as err:
            m.tensor([1, 2, 3]).clamp_(0.5, 1.5)
        texts.append(str(err.value).split("\n")[0])
    assert texts[0] == texts[1] == "result type Float can't be cast to the desired output type long int"


def test_module_repr_puts_a_multiline_extra_repr_one_line_each_as_torch():
    torch = pytest.importorskip("torch")
    reprs = []
    for m in (framework, torch):
        class WithExtra(m.nn.Module):
            def extra_repr(self):
                return "a=1\nb=2"
        reprs.append((repr(WithExtra()), repr(m.nn.Sequential(WithExtra(), m.nn.ReLU()))))
    assert reprs[0] == reprs[1]


@pytest.mark.parametrize("slope", [0.0, 0.2, 1.0, 1.5, -0.1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_backward_is_torchs_bit_for_bit_on_special_values(slope, dtype):
    """The backward's factor trick (max of the 0/1 mask and slope) must give exactly torch's grad or grad*slope,
    for NaN inputs, zeros of both signs, infinite gradients, and slopes outside [0, 1] (where() then)."""
    torch = pytest.importorskip("torch")
    import numpy as np
    x = np.array([-2.0, -0.0, 0.0, 1e-30, -1e-30, 3.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 7.0], dtype=dtype)
    g = np.array([1.5, -2.0, 3.0, -0.0, np.inf, -np.inf, 2.0, -1.0, 4.0, np.nan, 1e-40, -3.25], dtype=dtype)
    got = []
    for m in (framework, torch):
        t = m.tensor(x, requires_grad=True)
        m.nn.functional.leaky_relu(t, slope).backward(m.tensor(g))
        got.append(np.asarray(t.grad.detach().cpu().numpy()))
    np.testing.assert_array_equal(np.signbit(got[0]), np.signbit(got[1]))
    np.testing.assert_array_equal(got[0], got[1])


def test_leaky_relu_backward_of_a_0d_tensor():
    """numpy compares 0-d arrays into a scalar: the backward's factor must still be an array (fuzzer finding)."""
    torch = pytest.importorskip("torch")
    grads = []
    for m in (framework, torch):
        t = m.tensor(-1.5, requires_grad=True)
        m.nn.functional.leaky_relu(t, 0.2).backward()
        grads.append(float(t.grad))
    assert grads[0] == grads[1]


@pytest.mark.parametrize("x, t", [([0.5, 1.5], [0.2, 0.3]), ([0.5, 0.5], [0.2, float("nan")]),
                                  ([0.5, 2.0], [1.5, 0.3]), ([0.5, 0.2], [1.5, 3.0])])
def test_binary_cross_entropy_checks_target_range_element_by_element_as_torch(x, t):
    """torch's kernel checks each element's input then its target: the first bad element names which (fuzzer)."""
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        with pytest.raises(RuntimeError) as err:
            m.nn.functional.binary_cross_entropy(m.tensor(x), m.tensor(t))
        texts.append(str(err.value).split("\n")[0])
    assert texts[0] == texts[1]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_max_pool1d_is_a_view_only_when_it_tracks_a_gradient_as_torch(requires_grad):
    """torch's max_pool1d takes the (view-returning) with_indices path only to track a gradient (fuzzer)."""
    torch = pytest.importorskip("torch")
    import numpy as np
    x0 = np.random.default_rng(0).standard_normal((1, 2, 7)).astype(np.float32)
    got = []
    for m in (framework, torch):
        y = m.nn.functional.max_pool1d(m.tensor(x0, requires_grad=requires_grad), 3, stride=2, padding=1)
        got.append((y._base is None, y.requires_grad))
    assert got[0] == got[1]


def test_binary_cross_entropy_dtype_error_comes_before_the_range_checks_as_torch():
    torch = pytest.importorskip("torch")
    texts = []
    for m in (framework, torch):
        with pytest.raises(RuntimeError) as err:
            m.nn.functional.binary_cross_entropy(m.tensor([0.5, 1.5], dtype=m.float32),
                                                 m.tensor([0.2, 3.0], dtype=m.float64))
        texts.append(str(err.value).split("\n")[0])
    assert texts[0] == texts[1] == "Found dtype Double but expected Float"


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
@pytest.mark.parametrize("dim", [0, 1])
def test_a_non_dense_gradient_cast_to_the_leafs_dtype_is_contiguous_as_torch(dtype, dim):
    """cat of a narrower dtype with float64 under a keepdim sum: CatBackward0's slice of the expanded gradient is cast
    C-contiguous as torch's to(), so AccumulateGrad steals it (.grad._version 0; fuzz seed 4604085)."""
    import numpy as np
    if dtype == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def fn(m):
        t1 = m.tensor(np.arange(6.0).reshape(2, 3), dtype=getattr(m, dtype), requires_grad=True)
        t2 = m.tensor(np.ones((2, 3)), dtype=m.float64, requires_grad=True)
        t3 = m.cat([t1, t2], dim=dim)
        t3.sum(dim=1 - dim, keepdim=True).backward(m.ones_like(t3.sum(dim=1 - dim, keepdim=True)))
        return [(t.grad._version, t.grad.stride(), str(t.grad.dtype).split(".")[-1]) for t in (t1, t2)]
    _same(fn)


@pytest.mark.parametrize("op", ["mul", "div", "matmul", "view_mul"])
def test_an_input_without_an_edge_gets_nothing_saved_for_it_as_torch(op):
    """A view made under no_grad of a leaf requires grad but has no grad accumulator: torch's op records a node with
    no edge there, computes no gradient for it and saves nothing for it, so changing the other operand afterwards
    is no error (fuzz seed 4804693)."""
    import numpy as np

    def fn(m):
        leaf = m.tensor(np.arange(1.0, 5.0).reshape(2, 2), requires_grad=True)
        with m.no_grad():
            v = leaf.as_strided((2, 2), (1, 2))
        other = m.tensor([[0.5, -1.5], [2.0, 0.25]])
        out = {"mul": lambda: other * v, "div": lambda: other / v, "matmul": lambda: other @ v,
               "view_mul": lambda: other * v.t()}[op]()
        saved = [getattr(out.grad_fn, n) is None for n in ("_saved_self", "_saved_other") if hasattr(out.grad_fn, n)]
        other.mul_(2)
        out.sum().backward()
        return out.requires_grad, out.grad_fn.next_functions, saved, leaf.grad, v.grad
    _same(fn)


@pytest.mark.parametrize("shape", [(1,), (1, 3), (3, 1), (2, 3)])
@pytest.mark.parametrize("write", ["zero_", "fill_"])
def test_zero_and_fill_gradients_keep_the_incoming_layout_as_torch(shape, write):
    """ZeroBackward0/FillBackward's zeros_like(grad) keeps a size-1 dim's 0 stride of a sum's expanded gradient, so
    AccumulateGrad copies it into the leaf (.grad._version 1; fuzz seed 5108404)."""
    import numpy as np

    def fn(m):
        leaf = m.tensor(np.full(shape, -0.21), dtype=m.float32, requires_grad=True)
        t = leaf.double()
        t.zero_() if write == "zero_" else t.fill_(2.0)
        t.sum().backward(retain_graph=True)
        return leaf.grad._version, leaf.grad.stride(), leaf.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", ["avg_pool2d(x, 2)", "avg_pool2d(x, 3, 1, 1)",
                                  "avg_pool2d(x, (2, 3), 2, ceil_mode=True)", "avg_pool1d(x.flatten(2), 3)",
                                  "avg_pool3d(x[None], 2)"])
def test_avg_pool_adds_each_window_in_torchs_order(call, dtype):
    """avg_pool adds a window's elements one offset at a time in row-major order, as torch's kernels: the values are
    torch's bit for bit (a window that cancels is 0 in both, not 0 in one and -3e-17 in the other: fuzz seed
    5208046)."""
    import numpy as np
    x0 = np.round(np.random.default_rng(3).uniform(-2, 2, (2, 3, 6, 7)), 2)
    x0[0, 0, :2, :2] = [[-1.07, -0.78], [1.21, 0.64]]  # the fuzzer's window that cancels
    outs = []
    for m in (framework, torch):
        x = m.tensor(x0, dtype=getattr(m, dtype))
        outs.append(np.asarray(eval(f"m.nn.functional.{call}").tolist()))
    assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("view", ["t()", "squeeze(1)", "view(1, 3)", "reshape(3)", "unsqueeze(0)"])
def test_a_view_of_a_gradient_summed_in_place_shares_its_version_as_torch(view):
    """(v * v) sums its two gradients in place (_version 1); the view op's backward returns a view of that sum,
    sharing its version counter as torch's, so the leaf's stolen .grad has _version 1 (fuzz seed 5207875: the sum's
    array was restrided on its size-1 dims, and its views were not recognised)."""
    import numpy as np

    def fn(m):
        leaf = m.tensor(np.array([[0.94], [-0.5], [1.2]]), dtype=m.float32, requires_grad=True)
        v = eval(f"leaf.{view}")
        (v * v).sum().backward(retain_graph=True)
        return leaf.grad._version, leaf.grad.stride(), leaf.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("mask", [[False], [True]])
@pytest.mark.parametrize("values", ["v[-1:]", "v[0]", "v.reshape(1)", "m.tensor(0.5)"])
def test_index_put_values_gradient_as_torchs_engine_checks_it(mask, values):
    """IndexPutBackward0's values gradient grad[index] is summed down to the values' shape, or refused with torch's
    engine error when the values' shape does not broadcast to it (an all-False mask: fuzz seed 5206591)."""
    def fn(m):
        leaf = m.tensor([[-0.87]], requires_grad=True)
        v = leaf.amin(-2, keepdim=True)
        v.index_put_((m.tensor([mask]),), m.as_tensor(eval(values), dtype=v.dtype), accumulate=False)
        return [None if g is None else g.tolist() for g in m.autograd.grad(v.sum(), [leaf], retain_graph=True)]
    _same(fn)


@pytest.mark.parametrize("op", ["atan2", "mul", "hypot", "pow", "fmax", "maximum", "div", "sub"])
def test_a_0d_float32_operand_of_a_bfloat16_op_is_saved_itself_as_torch(op):
    """A 0-d float32 operand of a bfloat16 op is computed in bfloat16, but the node saves the tensor itself, as
    torch's: changing it afterwards is the in-place error, and otherwise the gradients are torch's (fuzz seed
    5302333)."""
    if str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def fn(m, write):
        t0 = m.tensor(1.2, requires_grad=True)
        t1 = m.tensor([0.84, -1.84], dtype=m.bfloat16, requires_grad=True)
        out = getattr(m, op)(t0, t1) if op not in ("div", "sub") else getattr(m, op)(t1, t0)
        if write:
            with m.no_grad():
                t0[...] = 1.5
        out.sum().backward()
        return [t.grad.float().tolist() for t in (t0, t1)], str(out.dtype).split(".")[-1]
    for write in (False, True):
        _same(lambda m: fn(m, write))


@pytest.mark.parametrize("op", ["addcmul", "addcdiv", "lerp", "mul"])
def test_a_node_that_saved_nothing_runs_again_after_a_backward_as_torch(op):
    """A backward without retain_graph frees saved tensors; a node that saved none (only self needs a gradient of
    addcmul) runs again, where torch raises only when it unpacks a freed one (fuzz seed 5504353)."""
    def fn(m):
        a = m.tensor([-1.14, -0.01, 0.07], requires_grad=True)
        t = m.tensor([[0.53, 0.8, -0.71], [1.75, -1.4, 1.67]], dtype=m.float64)
        out = {"addcmul": lambda: a.addcmul(t, t), "addcdiv": lambda: a.addcdiv(t, t + 3),
               "lerp": lambda: a.lerp(t, 0.3), "mul": lambda: a * t}[op]()
        out.sum().backward()
        out.mean().backward()
        return a.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("call", ["amax(-1)", "amax(0, keepdim=True)", "amin((0,))", "amax()", "amin(-1)"])
def test_amax_of_a_0d_tensor_over_a_dim_ends_in_torchs_sum(call):
    """amax/amin of a 0-d tensor over a dim: torch's backward restores the dim as (1,) and its engine sums the
    gradient back down, a SumBackward0 under create_graph (fuzz seed 5507280)."""
    def fn(m):
        leaf = m.tensor(0.46, requires_grad=True)
        loss = m.nn.functional.mse_loss(m.tensor(-0.32, requires_grad=True), eval(f"leaf.{call}"))
        (g,) = m.autograd.grad(loss, [leaf], create_graph=True)
        names, fn_ = [], g.grad_fn
        while fn_ is not None:
            names.append(type(fn_).__name__)
            fn_ = fn_.next_functions[0][0] if fn_.next_functions else None
        return g.item(), tuple(g.shape), names
    _same(fn)


@pytest.mark.parametrize("n", [0, 1])
def test_cat_gradient_of_an_empty_1d_input_is_a_new_zeros_as_torch(n):
    """torch's cat_tensors_backward gives an empty 1-D input at::zeros({0}) (its _version 1, its own strides), not
    a slice of the gradient (fuzz seed 5507018)."""
    def fn(m):
        t = m.tensor(0.87, requires_grad=True)[None].expand(3).narrow(0, 0, n)
        a, b = m.abs(t), m.abs(t)
        ga, gb = m.autograd.grad(m.cat([a, b]).sum(), [a, b])
        return [(g._version, g.stride(), tuple(g.shape)) for g in (ga, gb)]
    _same(fn)


@pytest.mark.parametrize("wants", ["input", "weight", "both"])
def test_prelu_double_backward_by_which_gradients_were_taken_as_torch(wants):
    """PreluKernelBackwardBackward0 follows torch's formulas by which of its outputs got a gradient; a missing one's
    term is zeros_like(self), _version 1 (fuzz seed 5604586)."""
    import numpy as np

    def fn(m):
        a = m.tensor(np.array([[0.26, -0.35, 0.8], [-1.44, -1.2, -1.38]]), dtype=m.float32, requires_grad=True)
        w = m.tensor([0.59], requires_grad=True)
        out = m.nn.functional.prelu(a, w)
        inputs = {"input": [a], "weight": [w], "both": [a, w]}[wants]
        grads = m.autograd.grad(out.sum(), inputs, create_graph=True)
        sum((g * g).sum() for g in grads).backward()
        # (values to 4 decimals: the weight gradient's float32 sum adds in another order than torch's)
        return [(np.round(np.asarray(t.grad.tolist()), 4).tolist(), t.grad._version) for t in (a, w)]
    _same(fn)


@pytest.mark.parametrize("call", ["interpolate(x, size=(1, 2, 2), mode='area')", "adaptive_avg_pool3d(x, 2)",
                                  "adaptive_avg_pool2d(x[0], 2)", "avg_pool3d(x, 2)", "avg_pool2d(x[0], 2)",
                                  "pad(x[0], (1, 1, 1, 1), mode='reflect')",
                                  "pad(x[0], (1, 1, 1, 1), mode='replicate')"])
def test_double_backward_input_gradient_of_pooling_and_padding_is_zeros_like(call):
    """The double-backward node's gradient in the input is torch's zeros_like(self), _version 1 (fuzz seed
    5700308: interpolate's area mode)."""
    import numpy as np

    def fn(m):
        x = m.tensor(np.linspace(-1.5, 2.0, 36).reshape(1, 1, 3, 3, 4), dtype=m.float32, requires_grad=True)
        out = eval(f"m.nn.functional.{call}")
        (g,) = m.autograd.grad(out.sum(), [x], create_graph=True)
        g.backward(m.ones_like(g), inputs=[x])
        return type(g.grad_fn).__name__, x.grad._version, x.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "atan2_", "copysign_", "fmod_"])
def test_bfloat16_in_place_op_with_a_0d_operand_of_another_dtype_as_torch(op):
    """An in-place bfloat16 op casts a 0-d float64/float32 operand to bfloat16 first, as its out-of-place form and
    torch's kernels, but where torch reads its value (mul_, div_): values bit for bit (fuzz seed 5800439's sub_)."""
    if str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def fn(m):
        out = []
        for v in (-1.81, 0.337, 2.71828):
            for dt in (m.float64, m.float32):
                t = m.tensor([0.275390625, -3.109375, 1.7], dtype=m.bfloat16)
                getattr(t, op)(m.tensor(v, dtype=dt))
                out.append(t.float().tolist())
        return out
    _same(fn)


@pytest.mark.parametrize("call", ["linalg.svd(a)", "linalg.svdvals(a)", "linalg.matrix_norm(a, 'nuc')",
                                  "linalg.matrix_norm(a, 2)", "linalg.pinv(a)", "svd(a)"])
def test_svd_of_a_matrix_with_nan_raises_torchs_linalg_error(call):
    """Every op built on the SVD refuses a NaN entry with torch's _LinAlgError (fuzz seed 6002504), not NumPy's
    "SVD did not converge"."""
    def fn(m):
        a = m.ones(3, 4)
        a[0, 0] = float("nan")
        return eval(f"m.{call}")
    ours, theirs = outcome(fn, framework), outcome(fn, torch)
    assert ours[:2] == theirs[:2]


def test_svd_of_a_matrix_with_inf_returns_nan_singular_values_as_torch():
    """An inf entry: torch's singular values are NaN (no error); NumPy's LAPACK call would never return."""
    import numpy as np
    for m in (framework, torch):
        a = m.ones(2, 3, 4)
        a[1, 0, 0] = float("inf")
        s = np.asarray(m.linalg.svdvals(a).tolist())
        assert np.isnan(s[1]).all() and np.isfinite(s[0]).all()
        assert np.isnan(m.linalg.matrix_norm(a, "nuc")[1].item())


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_double_backward_versions_and_graph_as_torch(reduction):
    """MseLossBackwardBackward0's input gradient is torch's mse_loss_double_backward: 2 * g, divided in place for
    'mean' (DivBackward1, _version 1); the target's is that computed again and negated (fuzz seed 6305827: the leaf's
    accumulated gradient ended one version short)."""
    import numpy as np

    def fn(m):
        x = m.tensor(np.array([0.11, 0.5, -0.3]), dtype=m.float32, requires_grad=True)
        t = m.tensor(np.array([0.2, 0.1, 0.3]), dtype=m.float32, requires_grad=True)
        gx, gt = m.autograd.grad(m.nn.functional.mse_loss(x, t, reduction=reduction), [x, t], create_graph=True)
        a, b = m.autograd.grad((gx * gx).sum() + gt.sum(), [x, t], create_graph=True)
        one = m.tensor(np.array(0.11), dtype=m.float32, requires_grad=True)
        (g,) = m.autograd.grad(m.nn.functional.mse_loss(one, one, reduction=reduction), [one], create_graph=True)
        (h,) = m.autograd.grad(g.sum(), [one], retain_graph=True)
        names = [a.grad_fn.name()] + [f.name() for f, _ in a.grad_fn.next_functions if f is not None]
        return names, a.tolist(), b.tolist(), a._version, b._version, h._version
    _same(fn)


def test_stolen_gradients_share_memory_as_torchs():
    """AccumulateGrad steals a gradient only the engine holds: the leaf's .grad is that memory, so two slices of one
    stack gradient alias (a second backward adds into the shared element twice: fuzz seed 6205906), and a view of
    the gradient a user passed aliases it; a gradient the user still holds is copied."""
    import numpy as np

    def fn(m):
        out = []
        t1 = m.tensor(np.array(0.09), dtype=m.float32, requires_grad=True)
        t2 = m.tensor(np.array(-1.14), dtype=m.float32, requires_grad=True)
        t3 = m.stack([t1, t2])
        t3.sum().backward()
        t3.sum().backward(retain_graph=True)
        out += [t1.grad.item(), t2.grad.item(), t1.grad._version]
        a, b = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        m.stack([a, b]).sum().backward()
        a.grad.zero_()
        out += [a.grad.tolist(), b.grad.tolist()]
        x, g = m.ones(2, 2, requires_grad=True), m.ones(4)
        x.view(4).backward(g)
        g.add_(1)
        out.append(x.grad.tolist())
        x, g = m.ones(4, requires_grad=True), m.ones(4)
        x.clone().backward(g)
        g.add_(1)
        out.append(x.grad.tolist())
        return out
    _same(fn)


def test_second_hook_on_a_no_grad_view_does_not_read_grad_fn():
    """torch reads grad_fn only for a tensor's first hook: a second one on a no-grad view whose base was since
    modified in place is accepted, where reading grad_fn would raise (fuzz seed 6409745)."""
    import numpy as np

    def fn(m):
        t0 = m.tensor(np.array([-0.17]), dtype=m.float64, requires_grad=True)
        t1 = t0 + t0
        with m.no_grad():
            t2 = t1[-1]
        t2.register_hook(lambda g: None)
        t1.permute(0).relu_()
        t2.register_hook(lambda g: None)
        return t2.requires_grad
    _same(fn)


def test_mse_loss_gradient_is_contiguous_whatever_the_input_layout():
    """torch's mse_loss_backward writes into a contiguous zeros_like(input): after transpose_, the leaf's gradient
    comes back transposed and AccumulateGrad copies it (_version 1; fuzz seed 6508966)."""
    import numpy as np

    def fn(m):
        t4 = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float32, requires_grad=True)
        t5 = (t4 * 1).transpose_(0, 2)
        seen = []
        t5.register_hook(lambda g: seen.append(g.stride()))
        m.nn.functional.mse_loss(t5, t5 * 0.5).sum().backward()
        return seen, t4.grad.stride(), t4.grad._version, t4.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "float16"])
def test_polygamma_bit_for_bit_as_torch(dtype):
    """polygamma(n >= 2) is torch's (-1)^(n+1) exp(lgamma(n+1)) zeta(n+1, x): its factorial is the C library's
    (a few ulps from n!), and in the half dtypes zeta is rounded to them before the product (fuzz seed 6406977:
    a remainder turned bfloat16's last-bit difference into 1.06)."""
    import numpy as np
    if dtype != "float64" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16; its float16 polygamma is not torch's CPU kernel")

    def fn(m):
        x = m.tensor(np.linspace(0.3, 5, 40), dtype=getattr(m, dtype))
        return [x.polygamma(n).double().tolist() for n in (2, 3, 4, 5, 6)]
    _same(fn)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss_double_backward_graph_as_torch(reduction):
    """soft_margin_loss's gradient under create_graph is torch's SoftMarginLossBackwardBackward0 (edges: grad_output
    and self; the target has none, as on SoftMarginLossBackward0), and its own backward follows torch's formulas
    node for node (fuzz seed 6408981)."""
    import numpy as np

    def names(fn):
        if fn is None:
            return None
        return [fn.name(), [names(f) for f, _ in fn.next_functions]]

    def fn(m):
        x = m.tensor(np.array([[0.97, 1.81, 0.12], [1.05, -0.5, -1.7]]), dtype=m.float32, requires_grad=True)
        t = m.tensor(np.array([1.0, -1.0, -1.0]), dtype=m.float32).expand(2, 3)
        loss = m.nn.functional.soft_margin_loss(x, t, reduction=reduction)
        (gx,) = m.autograd.grad(loss.sum(), [x], create_graph=True)
        (a,) = m.autograd.grad((gx * gx).sum(), [x], create_graph=True)
        return (len(loss.grad_fn.next_functions), names(gx.grad_fn), names(a.grad_fn),
                np.round(np.asarray(gx.tolist()), 6).tolist(), np.round(np.asarray(a.tolist()), 6).tolist())
    _same(fn)


@pytest.mark.parametrize("call", ["poisson_nll_loss(x, t)", "poisson_nll_loss(x, t, log_input=False, full=True)",
                                  "multilabel_soft_margin_loss(x, (t > 1).to(x.dtype))", "logsigmoid(x)",
                                  "pairwise_distance(x, t)", "triplet_margin_loss(x, t, t.flip(0), swap=True)",
                                  "triplet_margin_with_distance_loss(x, t, t.flip(0), margin=2.0)"])
def test_loss_graphs_and_double_backward_graphs_as_torch(call):
    """The losses' graphs are torch's node for node, first and second order: poisson_nll_loss builds C++'s right
    operand first (so the exp branch's gradient arrives first) and its Scalar adds; logsigmoid's gradient is
    LogSigmoidBackwardBackward0; pairwise_distance is at::norm (NormBackward1) of a Scalar add; triplet_margin_loss
    ends in ClampMinBackward0."""
    import numpy as np

    def names(fn):
        return None if fn is None else [fn.name(), [names(f) for f, _ in fn.next_functions]]

    def fn(m):
        F = m.nn.functional  # noqa: F841 (the call's)
        x = m.tensor(np.array([[0.97, 1.81, 0.12], [1.05, 0.5, 1.7]]), dtype=m.float64, requires_grad=True)
        t = m.tensor(np.array([[0.2, 3.0, 1.0], [1.5, 0.4, 2.2]]), dtype=m.float64, requires_grad=True)
        out = eval(f"F.{call}")
        gx, gt = m.autograd.grad(out.sum(), [x, t], create_graph=True, allow_unused=True)
        grads = [g for g in (gx, gt) if g is not None]
        second = m.autograd.grad(sum((g * g).sum() for g in grads), [x], allow_unused=True)
        return (names(out.grad_fn), [names(g.grad_fn) for g in grads],
                [None if s is None else np.round(np.asarray(s.tolist()), 10).tolist() for s in second])
    _same(fn)


@pytest.mark.parametrize("call", ["huber_loss(x, t, delta=0.7)", "smooth_l1_loss(x, t, beta=0.5)",
                                  "smooth_l1_loss(x, t, beta=0.5, reduction='sum')", "huber_loss(x, t[0])"])
def test_threshold_loss_double_backward_versions_as_torch(call):
    """huber/smooth_l1's double backward divides the input's term in place for 'mean' (DivBackward1, _version 1),
    and computes the target's again, negated (fuzz seed 6800163: the target leaf's gradient was one version
    short)."""
    import numpy as np

    def fn(m):
        F = m.nn.functional  # noqa: F841 (the call's)
        x = m.tensor(np.array([[0.29, 0.67, -1.35, -0.2], [0.6, 0.13, 0.71, -0.66]]), dtype=m.float32,
                     requires_grad=True)
        t = m.tensor(np.array([[-0.27, -0.72, -0.19, -0.5], [-1.56, -0.75, 0.15, -0.93]]), dtype=m.float32,
                     requires_grad=True)
        gt, gx = m.autograd.grad(eval(f"F.{call}").sum(), [t, x], create_graph=True)
        gt.backward(m.ones_like(gt), retain_graph=True)
        gx.backward(m.ones_like(gx) * 2)
        return [gx.grad_fn.name(), gt.grad_fn.name(), x.grad._version, t.grad._version,
                np.round(np.asarray(x.grad.tolist()), 6).tolist(), np.round(np.asarray(t.grad.tolist()), 6).tolist()]
    _same(fn)


def test_gradients_summed_out_of_place_take_the_first_ones_layout():
    """Two gradients of one tensor summed out of place are laid out as torch's TensorIterator lays out prev + g
    (the first arrival's order), so the leaf's .grad is a copy (_version 1) when that order is not the leaf's
    (fuzz seed 6904487)."""
    import numpy as np

    def fn(m):
        t2 = m.tensor(np.arange(24.0).reshape(2, 3, 4) / 7 - 1, dtype=m.float32, requires_grad=True)
        t3 = t2.rot90(3, [2, 0])
        t4 = t2.swapdims(0, 1)
        t5 = m.where(t3 > 0, t3, 0.0)
        t5.sub_(m.nn.functional.smooth_l1_loss(t4, m.ones(3, 2, 4, dtype=m.int64)))  # t4's branch runs first
        seen = []
        t2.register_hook(lambda g: seen.append(g.stride()))
        (t5 * t5).sum().backward()
        return seen, t2.grad.stride(), t2.grad._version
    _same(fn)


@pytest.mark.parametrize("matrix", ["regular", "singular", "batch"])
def test_det_double_backward_graph_as_torch(matrix):
    """Under create_graph det's gradient is torch's differentiable form: linalg_solve(A^H, diag_embed(g det)^H)
    (LinalgSolveExBackward0, fuzz seed 7003352), and at a singular A the SVD formula, so second derivatives exist
    there too."""
    import numpy as np

    def names(fn):
        return None if fn is None else [fn.name(), [names(f) for f, _ in fn.next_functions]]

    a_values = {"regular": [[-0.55, -1.75, -1.72], [1.31, -0.67, -1.78], [-1.35, -0.99, 1.42]],
                "singular": [[1.0, 2, 3], [2, 4, 6], [0, 1, 1.0]],
                "batch": (np.arange(8.0).reshape(2, 2, 2) + np.eye(2)).tolist()}[matrix]

    def fn(m):
        a = m.tensor(a_values, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.det(a).sum(), [a], create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), [a])
        return names(g.grad_fn), np.round(np.asarray(g.tolist()), 8).tolist(), np.round(np.asarray(h.tolist()), 6).tolist()
    _same(fn)


def test_regenerated_view_gradient_has_the_bases_layout():
    """A view regenerated as AsStridedBackward0 (after a no-grad write) gives its base a gradient laid out as the
    base (torch's buffer.as_strided(base's geometry)), so a permuted base's input gradient comes back contiguous and
    is stolen (_version 0; fuzz seed 7103029)."""
    import numpy as np

    def fn(m):
        t1 = m.tensor(np.arange(24.0).reshape(2, 3, 4), dtype=m.float64, requires_grad=True)
        t2 = t1.rot90(3, [2, 0])
        t7 = t2[1, 1][::2]
        with m.set_grad_enabled(False):
            t7[:1] = 1.5
        seen = []
        t2.register_hook(lambda g: seen.append((g.stride(), g._version)))
        t7.backward()
        return seen, t7.grad_fn.name(), t1.grad.stride(), t1.grad._version, t1.grad.tolist()
    _same(fn)


@pytest.mark.parametrize("call", ["glu(x, 1)", "glu(x, 0)", "ldexp(x, t)", "linalg.solve(s, v)"])
def test_create_graph_gradients_top_nodes_as_torch(call):
    """Under create_graph each input's gradient ends in torch's node (the op-table probe of the create_graph
    gradients' grad_fn): GluBackwardBackward0 (a contiguous glu_backward, so a transposed input's .grad is a copy),
    ldexp's PowBackward2 and MulBackward1, linalg.solve's SqueezeBackward1 for a vector right-hand side."""
    import numpy as np

    def names(fn):
        return None if fn is None else [fn.name(), [names(f) for f, _ in fn.next_functions]]

    def fn(m):
        x = m.tensor((np.linspace(-2, 2, 24).reshape(4, 6) ** 2 - 1).T.copy(), dtype=m.float64).t().detach()
        x.requires_grad_()
        t = m.tensor(np.linspace(-1, 1, 6), dtype=m.float64, requires_grad=True)
        s = m.tensor([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]], dtype=m.float64, requires_grad=True)
        v = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        ins = {"g": [x], "l": [x, t], "s": [s, v]}["l" if call.startswith("ld") else "s" if "solve" in call else "g"]
        out = eval(f"m.{call}") if not call.startswith("glu") else eval(f"m.nn.functional.{call}")
        grads = m.autograd.grad(out.sum(), ins, create_graph=True)
        second = m.autograd.grad(sum((g * g).sum() for g in grads), ins)
        out.sum().backward()
        return ([names(g.grad_fn) for g in grads], [np.round(np.asarray(h.tolist()), 8).tolist() for h in second],
                [(i.grad.stride(), i.grad._version) for i in ins])
    _same(fn)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "atan2_", "copysign_", "fmod_"])
def test_bfloat16_0d_in_place_with_a_0d_operand_of_another_dtype_computes_in_the_wider_one(op):
    """A 0-d bfloat16 tensor written in place with a 0-d float64/float32 operand: all operands are 0-d, so torch's
    common dtype is the wider one and the result is rounded once (fuzz seed 7602691: bfloat16(-0.96).sub_(-0.96)
    is -0.00094 in torch, where casting the operand first gave 0)."""
    if str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")

    def fn(m):
        out = []
        for v in (-0.96, 0.337, 2.71828):
            for dt in (m.float64, m.float32):
                t0 = m.tensor(v, dtype=dt)
                t1 = t0.bfloat16()
                getattr(t1, op)(t0)
                out.append(t1.float().item())
        return out
    _same(fn)


@pytest.mark.parametrize("index", ["[-4:-1:2, True]", "[True]", "[..., True]", "[1, True]", "[[0, 2], None]",
                                   "[True, 0:3:2]"])
def test_advanced_index_result_strides_as_torch(index):
    """An advanced index's row-major result has torch's strides on its size-1 dims too, which decide whether a
    later matmul folds it into addmv (fuzz seed 7703913: t[-4:-1:2, True] @ v named addmv's dtype check)."""
    import numpy as np

    def fn(m):
        t = m.tensor(np.arange(8.0).reshape(4, 2), dtype=m.float64, requires_grad=True)
        r = eval(f"t{index}")
        out = [tuple(r.shape), r.stride(), r.grad_fn.name()]
        try:
            r @ m.ones(2)
        except RuntimeError as e:
            out.append(str(e).split("\n")[0])
        return out
    _same(fn)


@pytest.mark.parametrize("batch", [(5,), (2, 5)])
def test_bilinear_is_one_trilinear_node_as_torch(batch):
    """F.bilinear is torch's one _trilinear node (TrilinearBackward0, between the inputs' ViewBackward0s), and
    its gradients are _trilinear again, so the create_graph gradients, their second derivatives, strides and the
    leaves' versions are torch's (the op-table probe of create_graph gradients: the weight's ended in ViewBackward0)."""
    import numpy as np

    def names(fn):
        return None if fn is None else [fn.name(), [names(f) for f, _ in fn.next_functions]]

    def fn(m):
        rng = np.random.default_rng(0)
        x1 = m.tensor(rng.standard_normal(batch + (3,)), dtype=m.float64, requires_grad=True)
        x2 = m.tensor(rng.standard_normal(batch + (4,)), dtype=m.float64, requires_grad=True)
        w = m.tensor(rng.standard_normal((2, 3, 4)), dtype=m.float64, requires_grad=True)
        out = m.nn.functional.bilinear(x1, x2, w)
        gs = m.autograd.grad(out.sum(), [x1, x2, w], create_graph=True)
        hs = m.autograd.grad(sum((g * g).sum() for g in gs), [x1, x2, w])
        m.nn.functional.bilinear(x1, x2, w).sum().backward()
        return (names(out.grad_fn), [names(g.grad_fn) for g in gs], [g.stride() for g in gs],
                [np.round(np.asarray(h.tolist()), 8).tolist() for h in hs],
                [(t.grad.stride(), t.grad._version) for t in (x1, x2, w)])
    _same(fn)


def test_addmm_reads_the_inputs_histories_before_its_dtype_check():
    """torch collects addmm's edges before its kernel checks dtypes: a split view changed in place under no_grad
    raises its view error first (fuzz seed 8009922)."""
    def fn(m):
        t4 = m.ones(3, 5, requires_grad=True)
        t5 = t4.split([1, 4], dim=1)[1]
        with m.no_grad():
            t5.mul_(-1.0)
        return t5.addmm(m.ones(3, 2), m.ones(2, 4, dtype=m.float64, requires_grad=True), beta=0.5, alpha=-2.0)
    assert "SplitWithSizes is a view" in _same(fn)[2]
