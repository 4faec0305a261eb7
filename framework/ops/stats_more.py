"""cov and corrcoef (torch's compositions, op for op, so their nodes and values are torch's) and vdot."""
from __future__ import annotations

import warnings

from ..amp.state import autocast_applies, autocast_run, state as _amp
from .. import dtypes
from ..backend import get_array_module
from ..tensor import Tensor
from ._util import scalar_type_name
from .linalg import Dot


class Vdot(Dot):
    """out = sum(conj(a) * b) for 1-D a, b (real tensors here: dot). Saves a and/or b, as Dot."""

    node_name = "VdotBackward0"


def vdot(input: Tensor, other: Tensor) -> Tensor:
    if _amp.on and autocast_applies("vdot", input, other):
        return autocast_run("vdot", vdot, input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return Vdot.apply(input, other)


def _long(like: Tensor, value: int) -> Tensor:
    """torch's at::scalar_tensor(value, in.options().dtype(kLong)): a 0-d int64 constant."""
    return Tensor._make(get_array_module(like._array).asarray(value, dtype=dtypes.int64.np))


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in columns), as torch composes it."""
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype == dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.ndim} dimensions")
        if fweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{scalar_type_name(fweights._array.dtype)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n}")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.ndim} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{scalar_type_name(aweights._array.dtype)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n}")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else _long(x, n)
    if w is not None and not bool(w_sum.ne(0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor.le(0)):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t())
    return c.true_divide(norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of input's rows, clipped to [-1, 1] (torch's composition)."""
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c  # a scalar covariance: NaN for nan/inf/0, 1 otherwise
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)
