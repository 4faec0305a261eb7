"""torch.nn.functional: every function a PyTorch script calls as F.<name>, gathered from the family modules of this package and from framework.ops.

This package imports ops only, never a Module."""
from __future__ import annotations

from ...ops._util import scalar_type_name
from ...ops.activation import (celu, celu_, elu, elu_, glu, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_,
                               implicit_softmax_dim, logsigmoid, mish, prelu, relu6, rrelu, rrelu_, selu, selu_, silu,
                               softmin, softplus, softshrink, softsign, tanhshrink, threshold, threshold_)
from ...ops.conv import conv1d, conv3d, conv_transpose1d, conv_transpose3d, fold, unfold
from ...ops.dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from ...ops.linalg import linear
from ...ops.normalization import group_norm
from ...ops.pooling import adaptive_avg_pool2d, adaptive_avg_pool3d
from ...ops.scalar_ops import MulScalar
from ...ops.sparse import embedding, embedding_bag, one_hot
from ...ops.vision import affine_grid, channel_shuffle, grid_sample, interpolate, pad, pixel_shuffle, pixel_unshuffle
from .activation import gelu, gumbel_softmax, leaky_relu, leaky_relu_, log_softmax, relu, relu_, sigmoid, softmax, tanh
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .conv import conv2d, conv_transpose2d
from .distance import cosine_similarity, pairwise_distance, pdist
from .linear_maps import bilinear
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss, cross_entropy,
                   gaussian_nll_loss, huber_loss, kl_div, l1_loss, margin_ranking_loss, mse_loss, nll_loss,
                   poisson_nll_loss, promote_integer_target, smooth_l1_loss, triplet_margin_loss)
from .loss_ctc import ctc_loss
from .loss_margin import (hinge_embedding_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
                          soft_margin_loss, triplet_margin_with_distance_loss)
from .normalization import batch_norm, instance_norm, layer_norm, local_response_norm, normalize, rms_norm
from .pooling import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                      adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,
                      avg_pool1d, avg_pool2d, avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d,
                      max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices,
                      max_unpool1d, max_unpool2d, max_unpool3d)
from .vision import upsample, upsample_bilinear, upsample_nearest


