"""Parts of a value an equality can be made on instead of the value itself: its length, its
keys, its items sorted or as a set, one entry or one attribute of it."""

from __future__ import annotations

import ast
from collections.abc import Callable

# builtins that keep less of a value than the value: size, order, multiplicity
REDUCERS = frozenset({"len", "sorted", "set", "frozenset"})
# methods that keep one side of a mapping
VIEWS = frozenset({"keys", "values"})
# wrappers that keep what they wrap (`list(x.values())` is still only the values)
KEEPERS = frozenset({"list", "tuple"})

Keyer = Callable[[ast.AST], str]
# The only nodes `part_of` takes a part of.
PART_TAKERS = frozenset({ast.Call, ast.Subscript, ast.Attribute})


def part_of(node: ast.expr) -> tuple[ast.expr, str] | None:
    """(the value `node` takes a part of, how), or None when `node` is not such a part."""
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id in KEEPERS and len(node.args) == 1:
            return part_of(node.args[0])
        if isinstance(func, ast.Name) and func.id in REDUCERS and len(node.args) == 1:
            return node.args[0], f"{func.id}()"
        if isinstance(func, ast.Attribute) and func.attr in VIEWS and not node.args:
            return func.value, f".{func.attr}()"
        return None
    if isinstance(node, ast.Subscript):
        return node.value, "[...]"
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.value, f".{node.attr}"
    return None


def subjects(node: ast.expr, keyer: Keyer) -> tuple[tuple[str, ...], str] | None:
    """The keys of every value `node` is a part of, outermost first, and how the first part
    is taken; None when `node` is not a part of anything."""
    first = part_of(node)
    if first is None:
        return None
    found: list[str] = []
    current: ast.expr | None = first[0]
    while current is not None and len(found) < 8:
        found.append(keyer(current))
        step = part_of(current)
        current = step[0] if step is not None else None
    return tuple(found), first[1]
