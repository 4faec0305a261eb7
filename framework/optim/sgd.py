"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD)."""
from __future__ import annotations

from ..backend import dynamic_scalar
from ..tensor import Tensor
from .optimizer import Optimizer, _check, _check_fused, _check_lr, _value, required


def sgd_step(param: Tensor, grad: Tensor, state: dict, *, lr: float, momentum: float, dampening: float,
             weight_decay: float, nesterov: bool, maximize: bool) -> None:
    """One SGD update of ``param`` (torch's _single_tensor_sgd); the parameter changes through ``add_``."""
    g = -grad._array if maximize else grad._array
    if weight_decay != 0:
        g = g + param._array * weight_decay
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = Tensor._make(g.copy())
        else:
            buf._array *= momentum
            buf._array += g * (1 - dampening)
        g = g + buf._array * momentum if nesterov else buf._array
    param.add_(Tensor._make(g), alpha=-_value(lr))


def sgd_foreach(bucket, *, lr: float, momentum: float, dampening: float, weight_decay: float, nesterov: bool,
                maximize: bool, group: dict | None = None) -> None:
    """sgd_step's formulas, in the same order, on a FlatBucket's flat arrays (torch's _multi_tensor_sgd)."""
    xp, p = bucket.xp, bucket.param
    t = bucket.scratch(0)  # temporaries in the bucket's scratch buffers, as in adam_foreach (same roundings)
    g = xp.negative(bucket.grad, out=bucket.scratch(1)) if maximize else bucket.grad
    if weight_decay != 0:
        g = xp.add(g, xp.multiply(p, weight_decay, out=t), out=bucket.scratch(1))  # g + p * weight_decay
    if momentum != 0:
        buf = bucket.state["momentum_buffer"]
        if bucket.first:  # the buffer was just created (zeros): it starts as a copy of the gradient
            buf[...] = g
        else:
            buf *= momentum
            buf += xp.multiply(g, 1 - dampening, out=t)
        g = xp.add(g, xp.multiply(buf, momentum, out=t), out=t) if nesterov else buf
    lr_ = dynamic_scalar((lambda: -_value(group["lr"])) if group is not None else (lambda: -_value(lr)), p.dtype)
    p += xp.multiply(g, lr_, out=t)
    bucket.bump("AddBackward0")  # sgd_step's param.add_


class SGD(Optimizer):
    """Stochastic gradient descent: p -= lr * (grad + weight_decay * p), optionally with momentum."""

    def __init__(self, params, lr: float | Tensor = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        if lr is not required:
            _check_lr(lr)
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        # torch's keys, in torch's order: state dicts and reprs read the same
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)

    _has_step = False  # torch's SGD keeps no step count

    def _state_names(self, group: dict) -> tuple:
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:
        sgd_step(p, p.grad, state, lr=group["lr"], momentum=group["momentum"], dampening=group["dampening"],
                 weight_decay=group["weight_decay"], nesterov=group["nesterov"], maximize=group["maximize"])

    def _foreach_step(self, bucket, group: dict) -> None:
        sgd_foreach(bucket, lr=group["lr"], momentum=group["momentum"], dampening=group["dampening"],
                    weight_decay=group["weight_decay"], nesterov=group["nesterov"], maximize=group["maximize"],
                    group=group)
