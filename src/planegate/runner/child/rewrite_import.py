"""`import _pytest.assertion.rewrite as <alias>` put into a test module's tree where pytest puts
its own imports: after the docstring and the `from __future__` imports. The probes that
rewrite main's asserts (answers' strict comparison, the honest-values check) call the
rewriter's helpers through it, under a name no test can spell."""

from __future__ import annotations

import ast


def insert(module: ast.Module, alias: str) -> None:
    position = _position(module)
    target = ast.alias("_pytest.assertion.rewrite", alias)
    module.body[position:position] = [ast.Import([target], lineno=1, col_offset=0)]


def _position(module: ast.Module) -> int:
    position = 0
    for index, statement in enumerate(module.body):
        docstring = (
            index == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        )
        future = isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
        if not (docstring or future):
            break
        position = index + 1
    return position
