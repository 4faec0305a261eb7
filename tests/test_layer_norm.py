"""layer_norm as one NativeLayerNormBackward0 node (framework/ops/normalization.py): values and gradients equal the
composite of Tensor ops (float64, 1e-10), gradcheck and double backward without torch, and float32/float64/bfloat16
against torch's native_layer_norm (values, gradients, graph)."""
import numpy as np
import pytest

import framework
from framework.testing import assert_close, gradcheck, gradgradcheck

CASES = [((2, 3, 4), (4,), True), ((2, 3, 4), (3, 4), True), ((5,), (5,), False), ((3, 1, 6), (6,), False)]


def _composite(x, shape, w, b, eps=1e-5):
    dims = tuple(range(x.ndim - len(shape), x.ndim))
    out = (x - x.mean(dim=dims, keepdim=True)) / (x.var(dim=dims, unbiased=False, keepdim=True) + eps).sqrt()
    out = out * w if w is not None else out
    return out + b if b is not None else out


def _inputs(m, xshape, shape, affine, dtype, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(xshape)] + ([rng.uniform(0.5, 2, shape), rng.uniform(-1, 1, shape)] if affine
                                              else [None, None])
    return [None if a is None else m.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("xshape,shape,affine", CASES)
def test_fused_equals_composite_float64(xshape, shape, affine):
    x, w, b = _inputs(framework, xshape, shape, affine, framework.float64)
    out = framework.nn.functional.layer_norm(x, shape, w, b)
    ref = _composite(x, shape, w, b)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert_close(out, ref.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    seed = framework.tensor(np.random.default_rng(1).standard_normal(xshape))
    leaves = [t for t in (x, w, b) if t is not None]
    for a, r in zip(framework.autograd.grad((out * seed).sum(), leaves),
                    framework.autograd.grad((ref * seed).sum(), leaves)):
        assert_close(a, r.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("xshape,shape,affine", CASES[:3])
def test_gradcheck_and_gradgradcheck(xshape, shape, affine):
    x, w, b = _inputs(framework, xshape, shape, affine, framework.float64, seed=2)
    leaves = [t for t in (x, w, b) if t is not None]
    fn = (lambda x, w, b: framework.nn.functional.layer_norm(x, shape, w, b, eps=1e-3)) if affine else \
        (lambda x: framework.nn.functional.layer_norm(x, shape, eps=1e-3))
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


def test_shape_errors_are_torchs():
    """An input that does not end in normalized_shape, or a weight of another shape: torch's RuntimeError."""
    x = framework.randn(2, 3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[3\], expected input with shape \[\*, 3\], "
                                           r"but got input of size\[2, 3, 4\]$"):
        framework.nn.functional.layer_norm(x, (3,))
    with pytest.raises(RuntimeError, match=r"^Expected weight to be of same shape as normalized_shape, but got "
                                           r"weight of shape \[3\] and normalized_shape = \[4\]$"):
        framework.nn.functional.layer_norm(x, (4,), framework.ones(3))
    assert framework.nn.functional.layer_norm(x, 4).grad_fn.name() == "NativeLayerNormBackward0"  # an int: one dim


def test_mixed_dtype_weight_refused_as_torch():
    """A float64 input with a float32 weight: torch's CPU norm takes its mixed-dtype path, which only a half input
    may (tests/test_bfloat16_errors.py compares every mix with torch)."""
    x = framework.randn(2, 4, dtype=framework.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^mixed dtype \(CPU\): all inputs must share same datatype\.$"):
        framework.nn.functional.layer_norm(x, (4,), framework.ones(4, dtype=framework.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("xshape,shape,affine", CASES)
def test_matches_torch(xshape, shape, affine, dtype):
    torch = pytest.importorskip("torch")
    if dtype == "bfloat16" and str(framework.tensor([1.0]).device) != "cpu":
        pytest.skip("CuPy has no bfloat16")
    got = []
    for m in (framework, torch):
        x, w, b = _inputs(m, xshape, shape, affine, m.float64)
        x, w, b = (None if t is None else t.detach().to(getattr(m, dtype)).requires_grad_() for t in (x, w, b))
        out = m.nn.functional.layer_norm(x, shape, w, b)
        seed = m.tensor(np.random.default_rng(3).standard_normal(xshape)).to(getattr(m, dtype))
        (out * seed).sum().backward()
        names = [None if n is None else type(n).__name__ for n, _ in out.grad_fn.next_functions]
        got.append([out.grad_fn.name(), names] + [None if t is None else t.detach().float().cpu().numpy()
                                                  for t in (out, x.grad, None if w is None else w.grad,
                                                            None if b is None else b.grad)])
    ours, theirs = got
    assert ours[:2] == theirs[:2]
    tol = {"float64": 1e-10, "float32": 1e-5, "bfloat16": 2e-2}[dtype]
    for a, t in zip(ours[2:], theirs[2:]):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=tol, atol=tol * (10 if dtype == "bfloat16" else 1))


def test_layer_norm_graph_holds_one_output_sized_buffer():
    """The node keeps x (alive anyway), weight, bias and per-row statistics, not a normalised copy: the forward
    leaves one output-sized buffer live (the composite of sub/div/mul/add kept three or four)."""
    import tracemalloc

    x = framework.randn(256, 512, requires_grad=True)
    w = framework.ones(512, requires_grad=True)
    b = framework.zeros(512, requires_grad=True)
    nbytes = 256 * 512 * 4
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = framework.nn.functional.layer_norm(x, (512,), w, b)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert nbytes <= held < 1.5 * nbytes
