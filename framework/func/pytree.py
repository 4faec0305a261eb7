"""Pytrees as torch.utils._pytree reads them: tuples, lists, dicts and namedtuples are nodes, anything else a leaf.

The transforms flatten their inputs and outputs to lists of leaves plus a TreeSpec (the shape of the nesting),
work on the leaves, and rebuild the same nesting.
"""
from __future__ import annotations

from typing import Any, Callable


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_node(x) -> bool:
    return isinstance(x, (tuple, list, dict))


class TreeSpec:
    """The nesting of a pytree: a node's type, its context (dict keys, namedtuple class) and its children's specs."""

    def __init__(self, type_: type | None, context: Any = None, children: list | None = None) -> None:
        self.type = type_  # None for a leaf
        self.context = context
        self.children_specs = children or []
        self.num_leaves = 1 if type_ is None else sum(c.num_leaves for c in self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.type == other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __repr__(self, indent: int = 0) -> str:
        """torch's layout: TreeSpec(tuple, None, [*, *]) with a leaf written as *."""
        if self.is_leaf():
            return "*"
        name = "namedtuple" if self.context is not None and not isinstance(self.context, list) else self.type.__name__
        context = self.context if not isinstance(self.context, type) else self.context.__name__
        inner = [c.__repr__(indent + 2) for c in self.children_specs]
        sep = ",\n" + " " * (indent + 2)
        return f"TreeSpec({name}, {context}, [{sep.join(inner)}])"

    def pprint(self) -> str:
        """torch's treespec_pprint: the nesting written as a value with * for each leaf, e.g. (*, [*, *])."""
        if self.is_leaf():
            return "*"
        inner = [c.pprint() for c in self.children_specs]
        if isinstance(self.context, list):
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, inner)) + "}"
        if self.type is list:
            return "[" + ", ".join(inner) + "]"
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


LEAF = TreeSpec(None)


def tree_flatten(tree) -> tuple[list, TreeSpec]:
    """(the leaves in order, the spec to rebuild ``tree`` from them)."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> TreeSpec:
    if not _is_node(tree):
        leaves.append(tree)
        return LEAF
    if isinstance(tree, dict):
        keys = list(tree)
        return TreeSpec(type(tree), keys, [_flatten(tree[k], leaves) for k in keys])
    context = type(tree) if _is_namedtuple(tree) else None
    return TreeSpec(tuple if context else type(tree), context, [_flatten(v, leaves) for v in tree])


def tree_unflatten(leaves, spec: TreeSpec):
    """The pytree of ``spec``'s nesting holding ``leaves``."""
    return _unflatten(iter(leaves), spec)


def _unflatten(it, spec: TreeSpec):
    if spec.is_leaf():
        return next(it)
    children = [_unflatten(it, c) for c in spec.children_specs]
    if isinstance(spec.context, type):  # a namedtuple
        return spec.context(*children)
    if isinstance(spec.context, list):  # a dict (its keys)
        return spec.type(zip(spec.context, children))
    return spec.type(children)


def tree_map(fn: Callable, tree):
    """``tree`` with ``fn`` applied to each leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def tree_leaves(tree) -> list:
    return tree_flatten(tree)[0]


def broadcast_to_and_flatten(prefix, spec: TreeSpec) -> list | None:
    """``prefix`` (a pytree whose leaves stand for whole subtrees of ``spec``) as one value per leaf of ``spec``;
    None when ``prefix`` is not a prefix of ``spec`` (torch's _broadcast_to_and_flatten)."""
    if not _is_node(prefix):
        return [prefix] * spec.num_leaves
    if spec.is_leaf():
        return None
    node_type = tuple if _is_namedtuple(prefix) else type(prefix)
    context = list(prefix) if isinstance(prefix, dict) else (type(prefix) if _is_namedtuple(prefix) else None)
    if node_type != spec.type or context != spec.context or len(prefix) != len(spec.children_specs):
        return None
    children = [prefix[k] for k in prefix] if isinstance(prefix, dict) else list(prefix)
    sub_leaves: list = []
    for child, child_spec in zip(children, spec.children_specs):
        flat = broadcast_to_and_flatten(child, child_spec)
        if flat is None:
            return None
        sub_leaves.extend(flat)
    return sub_leaves
