"""Every autograd error message, with PyTorch's first sentence verbatim and our explanation after it.

Engine and op code raise ``diagnostics.some_error(...)`` and never format text themselves.  Each error
is an ``AutogradError`` (a RuntimeError, as in torch) carrying ``.explanation``; ``explain(exc)``
returns it for notebooks.
"""
from __future__ import annotations

import re
import sys

from .autograd.callsite import _FRAMEWORK_DIR, format_site, user_site
from .autograd.anomaly import is_anomaly_enabled
from .autograd.view_meta import rebase_error

_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
         "with framework.autograd.set_detect_anomaly(True, check_nan=False).")
# torch's hint when anomaly mode is already on (its forward traceback was printed as a warning above)
_HINT_ANOMALY = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                 "The variable in question was changed in there or anywhere later. Good luck!")


def AutogradError(torch_message: str, explanation: str = "", cls: type = RuntimeError) -> Exception:
    """torch's exception class and message, followed by our explanation of what happened and why.

    The class is exactly torch's (a plain RuntimeError), so ``except RuntimeError`` and
    ``type(e) is RuntimeError`` behave as with torch; ``e.explanation`` holds our part.
    """
    exc = cls(torch_message + ("\n\n" + explanation if explanation else ""))
    exc.torch_message = torch_message
    exc.explanation = explanation
    return exc


def _fixes(*lines: str) -> str:
    return "How to fix it:\n" + "\n".join(f"  - {line}" for line in lines)


def op_name(node_name: str | None) -> str:
    """'AddBackward0' -> 'add_', 'LeakyReluBackward0' -> 'leaky_relu_': the in-place method a user called."""
    if not node_name:
        return "an in-place op"
    base = re.sub(r"Backwards?\d*$", "", node_name)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower() + "_"


def _describe(shape, dtype) -> str:
    return f"shape {tuple(shape)}, {dtype!r}"


# ---- in-place on leaves ---------------------------------------------------------------------------

def check_inplace(t, any_requires_grad: bool = True) -> None:
    """Refuse, under grad mode, an in-place op on a leaf that requires grad or on a view of one, or on a view
    whose creation forbids it (made under no_grad, by unbind/split/chunk, by a custom Function)."""
    if t._creation_meta and (any_requires_grad or t.requires_grad):
        raise rebase_error(t, indirect=False)
    if not t.requires_grad:
        return
    base = t._base  # torch: a view that requires grad of a leaf (even one set to requires_grad=False since)
    if base is not None and base.grad_fn is None:
        raise AutogradError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            f"What happened: an in-place op at {format_site(user_site())}\n"
            f"  would write into a view ({_describe(t.shape, t.dtype)}) of a leaf tensor that requires grad "
            f"({_describe(base.shape, base.dtype)}{_param_suffix(base)}).\n"
            "  Autograd keeps leaf tensors exactly as you created them: their .grad is a gradient with\n"
            "  respect to *those* values, so changing them in place while grad mode is on is refused.\n"
            + _fixes("to initialise or update the values, do it under `with framework.no_grad():` "
                     "(that is how optimizers and nn.init do it);",
                     "to compute something new, use an out-of-place op on a copy: `y = x.clone(); y[0] = 100`."))
    if t.grad_fn is None:
        raise AutogradError(
            "a leaf Variable that requires grad is being used in an in-place operation.",
            f"What happened: an in-place op at {format_site(user_site())}\n"
            f"  would modify a leaf tensor that requires grad ({_describe(t.shape, t.dtype)}{_param_suffix(t)}).\n"
            "  Leaves are the values gradients are taken with respect to; autograd does not let you change\n"
            "  them in place while it is recording.\n"
            + _fixes("to update a parameter (an SGD step, an initialisation), wrap it in "
                     "`with framework.no_grad():`, or use an optimizer;",
                     "to compute a new tensor, write it out of place: `x = x + 1` instead of `x += 1`."))


def overlapping_write() -> Exception:
    """In-place write into an expanded tensor, whose elements share memory."""
    return AutogradError(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory "
        "location. Please clone() the tensor before performing the operation.",
        "What happened: the tensor is an expand()ed (broadcast) view: many of its elements are one and the\n"
        "  same memory, so an in-place write would be ambiguous.\n"
        + _fixes("write into `x.clone()` (or `x.contiguous()`), which has its own memory for every element."))


def partial_overlap() -> Exception:
    """In-place write whose input shares part (not all) of the written-to memory."""
    return AutogradError(
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
        "memory location. Please clone() the tensor before performing the operation.",
        "What happened: an input of this in-place op is a different view of the same memory (e.g. `b = a.t();\n"
        "  b.add_(a)`): writing the result element by element would change inputs still to be read.\n"
        + _fixes("pass a copy as the input: `b.add_(a.clone())`, or compute out of place: `b = b + a`."))


# ---- saved tensors --------------------------------------------------------------------------------

def inference_tensor_saved(t) -> Exception:
    """An op recorded for backward wants to save a tensor made under inference_mode()."""
    return AutogradError(
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
        "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
        "it in autograd, or use `framework.no_grad()` instead of `framework.inference_mode()`.",
        f"What happened: the op at {format_site(user_site())} needs, for its backward, a tensor "
        f"({_describe(t.shape, t.dtype)}) made under inference_mode(), which keeps no version counter: autograd "
        "could not tell whether it was changed before backward.")


def inference_tensor_inplace(t) -> Exception:
    """An in-place op on a tensor made under inference_mode(), outside it."""
    return AutogradError(
        "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
        "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.",
        f"What happened: an in-place op at {format_site(user_site())} would write into a tensor "
        f"({_describe(t.shape, t.dtype)}) made under inference_mode(); such tensors keep no version counter, "
        "so outside inference_mode() they are read-only.")


def saved_tensor_freed(node) -> AutogradError:
    """Backward needs a saved value that an earlier backward freed."""
    where = format_site(node._site) if node is not None and node._site else "an earlier forward op"
    name = node.name() if node is not None else "a node"
    return AutogradError(
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed). Saved intermediate values of the graph are freed when you call "
        ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
        "a second time or if you need to access saved tensors after calling backward.",
        f"What happened: {name}, recorded at {where},\n"
        "  needs values it saved in the forward pass, but an earlier .backward() through this part of\n"
        "  the graph already freed them (backward frees them unless retain_graph=True).\n"
        + _fixes("if two losses share part of a graph (a GAN's D loss and G loss share G's output), "
                 "pass retain_graph=True to the first backward;",
                 "often better: recompute the shared part for the second loss, or cut it with .detach() "
                 "when the second loss must not reach those parameters;",
                 "if you call backward once per step, build a fresh graph each step (redo the forward pass)."))


def saved_tensor_detached(saved, node) -> AutogradError:
    """A non-leaf tensor a node saved as an input was cut from its history with detach_() since."""
    return AutogradError(
        "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
        "supported, please use out-of-place `.detach()` instead",
        f"What happened: {node.name()}, recorded at {format_site(node._site)}, saved a tensor of\n"
        f"  {_describe(saved.shape, saved.dtype)} that had a grad_fn ({saved.grad_fn.name()}); a later .detach_() removed\n"
        "  it, so backward can no longer tell where that tensor's gradient should go.\n"
        + _fixes("use `x = x.detach()` (a new tensor) instead of `x.detach_()` while a graph still needs x."))


def _saved_type_name(saved) -> str:
    """torch's type name in the in-place error: the legacy tensor type (framework.LongTensor), except for bool,
    which torch's Python layer does not rename, so it keeps its C++ name (CPUBoolType). Like the other names,
    torch's CPU one on every device."""
    legacy = saved.dtype.legacy
    return "CPUBoolType" if legacy == "BoolTensor" else f"framework.{legacy}"


def inplace_modified(saved, node) -> AutogradError:
    """A saved tensor's version changed between forward and backward."""
    dims = ", ".join(str(d) for d in saved.shape)
    type_name = _saved_type_name(saved)
    # like torch, name the tensor's *current* history (CopySlices after `b[0] = ...`)
    current_fn = node if saved.tensor is None else saved.tensor.grad_fn
    if saved.tensor is None and saved.grad_fn is not None:
        current_fn = None  # a saved output without history (max's indices): torch names no node
    if current_fn is not None:
        nr = saved.output_nr if saved.tensor is None else saved.tensor.output_nr
        # torch names an op's node without its suffix here ("output 0 of AsStrided"), CopySlices in full; the seed
        # documents' torch wrote CopySlices without the namespace torch 2.13's name() has: the seeds' text is kept
        # ("MulBackward0" is "Mul", but "EluBackward1" is "Elu1": only a 0 goes with the suffix)
        short = re.sub(r"Backward(?:0|([1-9][0-9]*))$", r"\1", type(current_fn).__name__)
        which = f", which is output {nr} of {short},"
    else:
        which = ""
    current = saved.counter.value
    first = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
             f"[{type_name} [{dims}]]{which} is at version {current}; expected version "
             f"{saved.version} instead. {_HINT_ANOMALY if is_anomaly_enabled() else _HINT}")
    counter = saved.counter
    label = _tensor_name(counter)
    lines = [
        "What happened:",
        f"  the tensor: {_describe(saved.shape, saved.dtype)}" + (f", the parameter `{label}`" if label else ""),
        f"  saved by:   {node.name()} for backward, in the forward op at {format_site(node._site)}",
        f"  changed by: `{op_name(counter.last_op)}`"
        + (f" inside {counter.last_context}" if counter.last_context else "")
        + f" at {format_site(counter.last_site)}"
        + (f" (version {saved.version} -> {current}" + (", last of several changes)" if current - saved.version > 1 else ")")),
        "  Backward would have used the new values with the old graph and silently produced wrong",
        "  gradients, so it stops here instead.",
    ]
    if node._anomaly_stack:
        lines.append("Forward stack of the op that saved it (anomaly mode):")
        lines.extend("  " + line.rstrip() for line in "".join(node._anomaly_stack).splitlines())
    fixes = _fixes(
        "call .clone() before the in-place op, or use its out-of-place form (`x = x * 2` for `x *= 2`);",
        "with nn.ReLU/LeakyReLU use inplace=False where the input is needed by backward;",
        "after optimizer.step() a graph built before the step is stale: recompute the forward pass "
        "(e.g. a GAN's fresh D(fake) for the G step);",
        "if this part of the graph should not get gradients at all, use .detach() on its output.")
    return AutogradError(first, "\n".join(lines) + "\n" + fixes)


def _tensor_name(counter) -> str | None:
    """The qualified name of a module parameter sharing this version counter, found in user frames.

    Modules are recognised by what they do (``named_parameters``), not by importing nn: diagnostics sits on
    the autograd floor, below nn, and nn.Module is the only framework class that answers it.
    """
    f = sys._getframe(1)
    seen = set()
    while f is not None:
        if not f.f_code.co_filename.startswith(_FRAMEWORK_DIR):
            candidates = list(f.f_locals.items())
            self_obj = f.f_locals.get("self")
            if self_obj is not None and hasattr(self_obj, "__dict__"):
                candidates += list(vars(self_obj).items())
            for var, obj in candidates:
                if _is_module(obj) and id(obj) not in seen:
                    seen.add(id(obj))
                    for pname, p in obj.named_parameters():
                        if p._version_counter is counter:
                            return f"{var}.{pname}"
        f = f.f_back
    return None


def _is_module(obj) -> bool:
    """An nn.Module (or anything shaped like one): its class has named_parameters() and _parameters."""
    cls = type(obj)
    return callable(getattr(cls, "named_parameters", None)) and hasattr(obj, "_parameters")


def _param_suffix(t) -> str:
    name = _tensor_name(t._version_counter) if t._version_counter is not None else None
    return f", the parameter `{name}`" if name else ""


# ---- backward entry -------------------------------------------------------------------------------

def no_grad_fn(index: int) -> AutogradError:
    return AutogradError(
        f"element {index} of tensors does not require grad and does not have a grad_fn",
        "What happened: backward was asked to start from a tensor that is not connected to any tensor\n"
        "  with requires_grad=True, so there is no graph to go back through.\n"
        + _fixes("create your parameters with requires_grad=True (nn.Parameter does this);",
                 "check the forward pass did not run under framework.no_grad() or on .detach()ed values."))


def implicit_grad_nonscalar(shape) -> AutogradError:
    return AutogradError(
        "grad can be implicitly created only for scalar outputs",
        f"What happened: backward() without `gradient=` on a tensor of shape {tuple(shape)}.\n"
        "  d(output)/d(input) is then a Jacobian, not a gradient; backward computes vector-Jacobian products.\n"
        + _fixes("reduce to a scalar first (`y.sum().backward()` or `y.mean().backward()`);",
                 "or pass the vector: `y.backward(gradient=framework.ones_like(y))`."))

