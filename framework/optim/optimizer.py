"""Optimizer: param_groups, per-parameter state, zero_grad, state_dict (torch/optim/optimizer.py).

Subclasses implement ``_step_group(group)`` by calling a short plain function that holds the maths
(torch's single-tensor path).  ``step()`` runs it under no_grad and labels the in-place updates as
``"<Name>.step()"`` so a version error can say the optimizer changed a saved parameter.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.version import bump_context
from ..nn.utils import zero_grads_
from ..tensor import Tensor


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: holds param_groups (dicts of params + options) and state (dict per parameter)."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {type(params).__name__}")
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing options come from defaults)."""
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads_((p for g in self.param_groups for p in g["params"]), set_to_none)

    def step(self, closure: Callable | None = None):
        """Update every parameter that has a gradient, in place, under no_grad."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad(), bump_context(f"{type(self).__name__}.step()"):
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group: dict) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- state dict in torch's layout: params become integer indices --------------------------------
    def state_dict(self) -> dict:
        index: dict = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: {k: (v.clone() if isinstance(v, Tensor) else v) for k, v in s.items()}
                 for p, s in self.state.items() if id(p) in index and s}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, saved in zip(self.param_groups, groups):
            if len(g["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        by_index = {}
        for g, saved in zip(self.param_groups, groups):
            for p, i in zip(g["params"], saved["params"]):
                by_index[i] = p
            for k, v in saved.items():
                if k != "params":
                    g[k] = tuple(v) if isinstance(v, list) and k == "betas" else v
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            p = by_index[int(i)]
            self.state[p] = {k: (v.to(dtype=p.dtype if k != "step" else v.dtype, device=p.device).clone()
                                 if isinstance(v, Tensor) else v) for k, v in s.items()}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise ValueError(message)


def _step_tensor(state: dict) -> Tensor:
    """torch keeps ``state['step']`` as a float32 scalar tensor; so do we (state dicts compare equal)."""
    from ..creation import tensor

    if "step" not in state:
        state["step"] = tensor(0.0)
    state["step"]._array += 1  # the optimizer's own counter: no graph, no version to track
    return state["step"]

