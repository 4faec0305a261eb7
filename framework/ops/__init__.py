"""The functional API (``framework.exp(x)``, ``framework.matmul(a, b)``...), gathered from the op modules.

Floor 4.  Each op module holds its op classes (``arithmetic.Mul``...) and, below them, the functions that
pick the class and call ``.apply``; argument handling that torch does in its Python/C++ bindings
(scalars, dims, keyword forms) happens in those functions, not in the ops.  This file only re-exports.
"""
from __future__ import annotations

from ..autograd.function import Function as _Function  # noqa: F401  (the op base class, for nn.functional)
from ..tensor import Tensor  # noqa: F401
from ._util import as_operand as _t  # noqa: F401  (the old name of the operand conversion)
from .activation import log_softmax, softmax
from .arithmetic import (Reciprocal, add, div, divide, mul, multiply, neg, negative, pow, reciprocal, sub,
                         subtract, true_divide)
from .combine import Atan2, arctan2, atan2, hypot, hypot_
from .combine import Maximum, Minimum, cat, concat, concatenate, masked_fill, maximum, minimum, stack, where
from .compare import (all, allclose, any, bitwise_and, bitwise_or, bitwise_xor, eq, equal, ge,
                      greater, greater_equal, gt, is_tensor, isfinite, isinf, isnan, le, less, less_equal,
                      logical_and, logical_not, logical_or, logical_xor, lt, ne, not_equal, numel)
from .conversion import clone, contiguous
from .floordiv import floor_divide, floor_divide_, fmod, fmod_, remainder, remainder_
from .extrema import amax, amin, argmax, argmin, max, min, values_indices
from .indexing import chunk, index_put, index_put_, narrow, select, split, unbind
from .linalg import bmm, dot, matmul, mm, mv
from .reduction import mean, prod, std, sum, var
from .unary import (Rsqrt, abs, clamp, clip, cos, exp, leaky_relu, log, relu, rsqrt, sigmoid, sign, sin, sqrt,
                    tanh)
from .unary_inplace import (abs_, clamp_, clip_, cos_, detach_, exp_, fill_, log_, neg_, negative_, relu_,
                            sigmoid_, sin_, sqrt_, tanh_, zero_)
from .views import expand, expand_as, flatten, permute, reshape, squeeze, swapaxes, t, transpose, unsqueeze, view
# ops for real PyTorch scripts (issue 16): index, ordering, contraction, resampling
from .contract import baddbmm, einsum, norm
from .gather import gather, index_select, one_hot, scatter_add, take_along_dim, tril, tril_, triu, triu_
from .sorting import argsort, cumprod, cumsum, logsumexp, multinomial, sort, topk
# more elementwise and shape ops (square, floor, log1p, flip, roll, repeat, diagonal, movedim...)
from .unary_more import (absolute, absolute_, acos, acos_, arccos, arcsin, arctan, asin, asin_, atan, atan_, ceil,
                         ceil_, cosh, cosh_, erf, erf_, erfc, erfc_, expm1, expm1_, fix, fix_, floor, floor_, frac, frac_, log10,
                         log10_, log1p, log1p_, log2, log2_, nan_to_num, nan_to_num_, round, round_, sinh, sinh_,
                         square, square_, tan, tan_, trunc, trunc_)
from .shape_more import (broadcast_to, diag, diagonal, flip, fliplr, flipud, ger, moveaxis, movedim, outer, repeat,
                         roll, swapdims, tile, trace, unflatten)
from .pointwise_more import (addcdiv, addcmul, addmm, argwhere, count_nonzero, isclose, lerp, nonzero)
from .linalg_legacy import (chain_matmul, cholesky, det, inverse, logdet, matrix_exp, matrix_power, pinverse, qr, slogdet,
                            svd)
from .linalg_products import (addbmm, addmv, addr, block_diag, cdist, diag_embed, diagflat, dist, inner, kron,
                              multi_dot, tensordot)
from .select_more import bernoulli, cross, masked_select, median, repeat_interleave, take, unique
from .strided import as_strided, mode
from .pixel_shuffle import pixel_shuffle, pixel_unshuffle
from .order_stats import cummax, cummin, kthvalue
# inverse hyperbolic functions, exp2, logit, erfinv (ops/unary_special.py)
from .unary_special import (acosh, acosh_, arccosh, arccosh_, arcsinh, arcsinh_, arctanh, arctanh_, asinh, asinh_,
                            atanh, atanh_, erfinv, erfinv_, exp2, exp2_, logit, logit_)
# index writes (ops/index_ops.py)
from .index_ops import (index_add, index_add_, index_copy, index_copy_, index_fill, index_fill_, masked_scatter,
                        masked_scatter_, put, put_)
from .scatter_reduce import (index_reduce, index_reduce_, scatter, scatter_, scatter_add_, scatter_reduce,
                             scatter_reduce_)
from .scatter_views import diagonal_scatter, select_scatter, slice_scatter
# searching and counting (ops/search.py), shape helpers (ops/stacking.py)
from .search import (aminmax, bincount, bucketize, histc, isin, msort, searchsorted, tril_indices, triu_indices,
                     unique_consecutive)
from .stacking import (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, cartesian_prod, column_stack,
                       combinations, diff, dsplit, dstack, hsplit, hstack, meshgrid, rot90, row_stack, tensor_split,
                       vander, vsplit, vstack)
# more maths: nan reductions, std_mean/var_mean, quantiles, logaddexp, copysign, renorm, trapezoid (issue: nnmisc)
from .pointwise_math import (clamp_min, clamp_min_, copysign, copysign_, frexp, heaviside, ldexp, ldexp_, logaddexp,
                             logaddexp2, renorm, renorm_)
from .reduction_more import (cumulative_trapezoid, logcumsumexp, nanmean, nanmedian, nanquantile, nansum, quantile,
                             std_mean, trapezoid, var_mean)
# the gamma family and torch.special's functions (ops/unary_gamma.py); clamp with tensor bounds, clamp_min/max
# (ops/clamp_more.py); bitwise ops, gcd/lcm, fmax/fmin, float_power, deg2rad, sgn, ... (ops/pointwise_extra.py)
from .unary_gamma import (digamma, digamma_, i0, i0_, lgamma, lgamma_, mvlgamma, polygamma, polygamma_, sinc, sinc_,
                          xlogy, xlogy_)
from .clamp_more import clamp, clamp_, clamp_max, clamp_max_, clamp_min, clamp_min_
from .pointwise_extra import (angle, bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,
                              bitwise_xor, deg2rad, deg2rad_, float_power, float_power_, fmax, fmin, gcd, isneginf,
                              isposinf, isreal, lcm, positive, rad2deg, rad2deg_, sgn, signbit)
clip, clip_ = clamp, clamp_
# more of torch.Tensor's surface (ops/tensor_more.py), random fills (ops/random_fill.py), cov/corrcoef/vdot
from .tensor_more import cumprod_, cumsum_, fill_diagonal_, ravel, sum_to_size, unfold
from .stats_more import corrcoef, cov, vdot
from .random_fill import bernoulli_, cauchy_, exponential_, geometric_, log_normal_, random_
# in-place view ops and resizing (ops/views_inplace.py, ops/resize.py)
from .views_inplace import as_strided_, squeeze_, swapaxes_, swapdims_, t_, transpose_, unsqueeze_
from .resize import resize_, resize_as_, set_
# LU factorization and triangular solves (ops/linalg_lu.py, ops/linalg_triangular.py)
from .linalg_lu import lu_unpack
from .linalg_legacy import lu, lu_solve
from .linalg_triangular import triangular_solve
