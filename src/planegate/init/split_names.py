"""What a module-level statement binds and which names it needs (for `init --split`)."""

from __future__ import annotations

import ast

# pytest runs these for every test of the module: they go wherever the tests go.
XUNIT = frozenset(
    {
        "setup_module",
        "teardown_module",
        "setup_function",
        "teardown_function",
        "setUpModule",
        "tearDownModule",
        "pytestmark",
    }
)


def bound_names(node: ast.stmt) -> set[str]:
    """Names a module-level statement binds (a fixture also under its `name=`)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names = {node.name}
        fixture_name = _fixture_keyword(node, "name")
        if isinstance(fixture_name, str):
            names.add(fixture_name)
        return names
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {alias_binding(alias) for alias in node.names if alias.name != "*"}
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            names.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names |= {alias_binding(a) for a in child.names if a.name != "*"}
    return names


def alias_binding(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".", 1)[0]


def needed_names(node: ast.AST) -> set[str]:
    """Names read by the node, the fixtures its functions request by argument, and the
    fixtures named in `usefixtures(...)`."""
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            names.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = child.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            names |= {arg.arg for arg in every}
        elif isinstance(child, ast.Call) and _call_name(child) == "usefixtures":
            names |= {
                arg.value
                for arg in child.args
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            }
    return names


def _call_name(call: ast.Call) -> str:
    target = call.func
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def _fixture_keyword(node: ast.stmt, keyword: str) -> object:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and _call_name(decorator) == "fixture":
            for item in decorator.keywords:
                if item.arg == keyword and isinstance(item.value, ast.Constant):
                    return item.value.value
    return None


def always_carried(node: ast.stmt, unused_imports: set[str]) -> bool:
    """Statements every test of the module relies on: `from __future__`, side-effect imports,
    autouse fixtures, xunit set-up, `pytestmark`, and statements that bind nothing."""
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return True
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        bound = bound_names(node)
        return not bound or bound <= unused_imports
    if _fixture_keyword(node, "autouse") is True:
        return True
    if bound_names(node) & XUNIT:
        return True
    return not bound_names(node) and not is_docstring(node) and not is_main_guard(node)


def is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def is_main_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)


def loads_in(nodes: list[ast.stmt]) -> set[str]:
    """Every name read anywhere in these statements, imports excluded."""
    names: set[str] = set()
    for node in nodes:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= needed_names(node)
    return names
