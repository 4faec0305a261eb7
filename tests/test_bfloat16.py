"""framework.bfloat16 (ml_dtypes' bfloat16) against torch.bfloat16: the op table's rows computed in float32 and
rounded once, as torch's CPU kernels, type promotion, casts, autograd, optimizers, checkpoints, finfo, autocast, and
the clear error on the GPU (CuPy has no bfloat16)."""
import io
import warnings

import numpy as np
import pytest

import framework as fw
from op_table import OPS

torch = pytest.importorskip("torch")


@pytest.fixture
def cpu_only(device):
    if device != "cpu":
        pytest.skip("CuPy has no bfloat16 (test_gpu_refuses_bfloat16 covers the device)")


def _bits(t) -> np.ndarray:
    """A bfloat16 tensor's values as float32 (exact: bfloat16 is float32's top half)."""
    return t.detach().float().numpy() if isinstance(t, torch.Tensor) else t.detach().float().numpy()


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


# Rows whose framework version is a composite of several ops: each step rounds, where torch runs one kernel.
# Their values are checked to a few bfloat16 ulps instead.
MULTI_ROUNDING = {"rms_norm", "interpolate_bilinear", "interpolate_bicubic_corners", "avg_pool2d_ceil",
                  "avg_pool1d_nopad", "adaptive_avg_pool1d", "lp_pool1d", "bilinear", "local_response_norm"}
# torch's own bfloat16 backward is NaN here (its float32 backward is not): nothing to compare our gradient with
TORCH_GRAD_NAN = {"linalg_matrix_exp"}


def _run(case, m, arrays, dtype, grad=True):
    xs = [m.tensor(a).to(dtype) for a in arrays]
    for i, x in enumerate(xs):
        if grad and i not in case.nondiff:
            x.requires_grad_(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xs, case.fn(m, *xs)


def _inputs(case):
    rng = np.random.default_rng(33)
    return [rng.uniform(*case.domain, size=s).astype(np.float32) for s in case.shapes]


def _torch_rows():
    """The rows torch runs in bfloat16 on the CPU with a bfloat16 result."""
    rows = []
    for case in OPS:
        try:
            _, out = _run(case, torch, _inputs(case), torch.bfloat16, grad=False)
        except (RuntimeError, NotImplementedError, TypeError):
            continue
        if isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16:
            rows.append(case)
    return rows


ROWS = _torch_rows()


def test_the_table_has_rows():
    assert len(ROWS) > 400 and MULTI_ROUNDING | TORCH_GRAD_NAN <= {c.name for c in ROWS}


@pytest.mark.parametrize("case", ROWS, ids=[c.name for c in ROWS])
def test_op_table_row_in_bfloat16(case, cpu_only):
    """Each value is torch's bfloat16 result bit for bit, or, where torch's kernel rounds more than once, the
    float32 result rounded once (which torch's single-rounding kernels give): never anything else."""
    arrays = _inputs(case)
    try:
        txs, theirs = _run(case, torch, arrays, torch.bfloat16)
        grad = True
    except RuntimeError:  # torch's autograd refuses bfloat16 here (affine_grid): compare the values only
        txs, theirs = _run(case, torch, arrays, torch.bfloat16, grad=False)
        grad = False
    oxs, ours = _run(case, fw, arrays, fw.bfloat16, grad=grad)
    assert ours.dtype is fw.bfloat16 and tuple(ours.shape) == tuple(theirs.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        once = case.fn(torch, *[t.detach().float() for t in txs]).to(torch.bfloat16)
    o, t, r = _bits(ours), _bits(theirs), _bits(once)
    if case.name in MULTI_ROUNDING:
        np.testing.assert_allclose(o, t, rtol=16 * 2.0 ** -8, atol=1e-2)
    else:
        assert _same(o, t) or _same(o, r), f"{case.name}: neither torch's bfloat16 result nor one rounding"
    if not theirs.requires_grad:
        return
    try:
        theirs.backward(torch.ones_like(theirs))
    except (NotImplementedError, RuntimeError):  # torch has no bfloat16 backward for this op (i1, affine_grid):
        return  # no gradient to compare with
    ours.backward(fw.ones_like(ours))
    if case.name in TORCH_GRAD_NAN:
        assert all(np.isnan(_bits(tx.grad)).any() for tx in txs if tx.grad is not None)
        return
    for tx, ox in zip(txs, oxs):
        if tx.grad is None:
            assert ox.grad is None
            continue
        assert ox.grad.dtype is fw.bfloat16  # gradients in bfloat16, as torch's
        # backward formulas are several ops in both, each rounding: close, not bitwise
        np.testing.assert_allclose(_bits(ox.grad), _bits(tx.grad), rtol=0.06, atol=0.06)


def test_promotion_as_torch(cpu_only):
    names = ["bfloat16", "float16", "float32", "float64", "int64", "int32", "uint8", "bool"]
    for a in names:
        for b in names:
            assert fw.promote_types(getattr(fw, a), getattr(fw, b)).name == \
                str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1], (a, b)
    x, tx = fw.ones(2, dtype=fw.bfloat16), torch.ones(2, dtype=torch.bfloat16)
    for other, t_other in ((2.5, 2.5), (3, 3), (fw.tensor(2.0), torch.tensor(2.0)),
                           (fw.ones(2, dtype=fw.float16), torch.ones(2, dtype=torch.float16)),
                           (fw.ones(2, dtype=fw.int64), torch.ones(2, dtype=torch.int64)),
                           (fw.tensor(1.5, dtype=fw.float64), torch.tensor(1.5, dtype=torch.float64))):
        assert str((x * other).dtype).split(".")[1] == str((tx * t_other).dtype).split(".")[1]
        assert str((other + x).dtype).split(".")[1] == str((t_other + tx).dtype).split(".")[1]


def test_creation_casts_and_printing(cpu_only):
    vals = [0.1, -1.7, 3.14159, 65504.0, 1e-3, 300.7]
    ours, theirs = fw.tensor(vals, dtype=fw.bfloat16), torch.tensor(vals, dtype=torch.bfloat16)
    assert _same(_bits(ours), _bits(theirs))  # float -> bfloat16 rounds to nearest even, as torch's
    assert repr(ours) == repr(theirs).replace("torch.", "framework.")
    assert _same(_bits(fw.tensor(vals).bfloat16()), _bits(torch.tensor(vals).bfloat16()))
    assert fw.zeros(2, 3, dtype=fw.bfloat16).dtype is fw.bfloat16 and fw.bfloat16.is_floating_point
    assert fw.arange(5, dtype=fw.bfloat16).tolist() == torch.arange(5, dtype=torch.bfloat16).tolist()
    assert ours.to(fw.int64).tolist() == theirs.to(torch.int64).tolist()
    assert ours.double().tolist() == theirs.double().tolist() and ours.half().tolist() == theirs.half().tolist()
    assert ours.element_size() == 2 and ours.type() == theirs.type().replace("torch.", "framework.")
    assert fw.from_numpy(ours.numpy()).dtype is fw.bfloat16
    assert repr(fw.finfo(fw.bfloat16)) == repr(torch.finfo(torch.bfloat16))
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        fw.tensor([1, 2], dtype=fw.int64, requires_grad=True)
    assert fw.tensor([1.0], dtype=fw.bfloat16, requires_grad=True).requires_grad


def test_reductions_and_matmul_accumulate_in_float32(cpu_only):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 300)).astype(np.float32)
    b = rng.standard_normal((300, 17)).astype(np.float32)
    ta, tb = torch.tensor(a).bfloat16(), torch.tensor(b).bfloat16()
    oa, ob = fw.tensor(a).bfloat16(), fw.tensor(b).bfloat16()
    # a sum of 4096 ones in bfloat16 steps would stop at 256; accumulated in float32 it is exact
    assert fw.ones(4096, dtype=fw.bfloat16).sum().item() == torch.ones(4096, dtype=torch.bfloat16).sum().item() == 4096
    for f in (lambda m, x, y: x @ y, lambda m, x, y: x.sum(1), lambda m, x, y: x.mean(0), lambda m, x, y: y.sum()):
        o, t = f(fw, oa, ob), f(torch, ta, tb)
        exact = f(torch, ta.float(), tb.float()).bfloat16()
        assert o.dtype is fw.bfloat16
        assert _same(_bits(o), _bits(t)) or _same(_bits(o), _bits(exact))
        np.testing.assert_allclose(_bits(o), _bits(t), rtol=2 * 2.0 ** -8, atol=1e-6)


def test_expanded_operand_keeps_row_major_layout(cpu_only):
    """An op on an expanded bfloat16 tensor lays its result out as the float32 op does (row-major), so var_mean's
    mean gradient (an expand divided by N) obeys the leaf's layout and AccumulateGrad keeps it (version 0)."""
    a = np.array([[-1.21, 0.75, 0.22, -0.78], [1.62, -0.39, -1.16, -0.16], [0.23, 1.61, -0.35, -0.61]])
    for m in (torch, fw):
        e = m.ones(4, dtype=m.bfloat16).expand(3, 4)
        assert (e / 3).stride() == (e * 2).stride() == (e + e).stride() == (4, 1), m.__name__
        grads = []
        for dim, idx in ((0, 1), (1, 1), (0, 0)):
            x = m.tensor(a, dtype=m.bfloat16, requires_grad=True)
            y = m.var_mean(x, dim, correction=0)[idx]
            (y * y).sum().backward()
            grads.append((x.grad.stride(), x.grad._version, _bits(x.grad)))
        if m is torch:
            want = grads
    for (ts, tv, tb), (os_, ov, ob) in zip(want, grads):
        assert (os_, ov) == (ts, tv) == ((4, 1), 0)
        assert _same(ob, tb)


def test_training_step_with_optimizers(cpu_only):
    """A small MLP in bfloat16: loss, gradients and a few steps of SGD/Adam/AdamW stay bfloat16 and follow torch."""
    for name, kw in (("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 1e-2}), ("AdamW", {"lr": 1e-2})):
        torch.manual_seed(0)
        tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).bfloat16()
        om = fw.nn.Sequential(fw.nn.Linear(4, 8), fw.nn.Tanh(), fw.nn.Linear(8, 1)).bfloat16()
        om.load_state_dict({k: fw.tensor(v.float().numpy()).bfloat16() for k, v in tm.state_dict().items()})
        topt, oopt = getattr(torch.optim, name)(tm.parameters(), **kw), getattr(fw.optim, name)(om.parameters(), **kw)
        x = np.random.default_rng(1).standard_normal((16, 4)).astype(np.float32)
        tx, ox = torch.tensor(x).bfloat16(), fw.tensor(x).bfloat16()
        for _ in range(3):
            for m, opt, inp, mod in ((torch, topt, tx, tm), (fw, oopt, ox, om)):
                opt.zero_grad()
                loss = mod(inp).pow(2).mean()
                loss.backward()
                opt.step()
        for (k, tv), (_, ov) in zip(tm.state_dict().items(), om.state_dict().items()):
            assert ov.dtype is fw.bfloat16, k
            np.testing.assert_allclose(_bits(ov), _bits(tv), rtol=0.02, atol=0.02, err_msg=f"{name} {k}")
        assert all(p.grad.dtype is fw.bfloat16 for p in om.parameters())


def test_checkpoints_keep_bfloat16(cpu_only, tmp_path):
    vals = torch.tensor([[0.1, -2.5, 3e4], [1e-3, 7.0, -0.3]]).bfloat16()
    ours = fw.tensor(vals.float().numpy()).bfloat16()
    for fmt in ("safetensors", "torch"):
        buf = io.BytesIO()
        fw.save({"w": ours, "nested": [ours.t()]}, buf, format=fmt)
        buf.seek(0)
        back = fw.load(buf)
        assert back["w"].dtype is fw.bfloat16 and _same(_bits(back["w"]), _bits(vals))
        assert _same(_bits(back["nested"][0]), _bits(vals.t()))
    path = tmp_path / "t.pt"
    fw.save({"w": ours}, path, format="torch")
    theirs = torch.load(path, weights_only=True)["w"]
    assert theirs.dtype == torch.bfloat16 and torch.equal(theirs, vals)
    torch.save({"w": vals}, path)
    assert _same(_bits(fw.load(path)["w"]), _bits(vals))
    from safetensors.torch import save as torch_st_save
    plain = fw.load(io.BytesIO(torch_st_save({"w": vals})))  # a safetensors file written by torch: BF16
    assert plain["w"].dtype is fw.bfloat16 and _same(_bits(plain["w"]), _bits(vals))


def test_autocast_cpu_runs_matmuls_in_bfloat16(cpu_only):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((7, 3)).astype(np.float32)
    with fw.autocast("cpu"):
        o = fw.tensor(a) @ fw.tensor(b)
    with torch.autocast("cpu"):
        t = torch.tensor(a) @ torch.tensor(b)
    assert o.dtype is fw.bfloat16 and _same(_bits(o), _bits(t))


def test_gpu_refuses_bfloat16(device):
    """CuPy has no bfloat16: moving or creating one on the GPU is a clear TypeError naming it."""
    if device == "cpu":
        pytest.skip("needs the GPU or the strict CuPy stand-in (FRAMEWORK_TEST_DEVICE=strict)")
    with pytest.raises(TypeError, match="bfloat16 is not supported on cuda"):
        fw.ones(3, dtype=fw.bfloat16)
    with pytest.raises(TypeError, match="bfloat16 is not supported on cuda"):
        fw.tensor([1.0, 2.0], device="cpu").bfloat16().to("cuda")
    with pytest.raises(TypeError, match="bfloat16 is not supported on cuda"):
        fw.ones(3).bfloat16()
    with pytest.raises(RuntimeError, match="does not support bfloat16. Please switch dtype to float16"):
        fw.autocast("cuda", dtype=fw.bfloat16)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "atan2", "pow", "fmod", "remainder", "hypot",
                                  "floor_divide", "maximum"])
@pytest.mark.parametrize("first", [True, False])
def test_zero_dim_operand_of_another_float_dtype_as_torch(name, first, cpu_only):
    """A bfloat16 tensor with a 0-d float64 tensor: torch casts the 0-d operand to bfloat16 (the common dtype)
    before its kernel computes in float32, except where mul/div/floor_divide's kernel reads a second 0-d operand's
    own value; the results are bit for bit torch's (fuzz seed 3800823: 0.88 is 0.87890625 in bfloat16)."""
    x = np.random.default_rng(0).uniform(0.5, 3.0, 500)
    outs = []
    for m in (torch, fw):
        t, s = m.tensor(x, dtype=m.bfloat16), m.tensor(0.88, dtype=m.float64)
        out = getattr(m, name)(s, t) if first else getattr(m, name)(t, s)
        assert out.dtype == m.bfloat16
        outs.append(np.asarray(out.float().tolist()))
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("limits", [{}, {"nan": 0.5}, {"posinf": 1e39}, {"neginf": -70000.0},
                                    {"posinf": 1.0000001, "neginf": -1e5}])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_nan_to_num_defaults_are_the_dtypes_own_limits(dtype, limits, inplace, device):
    """nan_to_num(_)'s posinf/neginf default to the tensor's own dtype's largest and lowest finite values: bfloat16's
    (+-3.3895e+38), not float32's, which round to +-inf in bfloat16 (fuzz seed 4003157, nan_to_num(log(x)))."""
    if dtype == "bfloat16" and device != "cpu":
        pytest.skip("CuPy has no bfloat16")
    values = [float("nan"), float("inf"), -float("inf"), 1.5, -2.0, 3e38, -3e38, 60000.0]
    got = []
    for m in (torch, fw):
        x = m.tensor(values, dtype=m.float64).to(getattr(m, dtype))
        y = x.clone().nan_to_num_(**limits) if inplace else m.nan_to_num(x, **limits)
        assert str(y.dtype).split(".")[-1] == dtype
        got.append(np.array(y.double().tolist()))
    assert _same(got[1], got[0]), got


def test_shrink_thresholds_as_torchs_bfloat16_kernels(cpu_only):
    """hardshrink and both backward kernels compare with lambd rounded to bfloat16 (0.4 is 0.400390625 there),
    softshrink's forward reads it as a float (fuzz seed 4508745)."""
    x = np.array([-0.400390625, 0.400390625, 0.5, -0.3984375, 1.0])
    out = []
    for m in (torch, fw):
        t = m.tensor(x, dtype=m.bfloat16, requires_grad=True)
        h, s = m.nn.functional.hardshrink(t, 0.4), m.nn.functional.softshrink(t, 0.4)
        (gh,), (gs,) = m.autograd.grad(h.sum(), t), m.autograd.grad(s.sum(), t)
        out.append([v.float().tolist() for v in (h, s, gh, gs)])
    assert out[0] == out[1]


# ---- float16: torch's CPU kernels compute it in float32 and round once too (the same machinery) ---------------

def _torch_half_rows():
    """The rows torch runs in float16 on the CPU with a float16 result."""
    rows = []
    for case in OPS:
        try:
            _, out = _run(case, torch, _inputs(case), torch.float16, grad=False)
        except (RuntimeError, NotImplementedError, TypeError):
            continue
        if isinstance(out, torch.Tensor) and out.dtype == torch.float16:
            rows.append(case)
    return rows


HALF_ROWS = _torch_half_rows()
# rows whose float32 result differs from torch's float32 kernel in its last bits (the order of its sums, libm's
# lgamma): rounded to float16 they are a float16 ulp apart at most
FLOAT32_KERNEL_ORDER = {"log_softmax", "lgamma", "adaptive_avg_pool2d_3d"}


@pytest.mark.parametrize("case", HALF_ROWS, ids=[c.name for c in HALF_ROWS])
def test_op_table_row_in_float16(case, device):
    """Each float16 value is torch's bit for bit, or the float32 result rounded once (what torch's
    single-rounding kernels give); NumPy's float16 formulas of several calls would round after each."""
    arrays = _inputs(case)
    try:
        txs, theirs = _run(case, torch, arrays, torch.float16)
        grad = True
    except RuntimeError:
        txs, theirs = _run(case, torch, arrays, torch.float16, grad=False)
        grad = False
    oxs, ours = _run(case, fw, [fw.tensor(a, device=device) for a in arrays], fw.float16, grad=grad)
    assert ours.dtype is fw.float16 and tuple(ours.shape) == tuple(theirs.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        once = case.fn(torch, *[t.detach().float() for t in txs]).to(torch.float16)
    o, t, r = ours.detach().float().cpu().numpy(), theirs.detach().float().numpy(), once.detach().float().numpy()
    if case.name in MULTI_ROUNDING:
        np.testing.assert_allclose(o, t, rtol=16 * 2.0 ** -11, atol=1e-3)
    elif case.name in FLOAT32_KERNEL_ORDER:
        np.testing.assert_allclose(o, t, rtol=2.0 ** -10, atol=0)
    else:
        assert _same(o, t) or _same(o, r), f"{case.name}: neither torch's float16 result nor one rounding"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["xlogy", "special.xlog1py"])
def test_xlogy_rounds_the_log_first_as_torch(name, dtype, cpu_only):
    """torch's xlogy kernel on a half dtype is x * log(y) in that dtype: the log rounded, then the product (a 0-d
    float64 operand read as the half dtype), not one rounding of the float32 result."""
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-1, 3, (6, 7)), rng.uniform(-0.5, 3, (6, 7))
    x[0, :3] = 0
    y[1, :2] = np.nan
    s = 0.37
    found = []
    for m in (fw, torch):
        fn, d = eval("m." + name), getattr(m, dtype)  # noqa: S307  (a name of the module, both APIs)
        a, b, k = m.tensor(x, dtype=d), m.tensor(y, dtype=d), m.tensor(s, dtype=m.float64)
        outs = [fn(a, b), fn(a, k), fn(k, b), fn(a, s)] + ([fn(s, b)] if name == "xlogy" else [])
        found.append([o.float().numpy() for o in outs])
    for ours, theirs in zip(*found):
        assert _same(ours, theirs)
