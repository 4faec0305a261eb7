"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, clamping, log1p."""
from __future__ import annotations

from numbers import Number

import ml_dtypes
import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad
from ..backend import get_array_module
from ..creation import tensor
from ..tensor import Size, Tensor
from .. import dtypes, ops


class _Log1p(Function):
    """out = log(1 + a), accurate for small a. Saves a."""

    node_name, array_forward = "Log1PBackward0", True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return get_array_module(a).log1p(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a + 1)


def log1p(a: Tensor) -> Tensor:
    return _Log1p.apply(a)


class lazy_property:
    """A value computed on first read and then stored on the instance under the same name (torch's
    lazy_property: a non-data descriptor, so the stored value wins afterwards). Computed with grad enabled."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Numbers become tensors of the tensors' dtype (else the default float); all are broadcast to one shape."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    for v in values:
        if not isinstance(v, (Tensor, Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                             "implementing __torch_function__.")
    dtype = tensors[0].dtype if tensors else dtypes.default_float
    device = tensors[0].device if tensors else None  # None: the default device, as torch.tensor(number)
    values = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype, device=device) for v in values]
    shape = np.broadcast_shapes(*(tuple(v.shape) for v in values))
    return tuple(v if tuple(v.shape) == shape else v.expand(*shape) for v in values)


def clamp_probs(probs: Tensor) -> Tensor:
    """Keep probabilities inside [eps, 1 - eps] (eps of their dtype), as torch does before taking logs."""
    eps = float(ml_dtypes.finfo(probs.dtype.np).eps)
    return ops.clamp(probs, min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    p = clamp_probs(probs)
    return p.log() - log1p(-p) if is_binary else p.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    return ops.sigmoid(logits) if is_binary else ops.softmax(logits, -1)


def expand_probs_or_logits(dist, batch_shape):
    """A copy of ``dist`` (Bernoulli, Categorical) with its given parameter (``_probs`` or ``_logits``) expanded to
    ``batch_shape`` plus its event dims: torch's expand, no copy of the data."""
    new = type(dist).__new__(type(dist))
    new.__dict__.update(dist.__dict__)
    batch_shape = Size(batch_shape)
    event = tuple(dist.param_shape[len(dist._batch_shape):])
    for name in ("_probs", "_logits"):
        if dist.__dict__[name] is not None:
            new.__dict__[name] = dist.__dict__[name].expand(*batch_shape, *event)
    new._batch_shape = batch_shape
    return new
