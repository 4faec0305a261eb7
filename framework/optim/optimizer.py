"""Optimizer: param_groups, per-parameter state, zero_grad, state_dict (torch/optim/optimizer.py).

Subclasses hold the maths twice, as torch does: a short plain function per parameter (torch's single-tensor
path, the readable reference, ``foreach=False``) and the same formulas on a group's flat buffers
(``foreach=True``, the default: a fixed number of array calls per group, see ``_flat.py``).  ``step()`` runs
them under no_grad and labels the in-place updates as ``"<Name>.step()"`` so a version error can say the
optimizer changed a saved parameter.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Callable, Iterable

from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.version import bump_context
from ..creation import tensor
from ..nn.utils import zero_grads_
from ..tensor import Tensor
from ._flat import flat_buckets
from .optimizer_hooks import (OptimizerHooks, register_optimizer_step_post_hook,  # noqa: F401 (torch's home)
                              register_optimizer_step_pre_hook)


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer(OptimizerHooks):
    """Base class: holds param_groups (dicts of params + options) and state (dict per parameter); hooks as torch's
    (register_step_pre_hook, register_state_dict_post_hook, ...: see optimizer_hooks.py)."""

    # what the foreach path keeps per parameter, besides "step" when _has_step (subclasses override)
    _has_step = True
    # torch's list of capturable devices names XLA, except in Adam(W)'s foreach path
    _foreach_capturable_xla = True

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
        """Add a group of parameters with its own options (missing options come from defaults).

        The params may be tensors or (name, tensor) pairs, as ``named_parameters()`` gives: the names are kept
        in the group's "param_names", as torch keeps them.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not self.defaults.get("differentiable") and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in param_group["params"]}) != len(param_group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                with_names = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {with_names} to the optimizer")
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
        _refuse_unsupported_modes(group, params, xla=self._foreach_capturable_xla or not group.get("foreach"))
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
        for h in list(self._optimizer_state_dict_pre_hooks):
            h.fn(self)
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
        state_dict = {"state": state, "param_groups": groups}
        for h in list(self._optimizer_state_dict_post_hooks):
            result = h.fn(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = state_dict.copy()  # the pre-hooks may change this shallow copy, as torch's
        for h in list(self._optimizer_load_state_dict_pre_hooks):
            result = h.fn(self, state_dict)
            if result is not None:
                state_dict = result
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
        for h in list(self._optimizer_load_state_dict_post_hooks):
            h.fn(self)

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


def _check_lr(lr, foreach_refused: bool = False) -> None:
    """torch's checks of a Tensor lr (accepted when it has one element), then of its value."""
    if isinstance(lr, Tensor):
        if foreach_refused:  # Adam(W): torch's foreach kernels take the lr as a Python number only
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    _check(lr >= 0.0, f"Invalid learning rate: {lr}")


def _check_fused(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """torch's refusals of fused=True combined with the other implementation flags (checked in this order)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _refuse_unsupported_modes(group: dict, params: list, xla: bool) -> None:
    """The flags torch accepts at construction but refuses (or we cannot honour) when stepping on these params.

    fused=True is honoured: our flat path (foreach) already updates a whole group in a few array calls, and on a
    GPU in one fused kernel.  capturable=True is torch's promise that a step reads nothing back to the host, kept
    by framework.compile's recordings on a GPU; on the CPU torch refuses it, and so do we.  differentiable=True
    asks for a graph through the update itself, which our steps (plain array arithmetic) never record.
    """
    if group.get("capturable") and not group.get("fused") and any(p.device == "cpu" for p in params):
        devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if xla else [])
        raise AssertionError(f"If capturable=True, params and state_steps must be on supported devices: {devices}."
                             "\n\nframework: capturable=True keeps the step on the GPU; these parameters are on "
                             "the CPU. Leave capturable=False there (the default): the numbers are the same.")
    if group.get("differentiable"):
        if any(p.requires_grad for p in params):
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation."
                               "\n\nframework: differentiable=True runs the update with grad mode on, as torch "
                               "does, and a parameter that requires grad is a leaf that cannot be changed in place "
                               "then. Leave differentiable=False (the default) to train it.")
        raise NotImplementedError("differentiable=True is not supported: framework's optimizers update parameters "
                                  "with plain array arithmetic and record no graph through the step. Leave "
                                  "differentiable=False (the default).")


def _value(x):
    """A hyperparameter as a Python number, as torch's ``.item()``: a Tensor lr (and what was computed from it, in
    its dtype, e.g. ``lr / bias_correction1`` rounded to float32 as torch rounds it) gives its value."""
    return x.item() if isinstance(x, Tensor) else x


def _step_tensor(state: dict) -> Tensor:
    """torch keeps ``state['step']`` as a float32 scalar tensor; so do we (state dicts compare equal)."""
    if "step" not in state:
        state["step"] = tensor(0.0)
    state["step"]._array += 1  # the optimizer's own counter: no graph, no version to track
    return state["step"]

