"""A parsed test module: imports, module-level names, functions and classes with their
pytest collection status, and the small readings of nodes (numbers, truth, short text) the
rules share."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from planegate import syntax
from planegate.analysis.hunks.keys import walk

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
_ALIAS_DEPTH = 4


# The records here are named tuples: the cheapest immutable records to build, and some are
# built for every function or assertion of every changed file.
class ClassInfo(NamedTuple):
    qualname: str
    node: ast.ClassDef
    collected: bool


class FuncInfo(NamedTuple):
    qualname: str
    node: FuncNode
    classes: tuple[ClassInfo, ...]
    collected: bool

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def is_async(self) -> bool:
        return isinstance(self.node, ast.AsyncFunctionDef)

    @property
    def in_class(self) -> bool:
        return bool(self.classes)


class Module(NamedTuple):
    tree: ast.Module
    imports: dict[str, str]
    aliases: dict[str, ast.expr]
    functions: tuple[FuncInfo, ...]
    classes: tuple[ClassInfo, ...]
    helpers: frozenset[str]

    def dotted(self, node: ast.AST) -> str | None:
        if type(node) is ast.Name:  # `dotted`'s common case, one call sooner
            return self.imports.get(node.id, node.id)
        return dotted(node, self.imports)

    def resolve(self, node: ast.expr, local: dict[str, ast.expr] | None = None) -> ast.expr:
        """Follow a bare name through simple assignments (`skip_me = pytest.mark.skip`)."""
        for _ in range(_ALIAS_DEPTH):
            if not isinstance(node, ast.Name):
                return node
            target = (local or {}).get(node.id) or self.aliases.get(node.id)
            if target is None:
                return node
            node = target
        return node

    def effective(self) -> dict[str, FuncInfo]:
        """The definition pytest sees for each qualified name: the last one."""
        return {info.qualname: info for info in self.functions}

    def effective_classes(self) -> dict[str, ClassInfo]:
        return {info.qualname: info for info in self.classes}


def dotted(node: ast.AST, imports: dict[str, str]) -> str | None:
    """`st.integers` -> `hypothesis.strategies.integers` using the module's imports."""
    if type(node) is ast.Name:  # the common case, without building parts
        return imports.get(node.id, node.id)
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(imports.get(node.id, node.id))
    return ".".join(reversed(parts))


def last_part(name: str | None) -> str:
    return "" if name is None else name.rpartition(".")[2]


def parse_module(
    source: str, *, collectable: bool, helpers: frozenset[str] = frozenset()
) -> Module:
    return module_of(syntax.parse(source), collectable=collectable, helpers=helpers)


class ModuleNames(NamedTuple):
    """What a module's import-time statements say about its names."""

    imports: dict[str, str]
    aliases: dict[str, ast.expr]
    disabled: bool  # `__test__ = False`
    not_collected: frozenset[str]  # `test_x.__test__ = False`


def module_names(body: list[ast.stmt]) -> ModuleNames:
    statements = module_statements(body)
    assignments = [stmt for stmt in statements if type(stmt) in _ASSIGNMENTS]
    return ModuleNames(
        _imports(statements),
        _aliases(assignments),
        _test_disabled(body),
        _dunder_test_false(assignments),
    )


def module_of(
    tree: ast.Module,
    *,
    collectable: bool,
    helpers: frozenset[str] = frozenset(),
    names: ModuleNames | None = None,
) -> Module:
    """`names`: `module_names(tree.body)`, when known."""
    statements = module_statements(tree.body)
    imports, aliases, disabled, not_collected = names or module_names(tree.body)
    collector = _Collector(imports)
    collector.collect(statements, (), collectable and not disabled, not_collected)
    functions, classes = collector.functions, collector.classes
    helpers = helpers | frozenset(
        info.name
        for info in functions
        if not info.in_class and not info.collected and has_assertion(info.node)
    )
    return Module(tree, imports, aliases, tuple(functions), tuple(classes), helpers)


# The statements `_aliases` and `_dunder_test_false` read.
_ASSIGNMENTS = frozenset({ast.Assign, ast.AnnAssign})


def module_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements that run at import time, looking inside `if`/`try` blocks."""
    out: list[ast.stmt] = []
    _add_statements(body, out)
    return out


def _add_statements(body: list[ast.stmt], out: list[ast.stmt]) -> None:
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.If):
            _add_statements(stmt.body, out)
            _add_statements(stmt.orelse, out)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody):
                _add_statements(block, out)
            for handler in stmt.handlers:
                _add_statements(handler.body, out)


def _imports(statements: list[ast.stmt]) -> dict[str, str]:
    imports: dict[str, str] = {}
    for stmt in statements:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    root = alias.name.partition(".")[0]
                    imports[root] = root
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                imports[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return imports


def _aliases(statements: list[ast.stmt]) -> dict[str, ast.expr]:
    aliases: dict[str, ast.expr] = {}
    for stmt in statements:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                aliases[target.id] = stmt.value
        elif (
            isinstance(stmt, ast.AnnAssign)
            and stmt.value is not None
            and isinstance(stmt.target, ast.Name)
        ):
            aliases[stmt.target.id] = stmt.value
    return aliases


def _is_false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _test_disabled(body: list[ast.stmt]) -> bool:
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or not _is_false(stmt.value):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__test__" for t in stmt.targets):
            return True
    return False


def _dunder_test_false(statements: list[ast.stmt]) -> frozenset[str]:
    """Names switched off with `test_x.__test__ = False`."""
    names: set[str] = set()
    for stmt in statements:
        if isinstance(stmt, ast.Assign) and _is_false(stmt.value):
            for target in stmt.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "__test__"
                    and isinstance(target.value, ast.Name)
                ):
                    names.add(target.value.id)
    return frozenset(names)


def _class_collected(node: ast.ClassDef, imports: dict[str, str]) -> bool:
    if _test_disabled(node.body):
        return False
    if any(last_part(dotted(base, imports)).endswith("TestCase") for base in node.bases):
        return True
    has_init = any(
        isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__init__"
        for stmt in node.body
    )
    return node.name.startswith("Test") and not has_init


def _is_fixture(node: FuncNode, imports: dict[str, str]) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if last_part(dotted(target, imports)) == "fixture":
            return True
    return False


@dataclass
class _Collector:
    """Every function and class of a module, nested ones too, and whether pytest collects it."""

    imports: dict[str, str]
    functions: list[FuncInfo] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)

    def collect(
        self,
        statements: list[ast.stmt],
        classes: tuple[ClassInfo, ...],
        collectable: bool,
        not_collected: frozenset[str],
    ) -> None:
        """`statements`: `module_statements` of a module's or a class's body."""
        prefix = "::".join(info.node.name for info in classes)
        for stmt in statements:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                collected = (
                    collectable
                    and stmt.name.startswith("test")
                    and stmt.name not in not_collected
                    and not _is_fixture(stmt, self.imports)
                )
                qualname = f"{prefix}::{stmt.name}" if prefix else stmt.name
                self.functions.append(FuncInfo(qualname, stmt, classes, collected))
            elif isinstance(stmt, ast.ClassDef):
                qualname = f"{prefix}::{stmt.name}" if prefix else stmt.name
                collected = (
                    collectable
                    and stmt.name not in not_collected
                    and _class_collected(stmt, self.imports)
                )
                info = ClassInfo(qualname, stmt, collected)
                self.classes.append(info)
                body = module_statements(stmt.body)
                self.collect(body, (*classes, info), collected, frozenset())


def has_assertion(func: FuncNode) -> bool:
    for node in walk(func):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call) and _assert_call_name(node):
            return True
    return False


def _assert_call_name(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return isinstance(name, str) and name.startswith("assert")


def local_names(func: FuncNode) -> dict[str, str]:
    """Canonical names for a function's locals, by order of first binding.

    Renaming a local keeps its canonical name, so the comparisons do not see it."""
    spots: list[tuple[int, int, str]] = []
    arguments = func.args
    for index, arg in enumerate(
        [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    ):
        spots.append((-1, index, arg.arg))
    for node in walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            spots.append((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.arg):
            spots.append((node.lineno, node.col_offset, node.arg))
    names: dict[str, str] = {}
    for _, _, name in sorted(spots):
        names.setdefault(name, f"_v{len(names)}")
    return names


def short(node: ast.AST, width: int = 60) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def number(node: ast.AST | None) -> float | None:
    """The value of a numeric literal expression (`1e-9`, `10 ** -6`, `float("inf")`)."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = number(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        return _binop(node)
    if _float_call(node):
        assert isinstance(node, ast.Call) and isinstance(node.args[0], ast.Constant)
        try:
            return float(str(node.args[0].value))
        except (TypeError, ValueError):
            return None
    if isinstance(node, ast.Attribute) and node.attr == "inf":
        return math.inf
    return None


def _float_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "float"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
    )


def _binop(node: ast.BinOp) -> float | None:
    left, right = number(node.left), number(node.right)
    if left is None or right is None:
        return None
    try:
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
        if isinstance(node.op, ast.Pow) and abs(right) <= 400:
            return float(left**right)
    except (ArithmeticError, ValueError):
        return None
    return None


def truth(node: ast.expr) -> bool | None:
    """True/False when a condition is constant (`if False:`, `if 0 and x:`), else None."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [truth(value) for value in node.values]
        if isinstance(node.op, ast.And):
            return False if False in values else (True if all(values) else None)
        if True in values:
            return True
        return False if all(value is False for value in values) else None
    return None
