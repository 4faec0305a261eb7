"""Adam and AdamW (torch.optim.Adam / AdamW): the same step, weight decay coupled or decoupled."""
from __future__ import annotations

from .. import backend
from ..backend import dynamic_scalar, get_array_module
from ..creation import zeros_like
from ..tensor import Tensor
from ._fused import fused_adam_
from .optimizer import Optimizer, _check, _check_fused, _check_lr, _step_tensor, _value


def _lerp(avg, target, weight: float) -> None:
    """avg += weight * (target - avg) in place, with torch's two formulas (exact at both ends)."""
    if weight < 0.5:
        avg += weight * (target - avg)
    else:
        avg[...] = target - (target - avg) * (1 - weight)


def adam_step(param: Tensor, grad: Tensor, state: dict, *, lr: float | Tensor, beta1: float, beta2: float, eps: float,
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
            param.mul_(_value(1 - lr * weight_decay))  # a Tensor lr: computed in its dtype, as torch's
        else:
            g = g + param._array * weight_decay
    exp_avg, exp_avg_sq = state["exp_avg"]._array, state["exp_avg_sq"]._array
    _lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * g * g
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    step_size = _value(lr / bias_correction1)
    second = exp_avg_sq
    if amsgrad:
        max_sq = state["max_exp_avg_sq"]._array
        get_array_module(max_sq).maximum(max_sq, exp_avg_sq, out=max_sq)
        second = max_sq
    denom = get_array_module(second).sqrt(second) / bias_correction2_sqrt + eps
    param.add_(Tensor._make(exp_avg / denom), alpha=-step_size)  # torch: param.addcdiv_(exp_avg, denom, -step_size)


def adam_foreach(bucket, *, lr: float | Tensor, beta1: float, beta2: float, eps: float, weight_decay: float,
                 amsgrad: bool, maximize: bool, decoupled: bool, group: dict | None = None) -> None:
    """adam_step's formulas, in the same order, on a FlatBucket's flat arrays (torch's _multi_tensor_adam).

    The per-step scalars (lr, the bias corrections) go through ``dynamic_scalar``: Python floats when eager, inputs
    refilled at every replay when the step is captured by framework.compile (``group`` is read then, for the lr a
    scheduler set).
    """
    bucket.count_step()
    p, st = bucket.param, bucket.state
    rate = (lambda: group["lr"]) if group is not None else (lambda: lr)
    # (a Tensor lr takes the path below: its scalars, e.g. AdamW's 1 - lr * weight_decay, are rounded in the lr's
    # dtype there, as torch rounds them; the fused kernel would compute them in the parameters' dtype)
    if bucket.on_gpu and _recorder_absent() and not isinstance(lr, Tensor):
        step = bucket.step_value()
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        step_size = _value(lr / (1 - beta1 ** step))
        if fused_adam_(bucket, step_size, bias_correction2_sqrt, lr=_value(lr), beta1=beta1, beta2=beta2, eps=eps,
                       weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize, decoupled=decoupled):
            return  # one fused GPU kernel did it all (and bumped the versions)
    xp, dt = bucket.xp, p.dtype
    # Every temporary goes into the bucket's scratch buffers (``out=``), not into fresh arrays: the dozen passes
    # then touch 5 buffers, not 11, so they stay in cache (the MLP step's Adam, replayed: 2.0 -> 1.5 ms), and eager
    # allocates nothing per step.  Each call computes what adam_step's expression does, in the same order.
    t = bucket.scratch(0)
    g = bucket.grad
    if maximize:
        g = xp.negative(g, out=bucket.scratch(1))
    if weight_decay != 0:
        if decoupled:
            p *= dynamic_scalar(lambda: _value(1 - rate() * weight_decay), dt)
            bucket.bump("MulBackward0")  # adam_step's param.mul_
        else:
            g = xp.add(g, xp.multiply(p, weight_decay, out=t), out=bucket.scratch(1))  # g + p * weight_decay
    exp_avg, exp_avg_sq = st["exp_avg"], st["exp_avg_sq"]
    _lerp_into(xp, exp_avg, g, 1 - beta1, t)
    exp_avg_sq *= beta2
    exp_avg_sq += xp.multiply(xp.multiply(g, 1 - beta2, out=t), g, out=t)  # (1 - beta2) * g * g
    second = exp_avg_sq
    if amsgrad:
        xp.maximum(st["max_exp_avg_sq"], exp_avg_sq, out=st["max_exp_avg_sq"])
        second = st["max_exp_avg_sq"]
    denom = xp.sqrt(second, out=t)
    denom /= dynamic_scalar(lambda: (1 - beta2 ** bucket.step_value()) ** 0.5, dt)
    denom += eps
    update = xp.divide(exp_avg, denom, out=denom)
    update *= dynamic_scalar(lambda: -_value(rate() / (1 - beta1 ** bucket.step_value())), dt)
    p += update
    bucket.bump("AddBackward0")  # adam_step's param.add_


def _lerp_into(xp, avg, target, weight: float, tmp) -> None:
    """_lerp with its temporary in ``tmp`` (the same two formulas, the same roundings)."""
    diff = xp.subtract(target, avg, out=tmp)
    if weight < 0.5:
        diff *= weight
        avg += diff
    else:
        diff *= 1 - weight
        xp.subtract(target, diff, out=avg)


def _recorder_absent() -> bool:
    """True unless framework.compile is capturing (the fused GPU kernel reads the step on the host)."""
    return backend._recorder is None


class Adam(Optimizer):
    """Adam: per-parameter steps from running averages of the gradient and its square."""

    _foreach_capturable_xla = False

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_lr(lr, foreach_refused=bool(foreach) and not capturable)
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        # torch's keys, in torch's order: state dicts and reprs read the same
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_fused(fused, foreach, differentiable)

    def _state_names(self, group: dict) -> tuple:
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        adam_step(p, p.grad, state, lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                  weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=group["maximize"],
                  decoupled=group["decoupled_weight_decay"])

    def _foreach_step(self, bucket, group: dict) -> None:
        beta1, beta2 = group["betas"]
        adam_foreach(bucket, lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                     weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=group["maximize"],
                     decoupled=group["decoupled_weight_decay"], group=group)


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before the Adam step."""

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
