"""framework: a readable NumPy/CuPy deep-learning library whose autograd behaves like PyTorch's.

``import framework as torch`` runs ordinary PyTorch snippets: tensors, autograd, nn, optim.
"""
from __future__ import annotations

import builtins
import importlib

from . import backend, dtypes
# autograd before tensor: tensor.py's `from .autograd.grad_mode import ...` runs the autograd package's
# __init__, whose engine needs a finished Tensor, so the autograd package is the way in (it loads tensor)
from . import autograd
from . import _tensor_methods  # noqa: F401  (floor 4: installs Tensor methods and operators)
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .autograd import functional as _autograd_functional  # noqa: F401  (sets framework.autograd.functional)
from . import testing as _testing

# torch.autograd.gradcheck / gradgradcheck: the checks live in testing (a higher floor), the names where torch has them
autograd.gradcheck, autograd.gradgradcheck = _testing.gradcheck, _testing.gradgradcheck
from .creation import (BoolTensor, DoubleTensor, FloatTensor, IntTensor, LongTensor, arange, as_tensor, eye, from_numpy,
                       full, linspace, ones, rand, randint, randn, randperm, tensor, zeros)
from .ops.creation import empty, empty_like, full_like, ones_like, rand_like, randint_like, randn_like, zeros_like
from .dtypes import (bool_ as bool, bfloat16, dtype, float16, float32, float64, int8, int16, int32, int64, uint8)
from .dtypes import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from .dtypes import layout, strided
from .ops import (abs, add, all, allclose, amax, amin, any, argmax, argmin, bmm, cat, chunk, clamp, clip, clone,
                  concat, cos, div, dot, eq, equal, exp, expand, flatten, ge, gt, is_tensor, isfinite, isinf, isnan,
                  le, log, log_softmax, logical_not, lt, masked_fill, matmul, max, maximum, mean, min, minimum, mm,
                  mul, mv, narrow, ne, neg, numel, permute, pow, reciprocal, relu, reshape, rsqrt, select, sigmoid,
                  sign, sin, softmax, split, sqrt, squeeze, stack, std, sub, sum, t, tanh, transpose, unbind,
                  unsqueeze, var, where)
from .ops import arctan2, atan2, floor_divide, fmod, prod, remainder
from .ops import (abs_, clamp_, clip_, cos_, detach_, exp_, fill_, log_, neg_, negative_, relu_, sigmoid_, sin_,
                  sqrt_, tanh_, zero_)
from .ops import (argsort, baddbmm, cumprod, cumsum, einsum, gather, index_select, logsumexp, multinomial,
                  scatter, scatter_add, sort, topk, tril, triu)
from .ops import norm as _vector_norm
from .ops import (absolute, absolute_, acos, acos_, arccos, arcsin, arctan, asin, asin_, atan, atan_, ceil, ceil_,
                  cosh, cosh_, erf, erf_, erfc, erfc_, expm1, expm1_, fix, fix_, floor, floor_, frac, frac_, log10, log10_, log1p,
                  log1p_, log2, log2_, nan_to_num, nan_to_num_, round, round_, sinh, sinh_, square, square_, tan,
                  tan_, trunc, trunc_)
from .ops import (broadcast_to, diag, diagonal, flip, fliplr, flipud, ger, moveaxis, movedim, outer, roll, swapaxes,
                  swapdims, tile, trace, unflatten)
from .ops import (addcdiv, addcmul, addmm, argwhere, count_nonzero, isclose, lerp, logical_and, logical_or,
                  logical_xor, nonzero, true_divide)
from .ops import as_strided, bernoulli, cross, median, mode, repeat_interleave, take, take_along_dim, unique
from .ops import index_put, index_put_, masked_select
from .ops import cummax, cummin, kthvalue
from .ops import pixel_shuffle, pixel_unshuffle
from .ops import (acosh, acosh_, arccosh, arccosh_, arcsinh, arcsinh_, arctanh, arctanh_, asinh, asinh_, atanh, atanh_,
                  erfinv, exp2, exp2_, hypot, logit, logit_)
from .ops import index_add, index_copy, index_fill, index_reduce, masked_scatter, put, scatter_reduce
from .ops import diagonal_scatter, select_scatter, slice_scatter
from .ops import (aminmax, bincount, bucketize, histc, histogram, isin, msort, searchsorted, tril_indices,
                  triu_indices, unique_consecutive)
from .ops import (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, cartesian_prod, column_stack, combinations,
                  diff, dsplit, dstack, hsplit, hstack, meshgrid, rot90, row_stack, tensor_split, vander, vsplit,
                  vstack)
from .ops import (addbmm, addmv, addr, block_diag, cdist, chain_matmul, cholesky, det, diag_embed, diagflat, dist, inner,
                  inverse, kron, logdet, matrix_exp, matrix_power, pinverse, qr, slogdet, svd, tensordot)
from .ops import lu, lu_solve, lu_unpack, triangular_solve
from .ops import cholesky_inverse, cholesky_solve
from .ops import as_strided_, resize_as_  # torch's top-level in-place view functions
from .ops import acos_ as arccos_, addmv_, asin_ as arcsin_, atan_ as arctan_  # (torch has no top-level addmm_)
from .ops import unsafe_chunk  # torch.unsafe_chunk: chunk recorded as one UnsafeSplitBackward0 node
from .ops import concatenate, unsafe_split, unsafe_split_with_sizes
from .ops.conversion import conj_physical, conj_physical_, fill, is_signed
from .ops import (alias_copy, as_strided_copy, detach_copy, diagonal_copy, expand_copy, narrow_copy, permute_copy,
                  select_copy, slice_copy, split_copy, split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy,
                  unbind_copy, unfold_copy, unsqueeze_copy, view_copy)
from .ops.activation import celu, celu_, selu, selu_
from .ops.linalg import geqrf, householder_product as orgqr  # noqa: F401
from .ops import (angle, bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor,
                  clamp_max, clamp_max_, clamp_min, clamp_min_, deg2rad, deg2rad_, digamma, float_power, fmax, fmin,
                  gcd, i0, i0_, isneginf, isposinf, isreal, lcm, lgamma, mvlgamma, nextafter, polygamma, positive,
                  rad2deg, rad2deg_, sgn, signbit, sinc, sinc_, xlogy, xlogy_)
from .ops import ge as greater_equal, gt as greater, le as less_equal, lt as less, ne as not_equal
from .ops import div as divide, mul as multiply, neg as negative, sub as subtract
from .ops import corrcoef, cov, ravel, vdot
from .ops.pointwise.unary_inplace import _method as _inplace_function
from ._tensor_str import get_printoptions, set_printoptions
from .settings import (are_deterministic_algorithms_enabled, get_float32_matmul_precision, get_num_threads,
                       is_deterministic_algorithms_warn_only_enabled, set_anomaly_enabled, set_float32_matmul_precision,
                       set_num_threads, use_deterministic_algorithms)
from .settings import (get_deterministic_debug_mode, get_num_interop_threads, is_warn_always_enabled,
                       set_default_tensor_type, set_deterministic_debug_mode, set_flush_denormal,
                       set_num_interop_threads, set_warn_always)
from .creation import empty_permuted, frombuffer
from .creation import asarray, empty_strided, logspace, normal, poisson, range, scalar_tensor
from .windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window
from .type_info import broadcast_shapes, can_cast, finfo, iinfo, is_inference, result_type, typename
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .ops.pointwise import rsub
from .ops.indexing import unravel_index

gcd_, lcm_, reciprocal_, rsqrt_ = (_inplace_function(n) for n in ("gcd_", "lcm_", "reciprocal_", "rsqrt_"))
from .ops import clamp_min_, ldexp_  # noqa: F401  (torch.clamp_min_, torch.ldexp_)
from .ops import trapezoid as trapz  # (torch's older name)
from .ops import frobenius_norm
from .ops import (clamp_min, copysign, cumulative_trapezoid, frexp, heaviside, ldexp, logaddexp, logaddexp2,
                  logcumsumexp, nanmean, nanmedian, nanquantile, nansum, quantile, renorm, std_mean, trapezoid,
                  var_mean)
from .ops.activation import hardshrink, rrelu, rrelu_, threshold, threshold_
from . import amp
from .amp.autocast_mode import (autocast, autocast_decrement_nesting, autocast_increment_nesting,
                                clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,
                                get_autocast_gpu_dtype, is_autocast_available, is_autocast_cache_enabled,
                                is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                                set_autocast_dtype, set_autocast_enabled)
from .random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .tensor import Size, Tensor

float = float32
double = float64
half = float16
long = int64
int = int32
short = int16


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """torch.norm: vector norms (p a number, or 'fro' over at most two dims) by ops.norm; 'nuc' and 'fro' over
    more dims are matrix norms, from framework.linalg (a floor above the ops), as torch dispatches them."""
    if out is not None:
        raise NotImplementedError("torch.norm(out=...) is not supported "
                                  "(framework has no out= arguments; use the returned tensor)")
    if isinstance(p, str) and not (p == "fro" and (dim is None or isinstance(dim, builtins.int) or len(dim) <= 2)):
        matrix_norm = importlib.import_module(".linalg", __name__).matrix_norm  # (lazy, as the submodules below)
        dims = tuple(builtins.range(input.ndim)) if dim is None else dim  # (this module's `range` is torch's)
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    return _vector_norm(input, p, dim, keepdim, dtype)


def _tensor_norm(self: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Tensor.norm: torch.norm on self (the method has no ``out``)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


Tensor.norm = _tensor_norm  # (the ops floor installed the vector-norm form)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """torch.split: Tensor.split under torch's parameter names for the function form."""
    return tensor.split(split_size_or_sections, dim)


def detach(input: Tensor) -> Tensor:
    """torch.detach(x): x.detach()."""
    return input.detach()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    """False: framework has no complex dtypes."""
    return input.is_complex()


def is_nonzero(input: Tensor) -> bool:
    return input.is_nonzero()


def conj(input: Tensor) -> Tensor:
    """input itself (real tensors: the conjugate is the tensor, as torch returns it)."""
    return input.conj()


resolve_conj = resolve_neg = conj


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input.is_same_size(other)


def is_conj(input: Tensor) -> bool:
    """False: framework has no complex dtypes (so no lazily conjugated tensors)."""
    return input.is_conj()


def is_neg(input: Tensor) -> bool:
    """False: no tensor here carries a lazy negation bit."""
    return input.is_neg()


def get_device(input: Tensor) -> int:
    """The CUDA device index, -1 on the CPU."""
    return input.get_device()


def real(input: Tensor) -> Tensor:
    return input.real


def imag(input: Tensor) -> Tensor:
    return input.imag


def adjoint(input: Tensor) -> Tensor:
    return input.adjoint()


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    return input.split_with_sizes(split_sizes, dim)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function (torch.special.gammainc)."""
    return input.igamma(other)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function (torch.special.gammaincc)."""
    return input.igammac(other)


def get_default_dtype() -> dtype:
    return dtypes.default_float


def set_default_dtype(d: dtype) -> None:
    """Make factories and Python floats use ``d`` (float32 or float64)."""
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.default_float = d


def promote_types(a: dtype, b: dtype) -> dtype:
    return dtypes.from_numpy_dtype(dtypes.promote_types(a.np, b.np))


device = backend.device  # torch.device("cpu"), ("cuda:1"), ("cuda", 1): a str 'cpu'/'cuda:N' with .type, .index


def set_default_device(device) -> None:
    """Factories and new layers' parameters go to ``device`` when none is given (torch.set_default_device)."""
    backend.set_default_device("cpu" if device is None else backend.norm_device(device))


def get_default_device() -> str:
    return backend.get_default_device()


_FUNCTIONAL_ALIASES = {
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "cosine_similarity", "pairwise_distance", "prelu", "channel_shuffle", "pdist", "bilinear", "hardshrink",
    "threshold", "threshold_", "rrelu", "rrelu_", "rms_norm", "batch_norm", "instance_norm", "layer_norm",
    "group_norm", "embedding", "dropout", "dropout_", "alpha_dropout", "feature_alpha_dropout", "constant_pad_nd",
    "ctc_loss", "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "poisson_nll_loss", "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell",
    "gru_cell", "nuclear_norm"}


def __getattr__(name: str):
    # lazy submodules keep `import framework` light (start-up cost: nn/optim/viz load on first use)
    if name in ("nn", "optim", "utils", "testing", "cuda", "cpu", "viz", "diagnostics", "serialization",
                "distributions",
                "accelerator", "backends", "onnx", "distributed",
                "compile", "special", "linalg", "func"):
        return importlib.import_module(f".{name}", __name__)
    if name == "vmap":  # torch.vmap is torch.func.vmap
        return importlib.import_module(".func", __name__).vmap
    if name in ("rms_norm", "bilinear", "alpha_dropout"):  # torch.rms_norm...: nn.functional's, loaded on first use
        return getattr(importlib.import_module(".nn.functional", __name__), name)
    if name in ("save", "load"):
        return getattr(importlib.import_module(".serialization", __name__), name)
    if name in _FUNCTIONAL_ALIASES:  # torch.conv2d, torch.dropout, ...: nn.functional's, loaded on first use
        return getattr(importlib.import_module("._nn_aliases", __name__), name)
    raise AttributeError(f"module 'framework' has no attribute '{name}'")


__version__ = "0.1.0"
