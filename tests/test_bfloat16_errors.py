"""float16 and bfloat16 where torch's CPU refuses them or mixes them with other dtypes: the same error class and
first sentence as torch's (kernels without a half version, 'Low precision dtypes not supported', MKLDNN's
convolution dtype checks, in-place sources of another dtype), and the programs the differential fuzzer found
once bfloat16 entered its generator (a 0-d float32 operand of a bfloat16 gradient, versions, shared memory)."""
import re
import warnings

import numpy as np
import pytest

import framework as fw
from op_table import OPS

torch = pytest.importorskip("torch")


@pytest.fixture
def cpu_only(device):
    if device != "cpu":
        pytest.skip("CuPy has no bfloat16, and these are torch's CPU kernels' refusals")


def _outcome(fn, m) -> str:
    """'ok', or the error's class and first sentence (torch's module name read as ours)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(m)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        text = str(e).split("\n")[0].replace("torch.", "framework.")
        end = re.search(r"\.(\s|$)", text)
        return f"{type(e).__name__}: {text[: end.start() + 1] if end else text}"
    return "ok"


def _inputs(case):
    rng = np.random.default_rng(33)
    return [rng.uniform(*case.domain, size=s).astype(np.float32) for s in case.shapes]


def _row(case, dtype_name):
    arrays = _inputs(case)
    return lambda m: case.fn(m, *[m.tensor(a).to(getattr(m, dtype_name)) for a in arrays])


def _refused_rows():
    """(row, dtype) pairs of the op table that torch refuses on the CPU in float16 or bfloat16."""
    pairs = []
    for case in OPS:
        for name in ("bfloat16", "float16"):
            if _outcome(_row(case, name), torch) != "ok":
                pairs.append((case, name))
    return pairs


REFUSED = _refused_rows()


def test_torch_refuses_some_rows():
    names = {(c.name, d) for c, d in REFUSED}
    assert {("linalg_det", "bfloat16"), ("linalg_inv", "float16"), ("cdist", "bfloat16"),
            ("avg_pool3d", "float16")} <= names and len(names) > 40


@pytest.mark.parametrize("case,dtype", REFUSED, ids=[f"{c.name}-{d}" for c, d in REFUSED])
def test_refused_as_torch(case, dtype, cpu_only):
    """Each op-table row torch refuses in a half dtype (a kernel with no such version, 'Low precision dtypes not
    supported', quantile's float/double rule) raises the same here, not a NumPy error or a silent result."""
    fn = _row(case, dtype)
    assert _outcome(fn, fw) == _outcome(fn, torch)


# special functions whose torch backward has a formula or kernel of its own (i1_backward, i1e_backward: float and
# double only), in the half dtypes: fuzz seed 3903717 (i1e's backward of a bfloat16 tensor)
SPECIAL_ROWS = [c for c in OPS if c.name in {
    "i0", "special_i0e", "special_i1", "special_i1e", "erf", "erfc", "erfinv", "sinc", "special_entr",
    "special_ndtri", "special_log_ndtr", "special_ndtr", "lgamma", "digamma", "polygamma1", "mvlgamma",
    "special_xlog1py", "xlogy", "special_zeta_q", "special_gammainc_x"}]


def _row_backward(case, dtype_name):
    """case's forward and its gradient in every operand, the operands of dtype dtype_name."""
    arrays = _inputs(case)

    def run(m):
        ts = [m.tensor(a).to(getattr(m, dtype_name)).requires_grad_() for a in arrays]
        out = case.fn(m, *ts)
        m.autograd.grad(out.sum(), ts, allow_unused=True)
    return run


def test_special_rows_cover_the_bessel_functions():
    assert {"i0", "special_i0e", "special_i1", "special_i1e"} <= {c.name for c in SPECIAL_ROWS}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", SPECIAL_ROWS, ids=[c.name for c in SPECIAL_ROWS])
def test_special_backward_in_half_dtypes_as_torch(case, dtype, cpu_only):
    """Forward and backward refuse (class and first sentence) or run as torch's: i1 and i1e's backward kernels have
    no float16/bfloat16 version, though their forward has."""
    fn = _row_backward(case, dtype)
    assert _outcome(fn, fw) == _outcome(fn, torch)


@pytest.mark.parametrize("x,w,b", [("bfloat16", "float32", None), ("bfloat16", "float64", "bfloat16"),
                                   ("float32", "bfloat16", None), ("bfloat16", "bfloat16", "float32"),
                                   ("float64", "bfloat16", None), ("float16", "float32", None),
                                   ("bfloat16", "float16", None), ("float32", "float32", "float64")])
def test_convolution_dtype_errors_as_torch(x, w, b, cpu_only):
    """torch's text depends on its backend: MKLDNN (always for a bfloat16 input) names CPUBFloat16Type."""
    for fn, shape in (("conv1d", (2, 3, 5)), ("conv2d", (2, 3, 5, 5)), ("conv2d", (1, 3, 5, 5)),
                      ("conv3d", (1, 3, 4, 4, 4)), ("conv_transpose2d", (2, 3, 5, 5)),
                      ("conv_transpose2d", (1, 3, 5, 5)), ("conv_transpose1d", (2, 3, 5))):
        for padding in (0, "same"):
            if padding == "same" and "transpose" in fn:
                continue

            def run(m):
                inp = m.ones(*shape, dtype=getattr(m, x))
                weight = m.ones(3, 3, *([3] * (len(shape) - 2)), dtype=getattr(m, w))
                bias = None if b is None else m.ones(3, dtype=getattr(m, b))
                getattr(m.nn.functional, fn)(inp, weight, bias, padding=padding)
            assert _outcome(run, fw) == _outcome(run, torch), (fn, shape, padding)


@pytest.mark.parametrize("code", [
    "(a * 1).index_copy_(1, m.tensor([1]), b)",
    "(a * 1).put_(m.tensor([2, 7]), b.flatten()[:2])",
    "(a * 1).index_reduce_(0, m.tensor([0, 2]), b[:2], 'amin', include_self=False)",
    "(a * 1).index_put_((m.tensor([[True, False, True, False]] * 3),), b.flatten()[:6].double())",
    "m.lerp(a, a, b)",
    "m.linalg.solve(b[:, :3].float() + 3 * m.eye(3), a[:, :3])",
])
def test_bfloat16_target_with_another_dtype_as_torch(code, cpu_only):
    """A bfloat16 tensor written from (or combined with) a float32/float64 one: torch's dtype checks see both
    dtypes (ours used to compute on a float32 copy of the target, which hid its dtype)."""
    rng = np.random.default_rng(4)
    a_, b_ = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (3, 4))

    def run(m):
        a, b = m.tensor(a_, dtype=m.bfloat16), m.tensor(b_, dtype=m.float32)
        return eval(code, {"m": m, "a": a, "b": b})
    assert _outcome(run, fw) == _outcome(run, torch)
    assert _outcome(run, torch) != "ok"


def test_index_put_into_itself_in_bfloat16(cpu_only):
    for m_code in ("t[m.tensor([0, 0, -1], dtype=m.long)] = t[0]", "t.index_put_((m.tensor([0, 0]),), t[0], "
                   "accumulate=True)", "t[m.tensor([1, 1])] = m.ones(3, dtype=m.bfloat16)"):
        def run(m):
            t = m.tensor(np.arange(6.0).reshape(2, 3) / 4, dtype=m.bfloat16)
            with m.no_grad():
                exec(m_code, {"m": m, "t": t})
            return t
        assert _outcome(run, fw) == _outcome(run, torch), m_code
        if _outcome(run, torch) == "ok":
            assert run(fw).float().tolist() == run(torch).float().tolist()


def test_bfloat16_accumulate_rounds_after_each_add(cpu_only):
    """torch's index_put_ with accumulate adds into bfloat16 one value at a time, each sum rounded."""
    vals = np.array([1.0, 1 / 256, 1 / 256, 1 / 256])
    out = []
    for m in (torch, fw):
        t = m.zeros(1, dtype=m.bfloat16)
        t.index_put_((m.tensor([0, 0, 0, 0]),), m.tensor(vals, dtype=m.bfloat16), accumulate=True)
        out.append(t.float().item())
    assert out[0] == out[1] == 1.0  # 1 + 1/256 rounds back to 1 each time


def test_zero_dim_float32_operand_of_a_bfloat16_gradient(cpu_only):
    """t2 (bfloat16) / (0-d float32) is bfloat16 (a 0-d tensor does not promote), so is its backward: the 0-d
    operand's gradient is summed in bfloat16's rounding, then cast to float32 (-140, not -140.43)."""
    a2 = np.random.default_rng(5).uniform(-2, 2, (2, 2, 3, 4)).round(2)
    grads = []
    for m in (torch, fw):
        t1 = m.tensor(0.57, dtype=m.float32, requires_grad=True)
        t2 = m.tensor(a2, dtype=m.bfloat16, requires_grad=True)
        t4 = t2 / (t1.abs() + 1) / 0.5
        (t4 * t4).sum().backward()
        grads.append((t1.grad.item(), t1.grad.dtype, t2.grad.float().numpy()))
    assert grads[0][0] == grads[1][0] and str(grads[1][1]) == "framework.float32"
    np.testing.assert_array_equal(grads[0][2], grads[1][2])


def test_bfloat16_gradient_versions_as_torch(cpu_only):
    """minimum(t, t)'s two gradients: each a masked_fill_ (version 1), summed in place (2), in bfloat16 too (the
    (shape, dtype) forward keeps for backward is bfloat16's, not the float32 of its computation)."""
    versions = []
    for m in (torch, fw):
        t1 = m.tensor([1.37], dtype=m.bfloat16, requires_grad=True)
        t3 = m.minimum(t1, t1)
        (t3 * t3).sum().backward()
        versions.append((t1.grad._version, t1.grad.float().tolist()))
    assert versions[0] == versions[1]


def test_unsafe_chunk_shares_bfloat16_memory(cpu_only):
    out = []
    for m in (torch, fw):
        t1 = m.tensor(np.ones((3, 4)), dtype=m.bfloat16, requires_grad=True)
        piece = m.unsafe_chunk(t1, 2, 1)[1]
        with m.no_grad():
            t1.zero_()
        out.append(piece.float().tolist())
    assert out[0] == out[1] == [[0.0, 0.0]] * 3


@pytest.mark.parametrize("norm", ["group_norm", "layer_norm"])
@pytest.mark.parametrize("x,p", [("bfloat16", "float32"), ("float16", "float32"), ("float32", "bfloat16"),
                                 ("bfloat16", "float64"), ("float32", "float64"), ("float64", "float32")])
def test_norm_half_input_with_float_parameters(norm, x, p, cpu_only):
    """torch's mixed-dtype path: a float16/bfloat16 input with float32 parameters normalises in the input's
    dtype (layer_norm still one NativeLayerNormBackward0 node); other mixes are refused with its text."""
    rng = np.random.default_rng(6)
    xa, wa = rng.standard_normal((2, 3, 4)), rng.standard_normal(4)

    def run(m):
        xx = m.tensor(xa, dtype=getattr(m, x), requires_grad=True)
        ww = m.tensor(wa, dtype=getattr(m, p), requires_grad=True)
        out = m.nn.functional.group_norm(xx.transpose(1, 2), 2, ww, ww) if norm == "group_norm" else \
            m.nn.functional.layer_norm(xx, (4,), ww, ww)
        out.sum().backward()
        return out, xx.grad, ww.grad
    assert _outcome(run, fw) == _outcome(run, torch)
    if _outcome(run, torch) == "ok":
        assert type(run(fw)[0].grad_fn).__name__ == type(run(torch)[0].grad_fn).__name__
        for o, t in zip(run(fw), run(torch)):
            assert str(o.dtype).split(".")[1] == str(t.dtype).split(".")[1]
            np.testing.assert_allclose(o.detach().float().numpy(), t.detach().float().numpy(), rtol=0.05, atol=0.05)


def test_cdist_dispatches_on_the_first_operand(cpu_only):
    for a, b in (("bfloat16", "float32"), ("float32", "bfloat16"), ("float16", "float32"), ("float16", "float16")):
        def run(m):
            return m.cdist(m.ones(3, 2, dtype=getattr(m, a)), m.ones(4, 2, dtype=getattr(m, b)))
        assert _outcome(run, fw) == _outcome(run, torch) != "ok", (a, b)


def test_fmod_and_remainder_round_their_number_to_bfloat16(cpu_only):
    """torch's fmod/remainder kernels read a Python divisor cast to the tensor's bfloat16 (-0.7 is -0.69921875):
    fmod(bfloat16(-0.7), -0.7) is -0 there, not -0.6992."""
    a = np.array([-1.82, 1.94, -1.56, -0.77, -0.7])
    results = []
    for m in (torch, fw):
        t = m.tensor(a, dtype=m.bfloat16)
        results.append([f(t).float().tolist() for f in (lambda x: m.fmod(x, -0.7), lambda x: m.remainder(x, -0.7),
                                                        lambda x: x % 0.3)])
    assert results[0] == results[1]


@pytest.mark.parametrize("wrt", [0, 1, 2])
@pytest.mark.parametrize("dtypes", [("float32", "bfloat16", "float32"), ("bfloat16", "float32", "float32"),
                                    ("float64", "float32", "bfloat16"), ("float32", "float32", "float64")])
def test_addr_of_mixed_dtypes_computes_only_the_gradients_asked_for(dtypes, wrt, cpu_only):
    """addr promotes its operands; its backward's mv of a vector and a gradient of different dtypes raises torch's
    addmv error, but autograd.grad computes only the gradients it needs (torch's task_should_compute_output): the
    gradient in one operand runs though another's would raise (fuzz seed 4007166), the other raises as torch's."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in ((3, 4), (3,), (4,))]

    def run(m):
        ts = [m.tensor(a, dtype=getattr(m, d), requires_grad=True) for a, d in zip(arrays, dtypes)]
        out = ts[0].addr(ts[1], ts[2], alpha=3)
        (g,) = m.autograd.grad(m.maximum(ts[2].to(out.dtype), out).sum(), [ts[wrt]])
        return str(out.dtype).split(".")[-1], out.detach().double().numpy(), str(g.dtype), g.double().numpy()

    assert _outcome(run, fw) == _outcome(run, torch)  # (torch raises where the asked-for gradient's mv mixes)
    if _outcome(run, torch) == "ok":
        want, got = run(torch), run(fw)
        assert got[0] == want[0] and got[2].split(".")[-1] == want[2].split(".")[-1]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-2, atol=1e-2)
        np.testing.assert_allclose(got[3], want[3], rtol=1e-2, atol=1e-2)
