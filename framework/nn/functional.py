"""The ``F`` namespace: stateless layers and losses (as torch.nn.functional).

Losses are composed from differentiable ops, so their gradients (and higher derivatives) come from
the op table's tested backward formulas; ``binary_cross_entropy_with_logits`` and ``cross_entropy``
use the numerically stable forms torch uses.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import backend, ops
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..ops import conv as _conv, conv_nd as _conv_nd, unary_inplace as _un
from ..ops.activation import implicit_softmax_dim
from ..ops.dropout import dropout, dropout1d, dropout2d  # noqa: F401  (F.dropout...)
from ..ops.scalar_ops import MulScalar
from ..ops.linalg import linear  # noqa: F401  (F.linear)
from ..ops import batch_norm as _bn, loss as _loss, loss_nll as _nll, scalar_ops as _scalar
from ..ops.loss import binary_cross_entropy_with_logits as _fused_bce_with_logits
from ..tensor import Tensor
from .losses_more import _legacy_reduction, _reduce  # the reduction tail every loss shares
from .losses_more import promote_integer_target
from ..ops._util import scalar_type_name

# ---- activations ----------------------------------------------------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _un.ReluInplace.apply(input) if inplace else ops.relu(input)


def relu_(x: Tensor) -> Tensor:
    return _un.ReluInplace.apply(x)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _un.LeakyReluInplace.apply(input, negative_slope) if inplace else ops.leaky_relu(input, negative_slope)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _un.LeakyReluInplace.apply(x, negative_slope)


def sigmoid(input: Tensor) -> Tensor:
    return ops.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return ops.tanh(input)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``; without one, torch's legacy choice with its deprecation warning."""
    if dim is None:
        dim = implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return ops.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``; without one, torch's legacy choice with its deprecation warning."""
    if dim is None:
        dim = implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ops.log_softmax(input, dim, dtype)


def _erf_array(a):
    """erf elementwise, through the backend (NumPy has none; CuPy's is cupyx.scipy.special.erf)."""
    return backend.erf(a)


class _Erf(Function):
    """out = erf(a). Saves a."""

    node_name, array_forward = "ErfBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _erf_array(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # torch's 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        return MulScalar.apply((-(a.pow(2))).exp(), 2.0 / math.sqrt(math.pi)) * grad


class _Gelu(Function):
    """out = x * Phi(x) (exact, or torch's tanh approximation). Saves x."""

    node_name, array_forward = "GeluBackward0", True

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        xp = get_array_module(x)
        if approximate == "tanh":
            return (0.5 * x * (1 + xp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
        return (0.5 * x * (1 + _erf_array(x / math.sqrt(2.0)))).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _GeluBackward.apply(grad, x, ctx.approximate), None

    @staticmethod
    def backward_arrays(ctx, g):
        (x,) = ctx.saved_arrays
        return _gelu_backward(g, x, ctx.approximate), None


def _gelu_backward(g, x, approximate: str):
    """g * gelu'(x) on arrays (torch's gelu_backward)."""
    xp = get_array_module(x)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = xp.tanh(k * (x + 0.044715 * x ** 3))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    else:
        d = 0.5 * (1 + _erf_array(x / math.sqrt(2.0))) + x * xp.exp(-(x * x) / 2) / math.sqrt(2 * math.pi)
    return (g * d).astype(g.dtype, copy=False)


class _GeluBackward(Function):
    """out = g * gelu'(x) (torch's gelu_backward: the gradient a create_graph backward through gelu records,
    as GeluBackwardBackward0). Saves g and x."""

    node_name, array_forward = "GeluBackwardBackward0", True

    @staticmethod
    def forward(ctx, g, x, approximate):
        ctx.save_for_backward(g, x)
        ctx.approximate = approximate
        return _gelu_backward(g, x, approximate)

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        gg = _GeluBackward.apply(grad, x, ctx.approximate) if ctx.needs_input_grad[0] else None
        gx = None
        if ctx.needs_input_grad[1]:  # gelu''(x)
            if ctx.approximate == "tanh":
                k, c = math.sqrt(2 / math.pi), 0.044715
                t = ops.tanh(k * (x + c * x ** 3))
                s, du = 1 - t * t, k * (1 + 3 * c * x * x)
                d2 = s * du - x * t * s * du * du + 3 * c * k * x * x * s
                gx = grad * g * d2
            else:  # torch's gelu_double_backward, op for op: 2 * pdf - x^2 * pdf, pdf = exp(-x^2 / 2) / sqrt(2 pi)
                input_sq = x * x
                pdf = MulScalar.apply(MulScalar.apply(input_sq, -0.5).exp(), 1 / math.sqrt(2 * math.pi))
                gx = grad * g * (MulScalar.apply(pdf, 2) - input_sq * pdf)
        return gg, gx, None


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x); approximate='tanh' uses torch's tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _Gelu.apply(x, approximate)


# ---- layers -------------------------------------------------------------------------------------


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    if _amp.on and autocast_applies("conv2d", x, weight, bias, stride, padding, dilation, groups):
        return autocast_run("conv2d", conv2d, x, weight, bias, stride, padding, dilation, groups)
    if groups != 1:  # grouped (depthwise): the N-d convolution's grouped kernels
        return _conv_nd.conv_nd(x, weight, bias, stride, padding, dilation, groups, 2, "conv2d")
    if isinstance(padding, str):  # marked: torch checks the dtypes differently for a string padding
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(d * (k - 1) % 2 for d, k in zip(_pair(dilation), weight.shape[2:])):
            return _conv_nd.conv_nd(x, weight, bias, stride, padding, dilation, groups, 2, "conv2d")  # padded first
        padding = _conv.StringPadding((0, 0) if padding == "valid" else
                                      tuple(d * (k - 1) // 2 for d, k in zip(_pair(dilation), weight.shape[2:])))
    else:
        padding = _pair(padding)
    return _conv.Conv2d.apply(x, weight, bias, _pair(stride), padding, _pair(dilation))


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1):
    if _amp.on and autocast_applies("conv_transpose2d", x, weight, bias, stride, padding, output_padding, groups,
                                    dilation):
        return autocast_run("conv_transpose2d", conv_transpose2d, x, weight, bias, stride, padding, output_padding,
                            groups, dilation)
    if groups != 1:
        return _conv_nd.conv_transpose_nd(x, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                                          "conv_transpose2d")
    return _conv.ConvTranspose2d.apply(x, weight, bias, _pair(stride), _pair(padding), _pair(output_padding),
                                       _pair(dilation))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Normalise over every dim but the channel dim (1); in training, update running stats (unbiased var).

    One NativeBatchNormBackward0 node, as torch (ops/batch_norm.py)."""
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
    dims = tuple(range(input.ndim - len(tuple(normalized_shape)), input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    var = input.var(dim=dims, unbiased=False, keepdim=True)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


# ---- losses -------------------------------------------------------------------------------------


def _check_same_size(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         f"is deprecated. Please ensure they have the same size." if name != "bce" else
                         f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")


def _weighted(errors: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """mse_loss / l1_loss with ``weight``: errors * weight, a mean divided by the sum of the weights (as torch)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """One MseLossBackward0 node, on the two tensors broadcast to a common shape (as torch)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).pow(2), input, weight, reduction)
    if _amp.on and autocast_applies("mse_loss", input, target, reduction):
        return autocast_run("mse_loss", mse_loss, input, target, reduction=reduction)
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=2)
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
        input = input if tuple(input.shape) == shape else input.expand(*shape)
        target = target if tuple(target.shape) == shape else target.expand(*shape)
    return _loss.mse_loss(input, promote_integer_target(input, target), reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), input, weight, reduction)
    if _amp.on and autocast_applies("l1_loss", input, target, reduction):
        return autocast_run("l1_loss", l1_loss, input, target, reduction=reduction)
    return _reduce((input - target).abs(), reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean"):
    """-w (t log p + (1-t) log(1-p)), each log clamped at -100, as one BinaryCrossEntropyBackward0 node."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("binary_cross_entropy", input, target, weight, reduction):
        return autocast_run("binary_cross_entropy", binary_cross_entropy, input, target, weight, reduction=reduction)
    _check_same_size(input, target, "bce")
    if input.dtype == target.dtype:  # else _loss.binary_cross_entropy raises torch's dtype error, which comes first
        with backend.input_check():
            x, t = input._array, target._array
            bad_input = ~((x >= 0) & (x <= 1))  # NaN fails too, as torch's check
            bad_target = ~((t >= 0) & (t <= 1))
            if bool(bad_input.any()) or bool(bad_target.any()):
                # torch's kernel checks each element's input, then its target: the first bad element names which
                first = int(get_array_module(x).argmax((bad_input | bad_target).reshape(-1)))
                if bool(bad_input.reshape(-1)[first]):
                    raise RuntimeError("all elements of input should be between 0 and 1")
                raise RuntimeError("all elements of target should be between 0 and 1")
    return _loss.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """Stable BCE on logits as one fused op: (1-t) x + (1 + (pw-1) t) * softplus(-x)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("binary_cross_entropy_with_logits", input, target, weight, reduction, pos_weight):
        return autocast_run("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, input, target, weight,
                            reduction=reduction, pos_weight=pos_weight)
    _check_same_size(input, target, "bce")
    if target._array.dtype.kind == "b":  # torch's kernel computes 1 - target first
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if target._array.dtype.kind in "iu" and input._array.dtype.kind == "f":  # it writes into the target's dtype
        raise RuntimeError(f"result type {scalar_type_name(input._array.dtype)} can't be cast to the desired output "
                           f"type {scalar_type_name(target._array.dtype)}")
    return _fused_bce_with_logits(input, target, weight, pos_weight, reduction)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the class dim, then nll_loss (class indices) or -sum(target * logp) (probabilities).

    The compositions are ATen's (cross_entropy_loss and its label-smoothing and probability-target forms),
    so the graph's nodes and their order are torch's.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _amp.on and autocast_applies("cross_entropy", input, target, weight, ignore_index, reduction, label_smoothing):
        return autocast_run("cross_entropy", cross_entropy, input, target, weight, ignore_index=ignore_index,
                            reduction=reduction, label_smoothing=label_smoothing)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    class_dim = 0 if input.ndim == 1 else 1  # torch's: 1 also for a 0-d input (which then fails on it)
    probabilities = tuple(target.shape) == tuple(input.shape)  # torch tells them from indices by the shape
    if probabilities:  # checked before anything is computed, as torch's cross_entropy_loss
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               + target.dtype.legacy[:-len("Tensor")])
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    logp = log_softmax(input, dim=class_dim)
    n_classes = input.shape[class_dim]
    w = None
    if weight is not None:  # weight viewed to broadcast along the class dim
        w = weight.view((1, -1) + (1,) * (input.ndim - 2)) if input.ndim > 1 else weight
    if probabilities:
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target if w is None else logp * target * w
        if reduction == "none":
            return -prod.sum(dim=class_dim)
        if reduction == "sum":
            return -prod.sum()
        return _scalar.DivScalar.apply(-prod.sum(), input.numel() // n_classes)
    nll = _nll.nll_loss(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0:
        return nll
    ignore_mask = target == ignore_index
    smooth = -(logp if w is None else logp * w).sum(dim=class_dim)
    smooth.masked_fill_(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / (~ignore_mask).sum()
        else:
            smooth = smooth.sum() / weight.gather(0, target[~ignore_mask].flatten()).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (_scalar.MulScalar.apply(nll, 1 - label_smoothing)
            + _scalar.MulScalar.apply(smooth, label_smoothing / n_classes))


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """torch's F.nll_loss signature (the legacy size_average/reduce pair included) over the nll_loss op."""
    return _nll.nll_loss(input, target, weight, ignore_index, _legacy_reduction(size_average, reduce, reduction))


# ---- added for real PyTorch scripts (issue 16): defined in their own modules (which do not import this one),
# exported here as torch's F -------------------------------------------------------------------------------
from ..ops.gather import embedding, one_hot  # noqa: E402
from ..ops.interpolate import interpolate  # noqa: E402
from ..ops.resample import pad  # noqa: E402
from ..ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle  # noqa: E402
from .functional_attention import multi_head_attention_forward  # noqa: E402
from .functional_more import instance_norm, normalize, scaled_dot_product_attention  # noqa: E402
from .losses_more import (cosine_embedding_loss, cosine_similarity, huber_loss, kl_div,  # noqa: E402
                          margin_ranking_loss, pairwise_distance, smooth_l1_loss, triplet_margin_loss)
from ..ops.activation_more import (celu, celu_, elu, elu_, hardsigmoid, hardswish, hardtanh, hardtanh_,  # noqa: E402
                                   logsigmoid, mish, prelu, relu6, selu, selu_, silu, softmin, softplus, softsign,
                                   tanhshrink)
from ..ops.conv_more import adaptive_avg_pool2d, conv1d, group_norm  # noqa: E402
from ..ops.conv_nd import conv3d, conv_transpose1d, conv_transpose3d  # noqa: E402
from ..ops.fold import channel_shuffle, fold, unfold  # noqa: E402
from ..ops.dropout_more import alpha_dropout, dropout3d, feature_alpha_dropout  # noqa: E402
from .functional_pool import (adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d,  # noqa: E402
                              adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
                              adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d,
                              avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d, max_pool1d_with_indices,
                              max_pool2d, max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices, max_unpool1d,
                              max_unpool2d, max_unpool3d)
from .functional_upsample import upsample, upsample_bilinear, upsample_nearest  # noqa: E402,F401
from ..ops.activation_shrink import glu, hardshrink, rrelu, rrelu_, softshrink, threshold, threshold_  # noqa: E402
from ..ops.embedding_bag import embedding_bag  # noqa: E402
from .functional_misc import bilinear, gumbel_softmax, local_response_norm, rms_norm  # noqa: E402
from .losses_misc import (gaussian_nll_loss, hinge_embedding_loss, multi_margin_loss,  # noqa: E402
                          multilabel_margin_loss, multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss,
                          triplet_margin_with_distance_loss)
from ..ops.grid_sample import affine_grid, grid_sample  # noqa: E402  (the spatial transformer's ops)
from .losses_ctc import ctc_loss  # noqa: E402
