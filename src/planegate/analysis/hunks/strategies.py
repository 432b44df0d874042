"""Hypothesis strategies as the source writes them (`st.integers()`, `a | b`, `.map(...)`)."""

from __future__ import annotations

import ast

from planegate.analysis.hunks.parsed_module import Module, last_part


def strategy_name(module: Module, node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    name = module.dotted(node.func)
    if name is None:
        return None
    if name.startswith("hypothesis.strategies.") or name.split(".")[0] in ("st", "strategies"):
        return last_part(name)
    return None


def is_strategy(module: Module, node: ast.expr, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("map", "filter", "flatmap")
    ):
        return is_strategy(module, node.func.value, depth + 1)
    if strategy_name(module, node) is not None:
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return is_strategy(module, node.left, depth + 1) or is_strategy(
            module, node.right, depth + 1
        )
    if isinstance(node, ast.Name) and node.id in module.aliases:
        return is_strategy(module, module.aliases[node.id], depth + 1)
    return False
