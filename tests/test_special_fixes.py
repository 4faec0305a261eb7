"""Fixes from the special-values sweep (tests/test_special_values.py) that the sweep cannot pin down itself: NaN
placement in descending sorts (the sweep skips sort's ties), float32 var/std accumulated in double as torch's (bit
for bit on ordinary values too), and masked_grad's exact zeros for every layout."""
from __future__ import annotations

import numpy as np
import pytest

import framework
from framework.ops.backward_ops import masked_grad

NAN = float("nan")


@pytest.mark.parametrize("n", [7, 1001])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_descending_sort_and_topk_put_nan_first_as_torch(n, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.permutation(n).astype(dtype) - n / 2  # distinct values: no ties, one answer
    x[rng.permutation(n)[:3]] = NAN
    x[rng.permutation(n)[0]] = np.inf
    for fn in (lambda m, t: m.sort(t, descending=True), lambda m, t: m.topk(t, 5), lambda m, t: m.sort(t)):
        ours = fn(framework, framework.from_numpy(x.copy()))
        theirs = fn(torch, torch.from_numpy(x.copy()))
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())  # NaN first, as torch
        real = ~np.isnan(theirs.values.numpy())  # (the order among the NaNs, ties, is torch's to choose)
        assert ours.indices.numpy()[real].tolist() == theirs.indices.numpy()[real].tolist()


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("dim", [None, 1])
def test_float32_var_std_are_torchs_double_accumulated_values_bit_for_bit(fn, dim):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((7, 33)).astype(np.float32)
    x[0, 0] = 5e19  # its square overflows float32; torch's double accumulation keeps var and std finite
    kw = {} if dim is None else dict(dim=dim)
    ours = getattr(framework.from_numpy(x.copy()), fn)(**kw).numpy()
    theirs = getattr(torch.from_numpy(x.copy()), fn)(**kw).numpy()
    assert np.isfinite(ours).all() and ours.tobytes() == theirs.tobytes()


def test_masked_grad_is_where_for_every_layout_and_dtype():
    rng = np.random.default_rng(2)
    keep = rng.standard_normal((6, 5)) > 0
    g = rng.standard_normal((6, 5)).astype(np.float32)
    g[0, :4] = [np.inf, -np.inf, np.nan, -0.0]
    for gg, kk in ((g, keep), (g.T, keep.T), (g[::2], keep[::2]), (g.astype(np.float64), keep),
                   (g.astype(np.float16), keep), (g.astype(np.int64), keep), (g, keep[0])):
        want = np.where(kk, gg, 0).astype(gg.dtype)
        got = masked_grad(gg, kk)
        assert got.dtype == gg.dtype and got.tobytes() == want.tobytes()  # +0.0 where dropped, never NaN or -0.0
