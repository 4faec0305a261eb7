"""Random sampling into tensors: uniform_, normal_, exponential_, cauchy_, log_normal_, geometric_, random_, bernoulli(_), multinomial."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from .. import backend
from ..backend import device_of, get_array_module, to_device
from ..random import _gen
from ..tensor import Tensor
from ._util import scalar_type_name


def _zeros_like(grad: Tensor) -> Tensor:
    return Tensor._make(get_array_module(grad._array).zeros_like(grad._array))


class _Fill(Function):
    """a[...] = draw(numpy Generator, shape) in place. Saves nothing; the gradient to a is zero."""

    array_forward, inplace = True, True

    @classmethod
    def forward(cls, ctx, a, params, generator=None):
        values = cls.draw(_gen(generator), *params, a.shape)
        a[...] = to_device(values.astype(a.dtype), device_of(a))
        return a

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None, None


class Exponential(_Fill):
    """a ~ Exp(lambd) in place."""

    node_name = "ExponentialBackward0"
    draw = staticmethod(lambda g, lambd, shape: g.exponential(1.0 / lambd, shape))


class Cauchy(_Fill):
    """a ~ Cauchy(median, sigma) in place."""

    node_name = "CauchyBackward0"
    draw = staticmethod(lambda g, median, sigma, shape: median + sigma * g.standard_cauchy(shape))


class LogNormal(_Fill):
    """a ~ exp(N(mean, std**2)) in place."""

    node_name = "LogNormalBackward0"
    draw = staticmethod(lambda g, mean, std, shape: g.lognormal(mean, std, shape))


class Geometric(_Fill):
    """a ~ Geometric(p) in place: the number of trials up to the first success (1, 2, ...)."""

    node_name = "GeometricBackward0"
    draw = staticmethod(lambda g, p, shape: g.geometric(p, shape))


class RandomInts(_Fill):
    """a ~ integers uniform on [low, high) in place."""

    node_name = "RandomBackward0"
    draw = staticmethod(lambda g, low, high, shape: g.integers(low, high, shape))


class BernoulliFill(_Fill):
    """a ~ Bernoulli(p) in place, for a number p."""

    node_name = "BernoulliBackward2"
    draw = staticmethod(lambda g, p, shape: g.random(shape) < p)


class BernoulliTensorFill(_Fill):
    """a ~ Bernoulli(p) in place, for a tensor p of a's shape (drawn on the host, compared on a's device)."""

    node_name = "BernoulliBackward1"

    @classmethod
    def forward(cls, ctx, a, params, generator=None):
        (probs,) = params
        u = to_device(_gen(generator).random(a.shape), device_of(a))
        a[...] = (u < probs).astype(a.dtype)
        return a


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return Exponential.apply(self, (float(lambd),), generator)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    return Cauchy.apply(self, (float(median), float(sigma)), generator)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return LogNormal.apply(self, (float(mean), float(std)), generator)


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return Geometric.apply(self, (float(p),), generator)


def _int_limit(dtype) -> int:
    """torch's random_() upper bound: 2**mantissa bits + 1 for floats, the dtype's max + 1 for integers."""
    np_dtype = dtype.np
    if np_dtype.kind in "fV":
        return 2 ** {2: 11, 4: 24, 8: 53}[np_dtype.itemsize] + 1
    if np_dtype.kind == "b":
        return 2
    return int(np.iinfo(np_dtype).max) + 1


def random_(self: Tensor, from_: int = 0, to: int | None = None, *, generator=None) -> Tensor:
    """random_(): [0, dtype's limit); random_(to): [0, to); random_(from, to): [from, to)."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    high = _int_limit(self.dtype) if to is None else int(to)
    if not from_ < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={high}")
    return RandomInts.apply(self, (int(from_), high), generator)


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """self[...] ~ Bernoulli(p); p a number or a tensor of probabilities (broadcast to self's shape)."""
    if isinstance(p, Tensor):
        xp = get_array_module(self._array)
        probs = xp.broadcast_to(p.detach()._array, self.shape)  # (p's gradient is zero in torch: no edge here)
        return BernoulliTensorFill.apply(self, (probs,), generator)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return BernoulliFill.apply(self, (float(p),), generator)


class _Random(Function):
    """a[...] ~ a distribution in place. Saves nothing; the gradient to a is zero."""

    array_forward, inplace = True, True
    _draw = None  # the numpy Generator method: "uniform" or "normal"

    @staticmethod
    def forward(ctx, a, p0, p1, generator=None):
        # drawn by the (seeded, host-side) generator, then placed on a's device
        draw = getattr(_gen(generator), ctx._forward_cls._draw)
        a[...] = to_device(draw(p0, p1, a.shape).astype(a.dtype), device_of(a))
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None, None, None


class Uniform(_Random):
    """a[...] ~ U(low, high) in place. Saves nothing; the gradient to a is zero."""

    node_name, _draw = "UniformBackward0", "uniform"


class Normal(_Random):
    """a[...] ~ N(mean, std**2) in place. Saves nothing; the gradient to a is zero."""

    node_name, _draw = "NormalBackward0", "normal"


class Bernoulli(Function):
    """out = 1 with probability p (per element, or one p for all), else 0. Saves nothing; the gradient is zero."""

    node_name, array_forward = "BernoulliBackward0", True

    @staticmethod
    def forward(ctx, a, p, generator):
        probs = a if p is None else p
        draw = _gen(generator).random(a.shape)  # the seeded host generator, then onto a's device
        u = to_device(draw, device_of(a))
        return (u < probs).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return Tensor._make(get_array_module(grad._array).zeros_like(grad._array)), None, None


def bernoulli(input: Tensor, p: float | None = None, *, generator=None) -> Tensor:
    """Draws 0/1 with probability ``input`` (or ``p``) per element, in input's dtype."""
    if input._array.dtype.kind not in "fV" and p is None:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                  f"'{scalar_type_name(input._array.dtype)}'")
    return Bernoulli.apply(input, p, generator)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices drawn from each row's categorical distribution (weights need not sum to 1)."""
    probs = backend.to_numpy(input._array).astype(np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, probs.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rng = _gen(generator)
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for r, p in enumerate(rows):
        total = p.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            out[r] = rng.choice(len(p), size=num_samples, replace=True, p=p / total)
        else:
            # sequential draws without replacement (as torch): Gumbel top-k over log-weights
            keys = np.where(p > 0, np.log(np.where(p > 0, p, 1)) + rng.gumbel(size=len(p)), -np.inf)
            if num_samples > int((p > 0).sum()):
                raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough "
                                   "non-negative category to sample)")
            out[r] = np.argsort(-keys, kind="stable")[:num_samples]
    out = out.reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._make(backend.to_device(out, input.device))
