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
from ...ops.scalar_ops import AddScalar
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
    half = input._array.dtype.kind in "fV" and input._array.dtype.itemsize == 2
    # torch's composite: a float16/bfloat16 input is upcast to float32 (its opmath type, whose epsilon is eps's
    # default) for the whole computation, weight included, and the result cast back (ToCopyBackward0)
    x = input.to(dtypes.float32) if half else input
    if eps is None:
        eps = float(ml_dtypes.finfo(x._array.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    # torch's rms_norm: rsqrt(pow(x, 2).mean(dims, keepdim).add_(eps)), then x * that (* weight); its C++ add_ of
    # a number is the Scalar overload (AddBackward1)
    sq = x.pow(2)
    inv = ops.rsqrt(AddScalar.apply(sq.mean(dim=dims, keepdim=True) if dims else sq, eps))
    out = x * inv
    if weight is not None:
        if weight._array.dtype != input._array.dtype:  # torch's unfused path warns
            warnings.warn(f"Mismatch dtype between input and weight: input dtype = "
                          f"{c_type_name(input._array.dtype)}, weight dtype = {c_type_name(weight._array.dtype)}, "
                          "Cannot dispatch to fused implementation.", UserWarning, stacklevel=2)
        out = out * weight
    # torch's composite ends in contiguous() (a CloneBackward0 where a transposed input left the result transposed)
    return out.contiguous().to(input.dtype)  # to(): a no-op (same tensor, no node) when nothing was widened


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


def _check_layer_norm_shapes(input, normalized_shape, weight, bias) -> None:
    """torch's errors for an input that does not end in normalized_shape, or a weight/bias of another shape."""
    shape = [int(n) for n in normalized_shape]
    listed = lambda dims: "[" + ", ".join(str(int(n)) for n in dims) + "]"  # noqa: E731
    if input.ndim < len(shape) or list(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={listed(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{listed(input.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and list(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{listed(p.shape)} and normalized_shape = {listed(shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    if _amp.on and autocast_applies("layer_norm", input, normalized_shape, weight, bias, eps):
        return autocast_run("layer_norm", layer_norm, input, normalized_shape, weight, bias, eps)
    if isinstance(normalized_shape, int):  # torch takes one int for one dim
        normalized_shape = (normalized_shape,)
    _check_layer_norm_shapes(input, normalized_shape, weight, bias)
    fused = _bn.layer_norm(input, normalized_shape, weight, bias, eps)
    if fused is not None:
        return fused
    dims = tuple(range(input.ndim - len(tuple(normalized_shape)), input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    var = input.var(dim=dims, unbiased=False, keepdim=True)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


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
