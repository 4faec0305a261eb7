"""Gradient clipping and parameter <-> vector helpers (torch.nn.utils.clip_grad, convert_parameters)."""
from __future__ import annotations

import math
import warnings

from ...autograd.grad_mode import no_grad
from ...creation import tensor
from ...ops import cat, stack
from ...tensor import Tensor


def _grads(parameters) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients in place so their joint norm is at most max_norm; returns the norm before.

    As torch's: the norm and the scale stay tensors (norm of the per-gradient norms, ``clamp(max=1)``, multiply),
    so a training step reads nothing on the host here (a compiled step has no graph break); only
    ``error_if_nonfinite=True`` reads the norm to decide whether to raise."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value] (no host read)."""
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters) -> Tensor:
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    i = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[i:i + n].view_as(p))
            i += n


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The old name of clip_grad_norm_ (deprecated in torch: it warns, then clips in place all the same)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of all ``tensors`` together, as if concatenated into one vector (torch's: the norm of the norms)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else [t for t in tensors if t is not None]
    if not tensors:
        return tensor(0.0)
    with no_grad():
        norms = stack([t.norm(norm_type) for t in tensors])
        total = norms.max() if norm_type == math.inf else norms.norm(norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the gradients by "
                           "the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients in place by min(1, max_norm / (total_norm + 1e-6)) (the norm computed beforehand, e.g.
    by get_total_norm)."""
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
