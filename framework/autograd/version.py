"""VersionCounter: shared by a tensor, its views and its detach()es; bumped by every in-place op.

torch keeps the same counter (``tensor._version``).  We also remember *which* op bumped it last and
from which user line, so that the in-place error can say who changed a saved tensor.
"""
from __future__ import annotations

from .callsite import user_site

# Set by e.g. Optimizer.step() so a bump says "Adam.step()" rather than just "addcdiv_".
_context: list[str] = []


class VersionCounter:
    """An integer that in-place ops increment; saved tensors remember the value they saw."""

    # Class-level defaults and no __init__: every tensor gets a counter, and a bare ``VersionCounter()``
    # (no Python-level __init__ frame) is about three times cheaper than one that sets ``value = 0``.
    value = 0
    last_op: str | None = None  # who bumped it last, set on the first in-place op
    last_site = None
    last_context: str | None = None

    def bump(self, op_name: str) -> None:
        self.value += 1
        self.last_op = op_name
        # one frame walk, formatted only if an error is ever raised
        self.last_site = user_site(3)  # skip user_site, bump and Function.apply
        self.last_context = _context[-1] if _context else None


class bump_context:
    """``with bump_context("Adam.step()"):`` labels the in-place ops run inside it."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __enter__(self) -> None:
        _context.append(self.label)

    def __exit__(self, *exc) -> None:
        _context.pop()
