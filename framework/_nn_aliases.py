"""torch's top-level forms of nn.functional's ops (torch.conv2d, torch.dropout, torch.batch_norm, ...).

Most are the very functions of nn.functional; where torch's top-level signature differs from F's (the ATen
order: ``torch.batch_norm(input, weight, bias, running_mean, ...)``, ``torch.embedding(weight, indices)``,
``torch.dropout(input, p, train)``, the losses' integer ``reduction``) a small adapter calls F with torch's meaning;
the recurrent cells (``torch.lstm_cell``) are nn's cell maths, and torch's deprecated ``torch.nuclear_norm``
framework.linalg's matrix norm. Loaded on first use (framework's ``__getattr__``), so ``import framework`` stays
light."""
from __future__ import annotations

from . import linalg
from .settings import warn_once
from .nn.functional.loss_ctc import _ctc_loss
from .nn.modules.rnn import _gru_cell, _lstm_cell, _rnn_relu_cell, _rnn_tanh_cell
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


def _reduction(value, fn: str) -> str:
    """ATen's integer reduction as F's word: 1 mean, 2 sum, any other int none (torch reduces only for 1 and 2)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{fn}(): argument 'reduction' must be int, not {type(value).__name__}")
    return {1: "mean", 2: "sum"}.get(value, "none")


# the losses in ATen's argument order; as ctc_loss, a call without reduction gets torch's binding default, 0 (none)

def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, pos_weight=None,
                                     reduction: int = 0) -> Tensor:
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(
        reduction, "binary_cross_entropy_with_logits"), pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    return F.kl_div(input, target, reduction=_reduction(reduction, "kl_div"), log_target=log_target)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction, "margin_ranking_loss"))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction, "triplet_margin_loss"))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """Every argument required, as ATen's schema."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction, "poisson_nll_loss"))


# the recurrent cells: ATen's (input, hx, w_ih, w_hh, b_ih, b_hh), nn's cell maths

def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> Tensor:
    return _rnn_tanh_cell(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> Tensor:
    return _rnn_relu_cell(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def lstm_cell(input: Tensor, hx, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> tuple:
    """(h, c) from hx = (h, c), as torch's."""
    return _lstm_cell(F.linear(input, w_ih, b_ih), tuple(hx), w_hh, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> Tensor:
    return _gru_cell(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# torch's deprecated nuclear norm, kept for its JIT: its warning, then linalg's matrix norm

def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """nuclear_norm(input, keepdim=False) or nuclear_norm(input, dim, keepdim=False), as torch's two forms."""
    if isinstance(dim, bool):  # the (input, keepdim) form
        dim, keepdim = None, dim
    warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def __getattr__(name: str):
    if name in SAME:
        return getattr(F, name)  # (an AttributeError from F names what is missing)
    raise AttributeError(f"module 'framework' has no attribute '{name}'")
