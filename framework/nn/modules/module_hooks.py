"""Module hooks as torch's (torch/nn/modules/module.py, torch/utils/hooks.py): forward (pre-)hooks with their
options, full backward (pre-)hooks, the legacy register_backward_hook, and the state_dict hooks.

Full backward hooks work as torch's BackwardHook: the module's tensor inputs and outputs pass through an
identity Function (BackwardHookFunction); a hook on the outputs' node catches grad_output (and runs the
backward pre-hooks), a hook on the inputs' node then calls the user's hooks with grad_input and grad_output."""
from __future__ import annotations

from typing import Callable
import warnings

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.node import RemovableHandle
from ... import backend
from ...tensor import Tensor


_MIXED_HOOKS = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                "Please use only one of them.")


class HookEntry:
    """One registered module hook and its options (a list entry, so that RemovableHandle removes just it)."""

    __slots__ = ("fn", "with_kwargs", "always_call", "public")

    def __init__(self, fn: Callable, with_kwargs: bool = False, always_call: bool = False,
                 public: bool = True) -> None:
        self.fn, self.with_kwargs, self.always_call = fn, with_kwargs, always_call
        self.public = public  # state_dict post-hooks: the public API's must return None


def add_hook(module, attr: str, entry, prepend: bool = False) -> RemovableHandle:
    """Put entry in module's hook list ``attr`` (made on first use: most modules have no hooks)."""
    hooks = module.__dict__.get(attr)
    if hooks is None:
        hooks = []
        object.__setattr__(module, attr, hooks)
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return RemovableHandle(hooks, entry)


class BackwardHookFunction(Function):
    """Identity on the module's tensors; its node (BackwardHookFunctionBackward) carries the module's hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """Links one call's grad_output (caught at its outputs) with its grad_input (caught at its inputs)."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module, self.user_hooks, self.user_pre_hooks = module, user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = self.n_inputs = -1
        self.output_tensors_index = self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size: int) -> tuple:
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                backend.hook_called(user_hook)
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, "
                                       f"but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn: Callable, args: tuple):
        """args with their tensors passed through BackwardHookFunction, and the tensors' positions (None when
        no tensor requires grad or grad mode is off: then nothing is wrapped)."""
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (any(args[i].requires_grad for i in idx) and is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*[args[i] for i in idx])
        fn(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(idx, new):
            out[i] = t
        return tuple(out), idx

    def setup_input_hook(self, args: tuple) -> tuple:
        res, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        def fn(grad_fn) -> None:
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for pre_hook in self.user_pre_hooks:
                    backend.hook_called(pre_hook)
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                           f"{len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = new
                local = self.grad_outputs
                if self.input_tensors_index is None:  # no input requires grad: the hooks fire here, as torch's
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.", stacklevel=5)
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        backend.hook_called(user_hook)
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_tensors_index)
            grad_fn.register_hook(hook)

        single = not isinstance(result, tuple)
        res, self.output_tensors_index = self._apply_on_tensors(fn, (result,) if single else result)
        self.n_outputs = 1 if single else len(result)
        return res[0] if single else res


def call_with_hooks(module, args: tuple, kwargs: dict):
    """Module.__call__ when the module has hooks: torch's _call_impl, in its order."""
    result = None
    called = set()
    try:
        backward_hooks = module.__dict__.get("_backward_hooks") or ()
        full = [e.fn for e in backward_hooks] if module.__dict__.get("_is_full_backward_hook") else []
        legacy = [e.fn for e in backward_hooks] if not full else []
        pre_backward = [e.fn for e in module.__dict__.get("_backward_pre_hooks") or ()]
        for entry in list(module.__dict__.get("_forward_pre_hooks") or ()):
            backend.hook_called(entry.fn)
            if entry.with_kwargs:
                res = entry.fn(module, args, kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        args, kwargs = res
                    else:
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {res}.")
            else:
                res = entry.fn(module, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        if full or pre_backward:
            bw_hook = BackwardHook(module, full, pre_backward)
            args = bw_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for entry in list(module.__dict__.get("_forward_hooks") or ()):
            if entry.always_call:
                called.add(entry)
            backend.hook_called(entry.fn)
            res = entry.fn(module, args, kwargs, result) if entry.with_kwargs else entry.fn(module, args, result)
            if res is not None:
                result = res
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(result)}", stacklevel=3)
            result = bw_hook.setup_output_hook(result)
        if legacy:
            _register_legacy_hooks(module, legacy, args, result)
        return result
    except Exception:
        for entry in list(module.__dict__.get("_forward_hooks") or ()):
            if entry.always_call and entry not in called:
                try:
                    res = entry.fn(module, args, kwargs, result) if entry.with_kwargs else \
                        entry.fn(module, args, result)
                    if res is not None:
                        result = res
                except Exception as e:  # noqa: BLE001 - torch silences it: forward's error is the one raised
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {e}", stacklevel=3)
        raise


def _register_legacy_hooks(module, hooks: list, args: tuple, result) -> None:
    """register_backward_hook's hooks: on the grad_fn of the first output tensor, as torch's (deprecated)."""
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        def wrapped(grad_input, grad_output, hook=hook):
            backend.hook_called(hook)
            return hook(module, grad_input, grad_output)
        grad_fn.register_hook(wrapped)
    _warn_legacy(args, result, grad_fn)


def _warn_legacy(inputs, result, grad_fn) -> None:
    """torch's _maybe_warn_non_full_backward_hook: when the legacy hook misses some gradients."""
    tail = ("is deprecated and will be removed in future versions. This hook will be missing some grad_output. "
            "Please use register_full_backward_hook to get the documented behavior.")
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a "
                          "tuple of Tensors " + tail, FutureWarning, stacklevel=4)
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor "
                          "or a tuple of Tensors " + tail.replace("grad_output", "grad_input"),
                          FutureWarning, stacklevel=4)
            return
    else:
        inputs = (inputs,)
    out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is "
                      "deprecated and will be removed in future versions. This hook will be missing some "
                      "grad_output.", FutureWarning, stacklevel=4)
    elif len(out_fns) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes "
                      + tail, FutureWarning, stacklevel=4)
    else:
        inputs_fns = {i.grad_fn for i in inputs if i.grad_fn is not None}
        if inputs_fns != {n[0] for n in grad_fn.next_functions}:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                          + tail.replace("grad_output", "grad_input"), FutureWarning, stacklevel=4)


class ModuleHooks:
    """The hook registration methods of nn.Module."""

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) before forward (may return new args); with_kwargs: hook(module, args, kwargs),
        which may return (new_args, new_kwargs)."""
        return add_hook(self, "_forward_pre_hooks", HookEntry(hook, with_kwargs), prepend)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) after forward (may return a new output); with_kwargs: hook(module, args,
        kwargs, output); always_call: also called when forward raises."""
        return add_hook(self, "_forward_hooks", HookEntry(hook, with_kwargs, always_call), prepend)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) when the gradients of the outputs are ready; may return new ones."""
        return add_hook(self, "_backward_pre_hooks", HookEntry(hook), prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) once the gradients of the inputs are computed; may return new
        grad_input."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError(_MIXED_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return add_hook(self, "_backward_hooks", HookEntry(hook), prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (torch too): hook(module, grad_input, grad_output) on the last op's node only."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError(_MIXED_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return add_hook(self, "_backward_hooks", HookEntry(hook))

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, prefix, keep_vars) before state_dict() saves this module."""
        return add_hook(self, "_state_dict_pre_hooks", HookEntry(hook))

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata) after; it must return None."""
        return add_hook(self, "_state_dict_hooks", HookEntry(hook))

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The private form: the hook may return a replacement state_dict."""
        return add_hook(self, "_state_dict_hooks", HookEntry(hook, public=False))

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)."""
        return add_hook(self, "_load_state_dict_pre_hooks", HookEntry(hook))

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, incompatible_keys) after load_state_dict; may edit the key lists in place."""
        return add_hook(self, "_load_state_dict_post_hooks", HookEntry(hook))


def has_call_hooks(module) -> bool:
    """Whether __call__ must take the hooked path."""
    d = module.__dict__
    return bool(d.get("_forward_pre_hooks") or d.get("_forward_hooks") or d.get("_backward_hooks")
                or d.get("_backward_pre_hooks"))
