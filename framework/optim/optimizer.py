"""Optimizer: param_groups, per-parameter state, zero_grad, state_dict (torch/optim/optimizer.py).

Subclasses hold the maths twice, as torch does: a short plain function per parameter (torch's single-tensor
path, the readable reference, ``foreach=False``) and the same formulas on a group's flat buffers
(``foreach=True``, the default: a fixed number of array calls per group, see ``_flat.py``).  ``step()`` runs
them under no_grad and labels the in-place updates as ``"<Name>.step()"`` so a version error can say the
optimizer changed a saved parameter.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.version import bump_context
from ..creation import tensor
from ..nn.utils import zero_grads_
from ..tensor import Tensor
from ._flat import flat_buckets


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: holds param_groups (dicts of params + options) and state (dict per parameter)."""

    # what the foreach path keeps per parameter, besides "step" when _has_step (subclasses override)
    _has_step = True

    def __init__(self, params: Iterable, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = defaultdict(dict)
        self.param_groups: list[dict] = []
        self._flat: dict = {}  # id(param group) -> (params flattened, [(FlatBucket | None, params)])
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {params.type()}")
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

    def _step_group(self, group: dict) -> None:
        """Step the group's parameters that have a grad: flat (foreach, the default) or one by one."""
        params = [p for p in group["params"] if p._grad is not None]
        if not params:
            return
        if group.get("foreach") is False:
            for p in params:
                self._single_step(p, self.state[p], group)
            return
        for bucket, ps in self._buckets(group, params):
            if bucket is None:  # state or storage that cannot be flattened this step: the reference path
                for p in ps:
                    self._single_step(p, self.state[p], group)
            else:
                bucket.gather_grads()
                self._foreach_step(bucket, group)
                bucket.first = False

    def _buckets(self, group: dict, params: list) -> list:
        """The group's flat buckets, rebuilt when the params with a grad changed or a view was rebound."""
        names = self._state_names(group)
        cached = self._flat.get(id(group))
        if cached is not None and len(cached[0]) == len(params) and all(a is b for a, b in zip(cached[0], params)) \
                and all(b is not None and b.matches(self.state, names) for b, _ in cached[1]):
            return cached[1]
        owned = {id(v) for _, buckets in self._flat.values() for b, _ in buckets if b is not None for v in b.views}
        buckets = flat_buckets(params, self.state, names, self._has_step, owned)
        self._flat[id(group)] = (params, buckets)
        return buckets

    def _state_names(self, group: dict) -> tuple:  # pragma: no cover - abstract
        """Names of the per-parameter state arrays this group's options need (besides "step")."""
        raise NotImplementedError

    def _single_step(self, p: Tensor, state: dict, group: dict) -> None:  # pragma: no cover - abstract
        """Update one parameter with torch's single-tensor formulas."""
        raise NotImplementedError

    def _foreach_step(self, bucket, group: dict) -> None:  # pragma: no cover - abstract
        """Update a whole FlatBucket with the same formulas on its flat arrays."""
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
    if "step" not in state:
        state["step"] = tensor(0.0)
    state["step"]._array += 1  # the optimizer's own counter: no graph, no version to track
    return state["step"]

