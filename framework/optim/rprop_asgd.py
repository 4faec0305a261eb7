"""Rprop and ASGD (torch.optim's): torch's single-tensor formulas, written with Tensor in-place ops (every step
takes that path, whatever ``foreach`` says; see optim/adam_variants.py)."""
from __future__ import annotations

from ..creation import full_like, tensor, zeros_like
from ..tensor import Tensor
from .adam_variants import _SingleTensorOptimizer
from .optimizer import _check, _check_lr, _step_tensor, _value


class Rprop(_SingleTensorOptimizer):
    """Rprop: each weight's step size grows while its gradient keeps its sign and shrinks when the sign flips; only
    the gradient's sign is used."""

    def __init__(self, params, lr: float | Tensor = 1e-2, etas: tuple = (0.5, 1.2), step_sizes: tuple = (1e-6, 50),
                 *, capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _single_step(self, param: Tensor, state: dict, group: dict) -> None:
        """torch's _single_tensor_rprop."""
        grad = -param.grad if group["maximize"] else param.grad
        if "prev" not in state:
            state["step"] = tensor(0.0)
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, _value(group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        _step_tensor(state)
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0  # a sign flip: no step now, and no flip seen next time
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


class ASGD(_SingleTensorOptimizer):
    """Averaged SGD: SGD with a decaying step, plus a running average ``ax`` of the iterates (state["ax"])."""

    def __init__(self, params, lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _single_step(self, param: Tensor, state: dict, group: dict) -> None:
        """torch's _single_tensor_asgd (eta and mu are float32 tensors: their values are rounded there, as torch's)."""
        grad = -param.grad if group["maximize"] else param.grad
        lr, lambd, alpha, t0 = _value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        if "ax" not in state:
            state["step"] = tensor(0.0)
            state["eta"] = tensor(lr)
            state["mu"] = tensor(1.0)
            state["ax"] = zeros_like(param)
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        step = _step_tensor(state).item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)  # decay term
        param.add_(grad, alpha=-eta_value)  # update parameter
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(tensor(1 / max(1, step - t0)))
