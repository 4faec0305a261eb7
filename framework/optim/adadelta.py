"""Adadelta (torch.optim.Adadelta)."""
from __future__ import annotations

from ..backend import get_array_module
from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, _check, _check_lr, _step_tensor, _value


def adadelta_step(param: Tensor, grad: Tensor, state: dict, *, lr: float, rho: float, eps: float,
                  weight_decay: float, maximize: bool) -> None:
    """One Adadelta update of ``param`` (torch's _single_tensor_adadelta); the parameter changes through ``add_``."""
    g = -grad._array if maximize else grad._array
    if "square_avg" not in state:
        state["step"] = tensor(0.0)  # torch's lazy state, in its order: step, square_avg, acc_delta
        state["square_avg"] = zeros_like(param)
        state["acc_delta"] = zeros_like(param)
    _step_tensor(state)
    if weight_decay != 0:
        g = g + param._array * weight_decay
    xp = get_array_module(g)
    square_avg, acc_delta = state["square_avg"]._array, state["acc_delta"]._array
    square_avg *= rho
    square_avg += (1 - rho) * g * g  # addcmul_(g, g, value=1 - rho)
    std = xp.sqrt(square_avg + eps)
    delta = xp.sqrt(acc_delta + eps)
    delta /= std
    delta *= g
    acc_delta *= rho
    acc_delta += (1 - rho) * delta * delta
    param.add_(Tensor._make(delta), alpha=-_value(lr))


def adadelta_foreach(bucket, *, lr: float, rho: float, eps: float, weight_decay: float, maximize: bool) -> None:
    """adadelta_step's formulas, in the same order, on a FlatBucket's flat arrays (torch's _multi_tensor_adadelta)."""
    xp, p, st = bucket.xp, bucket.param, bucket.state
    bucket.count_step()  # the value is not needed: no host read, so framework.compile can replay the step
    t = bucket.scratch(0)  # temporaries in the bucket's scratch buffers, as in adam_foreach (same roundings)
    g = xp.negative(bucket.grad, out=bucket.scratch(1)) if maximize else bucket.grad
    if weight_decay != 0:
        g = xp.add(g, xp.multiply(p, weight_decay, out=t), out=bucket.scratch(1))  # g + p * weight_decay
    square_avg, acc_delta = st["square_avg"], st["acc_delta"]
    square_avg *= rho
    square_avg += xp.multiply(xp.multiply(g, 1 - rho, out=t), g, out=t)  # (1 - rho) * g * g
    std = xp.sqrt(xp.add(square_avg, eps, out=bucket.scratch(2)), out=bucket.scratch(2))
    delta = xp.sqrt(xp.add(acc_delta, eps, out=t), out=t)
    delta /= std
    delta *= g
    acc_delta *= rho
    acc_delta += xp.multiply(xp.multiply(delta, 1 - rho, out=bucket.scratch(2)), delta, out=bucket.scratch(2))
    delta *= -_value(lr)
    p += delta
    bucket.bump("AddBackward0")  # adadelta_step's param.add_


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past updates to running RMS of gradients."""

    def __init__(self, params, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        # torch's keys, in torch's order: state dicts and reprs read the same
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _state_names(self, group: dict) -> tuple:
        return ("square_avg", "acc_delta")

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:
        adadelta_step(p, p.grad, state, lr=group["lr"], rho=group["rho"], eps=group["eps"],
                      weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _foreach_step(self, bucket, group: dict) -> None:
        adadelta_foreach(bucket, lr=group["lr"], rho=group["rho"], eps=group["eps"],
                         weight_decay=group["weight_decay"], maximize=group["maximize"])
