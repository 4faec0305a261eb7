"""torch's top-level forms of nn.functional's ops (torch.conv2d, torch.dropout, torch.batch_norm, ...).

Most are the very functions of nn.functional; where torch's top-level signature differs from F's (the ATen
order: ``torch.batch_norm(input, weight, bias, running_mean, ...)``, ``torch.embedding(weight, indices)``,
``torch.dropout(input, p, train)``) a small adapter calls F with torch's meaning. Loaded on first use (framework's
``__getattr__``), so ``import framework`` stays light."""
from __future__ import annotations

from .nn.functional.loss_ctc import _ctc_loss
from .nn import functional as F
from .tensor import Tensor


SAME = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d",
        "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "adaptive_avg_pool1d",
        "cosine_similarity", "pairwise_distance", "prelu", "channel_shuffle", "pdist", "bilinear", "hardshrink",
        "threshold", "threshold_", "rrelu", "rrelu_", "rms_norm")


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool = True) -> Tensor:
    """torch.batch_norm: ATen's argument order (weight and bias before the running statistics)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight, bias, running_mean, running_var, use_input_stats: bool, momentum: float,
                  eps: float, cudnn_enabled: bool = True) -> Tensor:
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """torch.embedding: the weight first; padding_idx -1 means none (ATen's convention)."""
    return F.embedding(indices, weight, padding_idx=None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, training=train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, training=train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, training=train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, training=train)


def adaptive_max_pool1d(input: Tensor, output_size):
    """torch.adaptive_max_pool1d returns (values, indices), as ATen's op."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input: Tensor, pad, value: float = 0) -> Tensor:
    return F.pad(input, pad, "constant", value)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0, reduction: int = 0,
             zero_infinity: bool = False) -> Tensor:
    """torch.ctc_loss: ATen's integer reduction (0 none, 1 mean, 2 sum). Its schema's default is Mean, but torch's
    Python binding reads that default as 0, so a call without it returns the per-item losses, as here."""
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


def __getattr__(name: str):
    if name in SAME:
        return getattr(F, name)  # (an AttributeError from F names what is missing)
    raise AttributeError(f"module 'framework' has no attribute '{name}'")
