"""explain(tensor): a text tree of the graph behind a tensor, saved tensors marked STALE when modified."""
from __future__ import annotations

from .callsite import format_site
from .node import AccumulateGrad
from .saved import SavedTensor
from .saved_hooks import HookedSaved


def _saved_lines(node) -> list[str]:
    out = []
    for s in getattr(node, "_saved", None) or ():
        if isinstance(s, HookedSaved):
            out.append("saved: what a saved_tensors_hooks pack hook returned (unpacked in backward; no version check)")
            continue
        if not isinstance(s, SavedTensor):
            continue
        if s.released:
            out.append("saved: (freed by an earlier backward)")
            continue
        now = s.counter.value if s.counter is not None else s.version
        state = "ok" if now == s.version else "STALE"
        out.append(f"saved: {tuple(s.shape)} {s.dtype!r}, saved at version {s.version}, now {now}  {state}")
    return out


def explain_graph(t) -> str:
    """Describe ``t`` and every node behind it (iteratively; nothing in the graph is changed)."""
    lines = [f"tensor {tuple(t.shape)} {t.dtype!r}, requires_grad={t.requires_grad}, is_leaf={t.is_leaf}"]
    root = t.grad_fn
    if root is None:
        lines.append("  (a leaf: no graph behind it)" if t.requires_grad else "  (no graph: requires_grad=False)")
        return "\n".join(lines)
    stack, seen = [(root, 1)], set()
    while stack:
        node, depth = stack.pop()
        pad = "  " * depth
        if isinstance(node, AccumulateGrad):
            v = node.variable
            has = "set" if v._grad is not None else "None"
            hooks = f", {len(v._hooks)} hook(s)" if v._hooks else ""
            lines.append(f"{pad}AccumulateGrad -> leaf {tuple(v.shape)} {v.dtype!r}, requires_grad=True, "
                         f".grad {has}{hooks}")
            continue
        if node in seen:
            lines.append(f"{pad}{type(node).__name__} (shown above)")
            continue
        seen.add(node)
        where = f"  at {format_site(node._site)}" if node._site else ""
        extra = []
        if node._retain_grad_hooks:
            extra.append("retains grad")
        if node._tensor_pre_hooks:
            extra.append(f"{sum(len(h) for h in node._tensor_pre_hooks.values())} hook(s)")
        lines.append(f"{pad}{type(node).__name__}{where}" + (f"  [{', '.join(extra)}]" if extra else ""))
        for s in _saved_lines(node):
            lines.append(f"{pad}  {s}")
        for nxt, _ in reversed(node.next_functions):
            if nxt is not None:
                stack.append((nxt, depth + 1))
    return "\n".join(lines)
