"""Every op in the op table on the test device: forward, gradients and grad_fn name equal PyTorch's (float32 and
float64), torch on the same GPU where it has CUDA, else on the CPU (compared after .cpu())."""
import numpy as np
import pytest

import framework
from framework.testing import assert_close
from op_table import OPS

torch = pytest.importorskip("torch")


def _run(m, case, arrays, dtype, device):
    xs = [m.tensor(a, dtype=dtype, requires_grad=True, device=device) for a in arrays]
    out = case.fn(m, *xs)
    rng = np.random.default_rng(1)
    upstream = rng.standard_normal(tuple(out.shape))
    out.backward(m.tensor(upstream, dtype=out.dtype, device=device))
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", OPS, ids=[c.name for c in OPS])
def test_matches_torch(case, dtype, device, torch_device):
    rng = np.random.default_rng(0)
    lo, hi = case.domain
    arrays = [rng.uniform(lo, hi, size=s) for s in case.shapes]
    out, grads = _run(framework, case, arrays, getattr(framework, dtype), device)
    t_out, t_grads = _run(torch, case, arrays, getattr(torch, dtype), torch_device)
    assert out.device == device and all(g is None or g.device == device for g in grads)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=case.tol32, atol=case.tol32)
    assert_close(out.detach(), t_out.detach().cpu().numpy(), **tol)
    for g, tg in zip(grads, t_grads):
        if tg is None:
            assert g is None
        else:
            assert_close(g, tg.cpu().numpy(), **tol)
    assert out.grad_fn.name() == t_out.grad_fn.name()
