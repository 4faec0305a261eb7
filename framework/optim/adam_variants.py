"""Adamax, NAdam and RAdam (torch.optim's): torch's single-tensor formulas, written with Tensor in-place ops.

They take ``foreach=`` as torch's do, and step every parameter with the single-tensor formulas either way: the
flat multi-tensor path (optim/_flat.py) is kept for the optimizers a training step spends its time in (SGD,
Adam(W), RMSprop, Adagrad, Adadelta).
"""
from __future__ import annotations

from ..creation import tensor, zeros_like
from ..ops import maximum
from ..tensor import Tensor
from .optimizer import Optimizer, _check, _check_lr, _refuse_unsupported_modes, _step_tensor, _value


class _SingleTensorOptimizer(Optimizer):
    """An optimizer whose every step runs torch's single-tensor formulas, one parameter at a time."""

    def _step_group(self, group: dict) -> None:
        params = [p for p in group["params"] if p._grad is not None]
        if params:
            _refuse_unsupported_modes(group, params, xla=True)
        for p in params:
            self._single_step(p, self.state[p], group)


def _check_betas(lr, eps: float, weight_decay: float, betas: tuple) -> None:
    _check_lr(lr)
    _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")


class Adamax(_SingleTensorOptimizer):
    """Adamax: Adam with the infinity norm of past gradients in place of their running RMS."""

    def __init__(self, params, lr: float | Tensor = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_betas(lr, eps, weight_decay, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _single_step(self, param: Tensor, state: dict, group: dict) -> None:
        """torch's _single_tensor_adamax."""
        grad = -param.grad if group["maximize"] else param.grad
        if "exp_avg" not in state:
            state["step"] = tensor(0.0)
            state["exp_avg"], state["exp_inf"] = zeros_like(param), zeros_like(param)
        beta1, beta2 = group["betas"]
        step = _step_tensor(state).item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))  # torch.maximum(.., out=exp_inf)
        clr = _value(group["lr"]) / (1 - beta1 ** step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(_SingleTensorOptimizer):
    """NAdam: Adam with Nesterov momentum (and the momentum-decay schedule of Dozat's paper)."""

    def __init__(self, params, lr: float | Tensor = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_betas(lr, eps, weight_decay, betas)
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _single_step(self, param: Tensor, state: dict, group: dict) -> None:
        """torch's _single_tensor_nadam (mu_product is a float32 tensor, multiplied in float32 as there)."""
        grad = -param.grad if group["maximize"] else param.grad
        if "exp_avg" not in state:
            state["step"] = tensor(0.0)
            state["mu_product"] = tensor(1.0)
            state["exp_avg"], state["exp_avg_sq"] = zeros_like(param), zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, weight_decay = _value(group["lr"]), group["weight_decay"]
        step = _step_tensor(state).item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        mu_product = state["mu_product"]
        mu_product *= mu
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(group["eps"])
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))


class RAdam(_SingleTensorOptimizer):
    """RAdam: Adam whose adaptive step is switched on (and rectified) once the variance estimate is reliable."""

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_betas(lr, eps, weight_decay, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _single_step(self, param: Tensor, state: dict, group: dict) -> None:
        """torch's _single_tensor_radam."""
        grad = -param.grad if group["maximize"] else param.grad
        if "exp_avg" not in state:
            state["step"] = tensor(0.0)
            state["exp_avg"], state["exp_avg_sq"] = zeros_like(param), zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, weight_decay = _value(group["lr"]), group["weight_decay"]
        step = _step_tensor(state).item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
