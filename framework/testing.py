"""Test helpers: float64 numerical gradient check and assert_close (as torch.autograd.gradcheck / torch.testing)."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import backend
from .autograd import grad as autograd_grad
from .tensor import Tensor


class GradcheckError(AssertionError):
    """Analytical and numerical gradients disagree."""


def _outputs(fn, inputs) -> list:
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if isinstance(o, Tensor) and o.is_floating_point()]


def gradcheck(fn: Callable, inputs: Sequence, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True) -> bool:
    """Compare autograd's gradients of ``fn`` with central differences, for float64 inputs.

    Each output element is backpropagated on its own (a full Jacobian), so the check is exact for any
    vector-Jacobian product, not just for a sum.
    """
    inputs = list(inputs)
    diff_inputs = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    for t in diff_inputs:
        if t.dtype.name != "float64":
            raise ValueError("gradcheck expects float64 inputs (got %s): float32 differences are too noisy" % t.dtype)
    outs = _outputs(fn, inputs)
    for oi, out in enumerate(outs):
        n_out = out.numel()
        # analytical Jacobian, one row per output element
        analytical = [np.zeros((n_out, t.numel())) for t in diff_inputs]
        for k in range(n_out):
            seed = np.zeros(n_out)
            seed[k] = 1.0
            g = Tensor._make(backend.to_device(seed.reshape(out.shape).astype(out._array.dtype), out.device))
            out_k = _outputs(fn, inputs)[oi]
            grads = autograd_grad(out_k, diff_inputs, g, allow_unused=True)
            for j, gr in enumerate(grads):
                if gr is not None:
                    analytical[j][k] = backend.to_numpy(gr._array).reshape(-1)
        # numerical Jacobian by central differences
        for j, t in enumerate(diff_inputs):
            numerical = np.zeros((n_out, t.numel()))
            flat = t._array.reshape(-1)
            for i in range(t.numel()):
                orig = flat[i].item()
                flat[i] = orig + eps
                plus = backend.to_numpy(_outputs(fn, inputs)[oi]._array).reshape(-1).astype(np.float64)
                flat[i] = orig - eps
                minus = backend.to_numpy(_outputs(fn, inputs)[oi]._array).reshape(-1).astype(np.float64)
                flat[i] = orig
                numerical[:, i] = (plus - minus) / (2 * eps)
            if not np.allclose(analytical[j], numerical, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {oi} with respect to input {j},\n"
                    f"numerical:{numerical}\nanalytical:{analytical[j]}")
    return True


def gradgradcheck(fn: Callable, inputs: Sequence, grad_outputs: Sequence | None = None, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """gradcheck of the gradients of ``fn`` (second derivatives), for float64 inputs.

    As torch's: the vectors the first gradients are taken against are random (or ``grad_outputs``) and are
    checked as inputs too.
    """
    inputs = list(inputs)
    diff_inputs = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [Tensor._make(backend.to_device(rng.standard_normal(o.shape).astype(o._array.dtype),
                                                       o.device)).requires_grad_(True) for o in outs]
    grad_outputs = list(grad_outputs)
    n = len(inputs)

    def first_grads(*args):
        xs, vs = list(args[:n]), list(args[n:])
        outs_now = _outputs(fn, xs)
        diff = [t for t in xs if isinstance(t, Tensor) and t.requires_grad]
        grads = autograd_grad(outs_now, diff, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    if not diff_inputs:
        return True
    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


def assert_close(actual, expected, *, rtol: float | None = None, atol: float | None = None,
                 check_dtype: bool = True, msg: str | None = None) -> None:
    """Assert two tensors (or arrays, or torch tensors) are equal within dtype-appropriate tolerances."""
    a, e = _as_numpy(actual), _as_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if check_dtype and a.dtype != e.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}.")
    if rtol is None or atol is None:
        kind = np.result_type(a.dtype, e.dtype)
        rtol, atol = {np.dtype(np.float16): (1e-3, 1e-5), np.dtype(np.float32): (1.3e-6, 1e-5),
                      np.dtype(np.float64): (1e-7, 1e-7)}.get(kind, (0.0, 0.0))
    if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True):
        worst = np.max(np.abs(a.astype(np.float64) - e.astype(np.float64))) if a.size else 0.0
        raise AssertionError(msg or f"Tensor-likes are not close!\nGreatest absolute difference: {worst} "
                                    f"(up to {atol} allowed)\nactual={a}\nexpected={e}")


def _as_numpy(x) -> np.ndarray:
    if isinstance(x, Tensor):
        return backend.to_numpy(x._array)
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor
        return x.detach().cpu().numpy()
    return np.asarray(x)
