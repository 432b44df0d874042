"""The test functions of a module's source, as pytest collects them, each with its kind: what
the sampled canaries choose from (probes/canaries/plan.py) and main's digest records of each
of main's test files (gate/source_facts.py)."""

from __future__ import annotations

import ast

from planegate import pyimports, sourcesize

KINDS_OF_TESTS = ("function", "parametrized", "hypothesis", "class", "unittest")

TestFunction = tuple[str, str]  # (name, or `Class::name`; kind)


def test_functions(source: str) -> list[TestFunction]:
    """(name, kind) of each test function of a module, as pytest collects them."""
    module = _parsed(source)
    if module is None:
        return []
    found = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [(node.name, _kind(node, "function"))] if node.name.startswith("test") else []
        elif isinstance(node, ast.ClassDef) and (node.name.startswith("Test") or node.bases):
            kind = "unittest" if node.bases and _is_unittest(node) else "class"
            if kind == "class" and not node.name.startswith("Test"):
                continue
            found += [
                (f"{node.name}::{item.name}", _kind(item, kind))
                for item in node.body
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test")
            ]
    return found


def _parsed(source: str) -> ast.Module | None:
    """`sourcesize.parse`, through the trees the evidence by default has just parsed (the same
    files of main's, most of them: pyimports keeps the last ones parsed)."""
    if sourcesize.refusal(source) is not None:
        return None
    try:
        return pyimports.parsed(source)
    except (RecursionError, MemoryError):
        return None


def _is_unittest(node: ast.ClassDef) -> bool:
    """A class pytest collects whatever its name: a `TestCase` subclass, or one of a base
    class of the project's (any base but `object`, when it is not named `Test*`)."""
    names = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
    return any(name.endswith("TestCase") for name in names) or (
        not node.name.startswith("Test") and names != ["object"]
    )


def _kind(node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str) -> str:
    decorators = " ".join(ast.unparse(d) for d in node.decorator_list)
    if "given(" in decorators:
        return "hypothesis"
    if "parametrize" in decorators:
        return "parametrized"
    return kind
