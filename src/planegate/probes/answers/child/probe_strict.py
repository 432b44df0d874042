"""Strict comparisons in main's tests: `--probe-strict-compare PATHS`.

A pytest plugin module for the answer probes. Main's test files are trusted, so before
pytest rewrites a test module's asserts, every `assert` whose test is a comparison (`==`,
`!=`, `<`, `<=`, `>`, `>=`, chains too) is split: its operands are evaluated once into hidden
names, checked, then compared as before (pytest's explanation still shows their values).

The check (`strict_compare.problem`) fails the assert with "comparison delegated to
<module>.<Class>.<method>" when one side is a builtin value and the other side's class
overrides the comparison in the patch's code (PATHS: comma-separated files relative to the
rootdir; `*` for every file under it) and changes its answer: a str subclass whose `__eq__`
ignores case, an int subclass that tolerates one unit, an object whose `__eq__` is always
true however it is written. `pytest.approx` operands are held to the same rule.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from planegate.probes.answers.child import strict_compare
from planegate.probes.answers.child.options import STRICT_COMPARE as OPTION
from planegate.runner.child import rewrite_import

if TYPE_CHECKING:
    from planegate.runner.child.plugin_api import PluginContext

CHECK = (
    "_probe_compare_operands"  # set on _pytest.assertion.rewrite, which rewritten modules import
)
DEST = "probe_strict_compare"
ALIAS = "@strict_ar"  # not a valid identifier: no clash with the test's own names
OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        dest=DEST,
        default=None,
        help="fail asserts whose comparison a class of these files decides (comma-separated)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before the first conftest and before the gate's harness baseline (runner/child/integrity.py):
    the wrapped assertion rewriter and the check are the harness every test then meets, and
    code that replaces them afterwards is reported like any other change to the harness."""
    value = getattr(early_config.known_args_namespace, DEST, None)
    if value is None:
        return
    from _pytest.assertion import rewrite

    suspects = tuple(p.strip() for p in str(value).split(",") if p.strip() and p.strip() != "*")
    check = strict_compare.Checker(str(Path(early_config.rootpath).resolve()), suspects)
    setattr(rewrite, CHECK, check.compare)
    original = rewrite.rewrite_asserts

    def rewrite_asserts(mod: ast.Module, source: bytes, *args: Any, **kwargs: Any) -> None:
        transform(mod)
        original(mod, source, *args, **kwargs)

    rewrite.rewrite_asserts = rewrite_asserts


def transform(module: ast.Module) -> int:
    """Split the module's comparison asserts in place; returns how many were split."""
    splitter = _Splitter()
    splitter.visit(module)
    if splitter.count:
        rewrite_import.insert(module, ALIAS)
        ast.fix_missing_locations(module)
    return splitter.count


class _Splitter(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0
        self.names = 0

    def visit_Assert(self, node: ast.Assert) -> Any:
        test = node.test
        if not isinstance(test, ast.Compare) or not all(type(op) in OPS for op in test.ops):
            return node
        operands = [test.left, *test.comparators]
        names = [f"@strict{self.names + index}" for index in range(len(operands))]
        self.names += len(operands)
        self.count += 1
        statements: list[ast.stmt] = [
            ast.Assign(targets=[ast.Name(name, ast.Store())], value=operand)
            for name, operand in zip(names, operands, strict=True)
        ]
        ops = ",".join(OPS[type(op)] for op in test.ops)
        loads: list[ast.expr] = [ast.Name(name, ast.Load()) for name in names]
        check = ast.Attribute(ast.Name(ALIAS, ast.Load()), CHECK, ast.Load())
        statements.append(ast.Expr(ast.Call(check, [ast.Constant(ops), *loads], [])))
        compare = ast.Compare(loads[0], list(test.ops), loads[1:])
        statements.append(ast.Assert(compare, node.msg))
        for statement in statements:
            ast.copy_location(statement, node)  # the new names get it from fix_missing_locations
        return statements


def plugin(_options: Mapping[str, Any], context: PluginContext, /) -> object:
    """This module's hooks as the child registers them (`runner/child/plugin_api.py`)."""
    return context.hooks_of(sys.modules[__name__])
