"""The vmaps now running: Tensor.item and the random draws read this to refuse what torch's vmap refuses.

framework.func.vmap is a loop over the examples, so nothing marks a tensor as batched; instead, while a vmap runs
its function, `.item()`/`float()`/`int()` called from user code (on any tensor; framework's own calls inside its
ops are let through) and random draws (in randomness="error" mode) raise torch's errors.
"""
from __future__ import annotations

import sys

# randomness mode of each vmap now running, innermost last ("error", "different" or "same")
running: list = []

ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on "
              "a Tensor, please try to rewrite what you're doing with other operations. If error is occurring "
              "somewhere inside PyTorch internals, please file a bug report.")
RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def check_item() -> None:
    """torch's error for .item() inside vmap (here: on any tensor, as the loop cannot tell batched ones apart),
    when the caller of Tensor.item / __float__ / __int__ is not framework itself."""
    if running and sys._getframe(2).f_globals.get("__name__", "").partition(".")[0] != "framework":
        raise RuntimeError(ITEM_ERROR + "\n\nframework: vmap runs the function once per example; compute with "
                           "tensor ops instead of reading a Python number out of a tensor.")


def check_random() -> None:
    """torch's error for a random op inside vmap(randomness="error")."""
    if running and running[-1] == "error":
        raise RuntimeError(RANDOM_ERROR + "\n\nframework: pass randomness='different' for independent draws per "
                           "example, or randomness='same' for one draw shared by all examples.")
