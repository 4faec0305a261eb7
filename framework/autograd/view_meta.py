"""How a view was created (torch's CreationMeta) and the error for modifying it in place when that is forbidden.

Mirrors torch/csrc/autograd/variable.h (CreationMeta) and handle_view_on_rebase() in variable.cpp.  A view made
with grad mode on can be modified in place (its grad_fn becomes CopySlices-based); one made under no_grad or
inference_mode, one of several outputs of unbind/split/chunk, or one returned by a custom Function cannot: autograd
cannot tell which history the change should get, so torch refuses it, and so do we.
"""
from __future__ import annotations

import re
from enum import IntEnum


class CreationMeta(IntEnum):
    """torch's CreationMeta, in torch's order: anything but DEFAULT forbids in-place changes under grad mode."""

    DEFAULT = 0
    IN_CUSTOM_FUNCTION = 1
    MULTI_OUTPUT_NODE = 2
    NO_GRAD_MODE = 3
    INFERENCE_MODE = 4


def propagate(prev: int, new: int) -> int:
    """The meta of a view of a view: the parent's unless the new one is stricter (torch's propagate_creation_meta)."""
    if new == CreationMeta.DEFAULT:
        return prev
    return prev if prev == CreationMeta.INFERENCE_MODE else new


_SUFFIX = re.compile(r"Backward\d*$")


def _short(name: str) -> str:
    """torch names the node without its ``Backward`` suffix in these messages, keeping an overload number other
    than 0 (``Output 0 of Unbind`` for UnbindBackward0, ``of Squeeze1`` for SqueezeBackward1)."""
    match = _SUFFIX.search(name)
    if match is None:
        return name
    number = match.group(0)[len("Backward"):]
    return name[:match.start()] + ("" if number in ("", "0") else number)


def rebase_error_text(meta: int, grad_fn, output_nr: int, indirect: bool) -> str:
    """torch's message, word for word, for an in-place change to a view whose creation forbids it."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE) or grad_fn is None:
        prefix = (f"Output {output_nr} of {_short(grad_fn.name())} is a view of a view which was created in"
                  if grad_fn is not None else "A view was created in")
        if meta == CreationMeta.INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {output_nr} of {_short(grad_fn.name())} is a view and {modified} modified inplace."
    if meta == CreationMeta.MULTI_OUTPUT_NODE:
        return msg + (" This view is the output of a function that returns multiple views. Such functions do not"
                      " allow the output views to be modified inplace. You should replace the inplace operation by"
                      " an out-of-place one.")
    if meta in (CreationMeta.NO_GRAD_MODE, CreationMeta.INFERENCE_MODE):
        block = "no_grad" if meta == CreationMeta.NO_GRAD_MODE else "inference_mode"
        return msg + (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your"
                      " code by moving both the view and the inplace either both inside the"
                      f" {block} block (if you don't want the inplace to be tracked) or both outside (if you want"
                      " the inplace to be tracked).")
    return msg + (" This view was created inside a custom Function (or because an input was returned as-is) and the"
                  " autograd logic to handle view+inplace would override the custom backward associated with the"
                  " custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this"
                  " by cloning the output of the custom Function.")


def rebase_error(view, indirect: bool) -> RuntimeError:
    """The error for ``view`` (a Tensor with a non-DEFAULT ``_creation_meta``)."""
    meta = view._creation_meta
    first = rebase_error_text(meta, view._grad_fn, view._output_nr, indirect)
    where = {CreationMeta.NO_GRAD_MODE: "under no_grad", CreationMeta.INFERENCE_MODE: "under inference_mode",
             CreationMeta.MULTI_OUTPUT_NODE: "as one of several outputs of unbind/split/chunk",
             CreationMeta.IN_CUSTOM_FUNCTION: "by a custom autograd.Function"}[CreationMeta(meta)]
    what = ("its base (or another view of it) was modified in place since" if indirect
            else "an in-place op is now writing into it")
    explanation = (f"What happened: this view (shape {tuple(view._array.shape)}) was created {where}, and {what}.\n"
                   "  Autograd cannot give such a view a history for the change (its view op was not recorded,\n"
                   "  or its node has other outputs or a custom backward), so it refuses instead of guessing.\n"
                   "How to fix it:\n"
                   "  - create the view and modify it in the same grad mode (both inside or both outside no_grad);\n"
                   "  - or modify a clone: `v = v.clone()` before the in-place op.")
    exc = RuntimeError(f"{first}\n\n{explanation}")  # torch's class, as diagnostics.AutogradError
    exc.torch_message, exc.explanation = first, explanation
    return exc
