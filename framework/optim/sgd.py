"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD)."""
from __future__ import annotations

from ..tensor import Tensor
from .optimizer import Optimizer, _check, required


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
    param.add_(Tensor._make(g), alpha=-lr)


class SGD(Optimizer):
    """Stochastic gradient descent: p -= lr * (grad + weight_decay * p), optionally with momentum."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
        if lr is not required:
            _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _step_group(self, group: dict) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            sgd_step(p, p.grad, self.state[p], lr=group["lr"], momentum=group["momentum"],
                     dampening=group["dampening"], weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                     maximize=group["maximize"])
