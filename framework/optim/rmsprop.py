"""RMSprop and Adagrad (torch.optim.RMSprop / Adagrad)."""
from __future__ import annotations

from ..backend import get_array_module
from ..creation import full_like, tensor, zeros_like
from ..tensor import Tensor
from .adam import _lerp
from .optimizer import Optimizer, _check, _check_fused, _check_lr, _step_tensor, _value


def rmsprop_step(param: Tensor, grad: Tensor, state: dict, *, lr: float, alpha: float, eps: float,
                 weight_decay: float, momentum: float, centered: bool, maximize: bool) -> None:
    """One RMSprop update of ``param`` (torch's _single_tensor_rmsprop); the parameter changes through ``add_``."""
    g = -grad._array if maximize else grad._array
    if "square_avg" not in state:
        state["square_avg"] = zeros_like(param)
        if momentum > 0:
            state["momentum_buffer"] = zeros_like(param)
        if centered:
            state["grad_avg"] = zeros_like(param)
    _step_tensor(state)
    if weight_decay != 0:
        g = g + param._array * weight_decay
    xp = get_array_module(g)
    square_avg = state["square_avg"]._array
    square_avg *= alpha
    square_avg += (1 - alpha) * g * g
    if centered:
        grad_avg = state["grad_avg"]._array
        _lerp(grad_avg, g, 1 - alpha)
        avg = xp.sqrt(square_avg - grad_avg * grad_avg)
    else:
        avg = xp.sqrt(square_avg)
    avg += eps
    if momentum > 0:
        buf = state["momentum_buffer"]._array
        buf *= momentum
        buf += g / avg
        param.add_(Tensor._make(buf.copy()), alpha=-_value(lr))
    else:
        param.add_(Tensor._make(g / avg), alpha=-_value(lr))


def rmsprop_foreach(bucket, *, lr: float, alpha: float, eps: float, weight_decay: float, momentum: float,
                    centered: bool, maximize: bool) -> None:
    """rmsprop_step's formulas, in the same order, on a FlatBucket's flat arrays (torch's _multi_tensor_rmsprop)."""
    xp, p, st = bucket.xp, bucket.param, bucket.state
    bucket.count_step()  # the value is not needed: no host read, so framework.compile can replay the step
    t = bucket.scratch(0)  # temporaries in the bucket's scratch buffers, as in adam_foreach (same roundings)
    g = xp.negative(bucket.grad, out=bucket.scratch(1)) if maximize else bucket.grad
    if weight_decay != 0:
        g = xp.add(g, xp.multiply(p, weight_decay, out=t), out=bucket.scratch(1))  # g + p * weight_decay
    square_avg = st["square_avg"]
    square_avg *= alpha
    square_avg += xp.multiply(xp.multiply(g, 1 - alpha, out=t), g, out=t)  # (1 - alpha) * g * g
    if centered:
        grad_avg = st["grad_avg"]
        _lerp(grad_avg, g, 1 - alpha)
        avg = xp.sqrt(xp.subtract(square_avg, xp.multiply(grad_avg, grad_avg, out=t), out=t), out=t)
    else:
        avg = xp.sqrt(square_avg, out=t)
    avg += eps
    update = xp.divide(g, avg, out=avg)
    if momentum > 0:
        buf = st["momentum_buffer"]
        buf *= momentum
        buf += update
        p += xp.multiply(buf, -_value(lr), out=t)
    else:
        update *= -_value(lr)
        p += update
    bucket.bump("AddBackward0")  # rmsprop_step's param.add_


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running RMS of recent gradients."""

    def __init__(self, params, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(alpha >= 0.0, f"Invalid alpha value: {alpha}")
        # torch's keys, in torch's order: state dicts and reprs read the same
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _state_names(self, group: dict) -> tuple:
        return ("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ()) \
            + (("grad_avg",) if group["centered"] else ())

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:
        rmsprop_step(p, p.grad, state, lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                     weight_decay=group["weight_decay"], momentum=group["momentum"], centered=group["centered"],
                     maximize=group["maximize"])

    def _foreach_step(self, bucket, group: dict) -> None:
        rmsprop_foreach(bucket, lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                        weight_decay=group["weight_decay"], momentum=group["momentum"], centered=group["centered"],
                        maximize=group["maximize"])


def adagrad_step(param: Tensor, grad: Tensor, state: dict, *, lr: float, lr_decay: float, weight_decay: float,
                 eps: float, maximize: bool) -> None:
    """One Adagrad update of ``param`` (torch's _single_tensor_adagrad); the parameter changes through ``add_``."""
    g = -grad._array if maximize else grad._array
    step = _step_tensor(state).item()
    if weight_decay != 0:
        g = g + param._array * weight_decay
    clr = _value(lr / (1 + (step - 1) * lr_decay))  # a Tensor lr: computed in its dtype, as torch's
    total = state["sum"]._array
    total += g * g
    std = get_array_module(total).sqrt(total) + eps
    param.add_(Tensor._make(g / std), alpha=-clr)


def adagrad_foreach(bucket, *, lr: float, lr_decay: float, weight_decay: float, eps: float, maximize: bool) -> None:
    """adagrad_step's formulas, in the same order, on a FlatBucket's flat arrays (torch's _multi_tensor_adagrad)."""
    xp, p = bucket.xp, bucket.param
    step = bucket.next_step()
    t = bucket.scratch(0)  # temporaries in the bucket's scratch buffers, as in adam_foreach (same roundings)
    g = xp.negative(bucket.grad, out=bucket.scratch(1)) if maximize else bucket.grad
    if weight_decay != 0:
        g = xp.add(g, xp.multiply(p, weight_decay, out=t), out=bucket.scratch(1))  # g + p * weight_decay
    clr = _value(lr / (1 + (step - 1) * lr_decay))  # a Tensor lr: computed in its dtype, as torch's
    total = bucket.state["sum"]
    total += xp.multiply(g, g, out=t)
    std = xp.sqrt(total, out=t)
    std += eps
    update = xp.divide(g, std, out=std)
    update *= -clr
    p += update
    bucket.bump("AddBackward0")  # adagrad_step's param.add_


class Adagrad(Optimizer):
    """Adagrad: per-coordinate steps shrinking with the sum of squared gradients."""

    def __init__(self, params, lr: float | Tensor = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        _check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(initial_accumulator_value >= 0.0, f"Invalid initial_accumulator_value value: "
                                                 f"{initial_accumulator_value}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        # torch's keys, in torch's order: state dicts and reprs read the same
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)
        for group in self.param_groups:  # torch creates Adagrad's state eagerly
            self._init_state(group, group["params"])

    def _init_state(self, group: dict, params) -> None:
        for p in params:
            st = self.state[p]
            if not st:
                st["step"] = tensor(0.0)
                st["sum"] = full_like(p, group["initial_accumulator_value"])

    def _step_group(self, group: dict) -> None:
        # a group added later gets its state at its first step, as torch's _init_group does
        self._init_state(group, [p for p in group["params"] if p._grad is not None])
        super()._step_group(group)

    def _state_names(self, group: dict) -> tuple:
        return ("sum",)

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:
        adagrad_step(p, p.grad, state, lr=group["lr"], lr_decay=group["lr_decay"],
                     weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"])

    def _foreach_step(self, bucket, group: dict) -> None:
        adagrad_foreach(bucket, lr=group["lr"], lr_decay=group["lr_decay"], weight_decay=group["weight_decay"],
                        eps=group["eps"], maximize=group["maximize"])
