"""torch.func.functional_call and stack_module_state: a module as a function of its parameters and buffers."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..nn.modules.module import Module
from ..nn.utils.stateless import _functional_call
from ..ops import stack
from ..tensor import Tensor


def functional_call(module: Module, parameter_and_buffer_dicts: dict | Sequence[dict], args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the given tensors (one dict, or several with distinct keys) in place of its
    parameters and buffers; the module's own tensors are back in place afterwards, even if the call raises."""
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models: Sequence[Module]) -> tuple[dict, dict]:
    """(params, buffers): each name's tensors of the models stacked on a new first dimension (for vmap over an
    ensemble); stacked parameters are fresh leaves that require grad when the models' do."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: tuple, name: str) -> Tensor:
    if not (all(t.requires_grad for t in tensors) or not any(t.requires_grad for t in tensors)):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if tensors[0].requires_grad else result
