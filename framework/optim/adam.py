"""Adam and AdamW (torch.optim.Adam / AdamW): the same step, weight decay coupled or decoupled."""
from __future__ import annotations

from ..backend import get_array_module
from ..creation import zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, _check, _step_tensor


def _lerp(avg, target, weight: float) -> None:
    """avg += weight * (target - avg) in place, with torch's two formulas (exact at both ends)."""
    if weight < 0.5:
        avg += weight * (target - avg)
    else:
        avg[...] = target - (target - avg) * (1 - weight)


def adam_step(param: Tensor, grad: Tensor, state: dict, *, lr: float, beta1: float, beta2: float, eps: float,
              weight_decay: float, amsgrad: bool, maximize: bool, decoupled: bool) -> None:
    """One Adam(W) update of ``param`` (torch's _single_tensor_adam).

    The moment estimates are the optimizer's own arrays, updated in place; the parameter itself changes
    only through Tensor in-place ops (``mul_``, ``add_``), so its version counter sees every step.
    """
    g = -grad._array if maximize else grad._array
    if "exp_avg" not in state:
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)
        if amsgrad:
            state["max_exp_avg_sq"] = zeros_like(param)
    step = _step_tensor(state).item()
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            g = g + param._array * weight_decay
    exp_avg, exp_avg_sq = state["exp_avg"]._array, state["exp_avg_sq"]._array
    _lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * g * g
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    step_size = lr / bias_correction1
    second = exp_avg_sq
    if amsgrad:
        max_sq = state["max_exp_avg_sq"]._array
        get_array_module(max_sq).maximum(max_sq, exp_avg_sq, out=max_sq)
        second = max_sq
    denom = get_array_module(second).sqrt(second) / bias_correction2_sqrt + eps
    param.add_(Tensor._make(exp_avg / denom), alpha=-step_size)  # torch: param.addcdiv_(exp_avg, denom, -step_size)


class Adam(Optimizer):
    """Adam: per-parameter steps from running averages of the gradient and its square."""

    _decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def _step_group(self, group: dict) -> None:
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            adam_step(p, p.grad, self.state[p], lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                      weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=group["maximize"],
                      decoupled=self._decoupled)


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before the Adam step."""

    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
