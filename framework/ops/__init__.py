"""The functional API (``framework.exp(x)``, ``framework.matmul(a, b)``...), gathered from the op families.

Floor 4.  Each family (a package with a face, or one module) holds its op classes (``Mul``...) and, below
them, the functions that pick the class and call ``.apply``; argument handling that torch does in its
Python/C++ bindings (scalars, dims, keyword forms) happens in those functions, not in the ops.  The families
come in the order of torch's reference (torch.rst); docs/design/layout.md draws them.  This file only
re-exports."""
from __future__ import annotations

from ..autograd.function import Function as _Function  # noqa: F401  (the op base class, for nn.functional)
from ..tensor import Tensor  # noqa: F401
from ._util import as_operand as _t  # noqa: F401  (the old name of the operand conversion)
from ._util import values_indices  # noqa: F401  (torch.return_types' (values, indices))
# creation: *_like and empty(memory_format=)
from .creation import empty, empty_like, full_like, ones_like, rand_like, randn_like, zeros_like
# clone, contiguous, to, copy_/fill_/zero_
from .conversion import (Clone, clone, contiguous, CONVERSIONS, Copy, Fill, FillTensor, imag, is_contiguous, is_nonzero,
                         is_signed, to, ToCopy, Zero)
from .shape import *  # noqa: F401,F403  (views, joining, rearranging, diagonals)
from .indexing import *  # noqa: F401,F403  (indexing, slicing, gathering, scattering)
# random sampling
from .sampling import (Bernoulli, bernoulli, bernoulli_, BernoulliFill, BernoulliTensorFill, Cauchy, cauchy_,
                       Exponential, exponential_, Geometric, geometric_, log_normal_, LogNormal, multinomial, Normal,
                       random_, RandomInts, Uniform)
from .pointwise import *  # noqa: F401,F403  (pointwise and comparison ops)
from .reduction import *  # noqa: F401,F403  (reductions)
# sorting
from .sorting import argsort, msort, sort, SortValues, topk, TopkValues
# searching and counting
from .search import bincount, bucketize, histc, histogram, isin, searchsorted, unique, unique_consecutive
from .linalg import *  # noqa: F401,F403  (BLAS and LAPACK)
from .activation import *  # noqa: F401,F403  (activations)
from .loss import *  # noqa: F401,F403  (losses)
# normalization
from .normalization import (batch_norm, group_norm, GroupNorm, NativeBatchNorm, norm_except_dim, weight_norm,
                            WeightNormInterface)
# dropout
from .dropout import (ALPHA, alpha_dropout, alpha_dropout_with_mask, dropout1d, dropout2d, dropout3d,
                      feature_alpha_dropout)
# sparse functions: embedding, embedding_bag, one_hot
from .sparse import Embedding, embedding, embedding_bag, EmbeddingBag, one_hot
# a recurrent layer as one node
from .recurrent import lstm_layer, lstm_layer_reference, LstmLayer
from .pooling import *  # noqa: F401,F403  (pooling)
from .vision import *  # noqa: F401,F403  (vision: padding, interpolation, grid sampling, shuffles)
from .conv import *  # noqa: F401,F403  (convolutions)
