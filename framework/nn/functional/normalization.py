"""Normalization functions of torch.nn.functional: batch_norm, layer_norm, rms_norm, local_response_norm, normalize, instance_norm."""
from __future__ import annotations

import warnings

import ml_dtypes

from ...amp.state import autocast_applies, autocast_run, state as _amp
from ...autograd.grad_mode import no_grad
from ...ops._util import c_type_name
from ...ops.vision import pad
from ... import dtypes, ops
from ...ops import normalization as _bn
from ...tensor import Tensor


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """input / sqrt(mean(input**2 over the normalized dims) + eps) (* weight); eps None: the dtype's epsilon."""
    if _amp.on and autocast_applies("rms_norm", input, normalized_shape, weight, eps):
        return autocast_run("rms_norm", rms_norm, input, normalized_shape, weight, eps)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        expected = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*{expected}], but got "
                           f"input of size{list(input.shape)}")
    if eps is None:
        eps = float(ml_dtypes.finfo(input._array.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    # torch's rms_norm: rsqrt(pow(x, 2).mean(dims, keepdim).add_(eps)), then x * that (* weight)
    inv = ops.rsqrt(input.pow(2).mean(dim=dims, keepdim=True).add_(eps)) if dims else \
        ops.rsqrt(input.pow(2).add_(eps))
    out = input * inv
    if weight is None:
        return out
    if weight._array.dtype != input._array.dtype:  # torch's unfused path: the product in the promoted dtype, then
        # cast back to the input's (ToCopyBackward0), with its warning
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = {c_type_name(input._array.dtype)}, "
                      f"weight dtype = {c_type_name(weight._array.dtype)}, Cannot dispatch to fused implementation.",
                      UserWarning, stacklevel=2)
        return (out * weight).to(input.dtype)
    return out * weight


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of input**2 over `size` neighbouring channels) ** beta."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sq = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    padded = pad(sq, (0, 0) * (dim - 2) + (before, after))  # zero channels on both sides
    c = input.shape[1]
    window = padded.narrow(1, 0, c)
    for s in range(1, size):  # the channel window's sum, as torch's avg_pool over (size, 1, ...)
        window = window + padded.narrow(1, s, c)
    div = (window / size).mul(alpha).add(k).pow(beta)
    return input / div


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Normalise over every dim but the channel dim (1); in training, update running stats (unbiased var).

    One NativeBatchNormBackward0 node, as torch (ops/normalization.py)."""
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        if (running_mean is None) != (running_var is None):
            raise ValueError("running_mean and running_var must either both be None or neither be None")
    elif running_mean is None or running_var is None:
        which = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{which} must be defined in evaluation mode")
    return _bn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    if _amp.on and autocast_applies("layer_norm", input, normalized_shape, weight, bias, eps):
        return autocast_run("layer_norm", layer_norm, input, normalized_shape, weight, bias, eps)
    n = len(tuple(normalized_shape))
    if _fused_layer_norm(input, n, weight, bias):
        return _bn.layer_norm(input, n, weight, bias, eps)
    dims = tuple(range(input.ndim - n, input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    var = input.var(dim=dims, unbiased=False, keepdim=True)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _fused_layer_norm(input, n: int, weight, bias) -> bool:
    """One NativeLayerNormBackward0 node (as torch's) for float32/float64 input whose weight and bias (if any) have
    its dtype and the normalised shape; anything else keeps the composite, which promotes and checks as before."""
    if not isinstance(input, Tensor) or input.dtype not in (dtypes.float32, dtypes.float64) or not 0 < n <= input.ndim:
        return False
    shape = tuple(input.shape[input.ndim - n:])
    return all(p is None or (isinstance(p, Tensor) and p.dtype == input.dtype and tuple(p.shape) == shape)
               for p in (weight, bias))


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """input / max(|input|_p along dim, eps), as torch's F.normalize."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported "
                                  "(framework has no out= arguments; use the returned tensor)")
    denom = ops.norm(input, p=p, dim=dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims.

    As torch's aten::instance_norm: batch norm over the input viewed as (1, N*C, *spatial), with the
    per-channel weight, bias and running stats repeated N times; the running stats then take the mean of
    their N updated copies.  So the graph is ViewBackward0 <- NativeBatchNormBackward0 <- RepeatBackward0.
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    weight_, bias_, mean_, var_ = (t.repeat(b) if t is not None else None
                                   for t in (weight, bias, running_mean, running_var))
    out = _bn.batch_norm(input.contiguous().view(1, b * c, *input.shape[2:]), mean_, var_, weight_, bias_,
                         use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)
