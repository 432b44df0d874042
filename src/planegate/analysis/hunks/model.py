"""A parsed test module: imports, module-level names, functions and classes with their
pytest collection status, plus the canonical keys the comparisons are made on."""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
_ALIAS_DEPTH = 4
SEP = "\x1f"


@dataclass(frozen=True)
class ClassInfo:
    qualname: str
    node: ast.ClassDef
    collected: bool


@dataclass(frozen=True)
class FuncInfo:
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


@dataclass(frozen=True)
class Module:
    tree: ast.Module
    imports: dict[str, str]
    aliases: dict[str, ast.expr]
    functions: tuple[FuncInfo, ...]
    classes: tuple[ClassInfo, ...]
    helpers: frozenset[str]

    def dotted(self, node: ast.AST) -> str | None:
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
    tree = ast.parse(source)
    imports = _imports(tree)
    aliases = _aliases(tree.body)
    disabled = _test_disabled(tree.body)
    not_collected = _dunder_test_false(tree.body)
    collector = _Collector(imports)
    collector.collect(tree.body, (), collectable and not disabled, not_collected)
    functions, classes = collector.functions, collector.classes
    helpers = helpers | frozenset(
        info.name
        for info in functions
        if not info.in_class and not info.collected and has_assertion(info.node)
    )
    return Module(tree, imports, aliases, tuple(functions), tuple(classes), helpers)


def module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at import time, looking inside `if`/`try` blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from module_statements(stmt.body)
            yield from module_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody):
                yield from module_statements(block)
            for handler in stmt.handlers:
                yield from module_statements(handler.body)


def _imports(tree: ast.Module) -> dict[str, str]:
    imports: dict[str, str] = {}
    for stmt in module_statements(tree.body):
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


def _aliases(body: list[ast.stmt]) -> dict[str, ast.expr]:
    aliases: dict[str, ast.expr] = {}
    for stmt in module_statements(body):
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


def _dunder_test_false(body: list[ast.stmt]) -> frozenset[str]:
    """Names switched off with `test_x.__test__ = False`."""
    names: set[str] = set()
    for stmt in module_statements(body):
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
        body: list[ast.stmt],
        classes: tuple[ClassInfo, ...],
        collectable: bool,
        not_collected: frozenset[str],
    ) -> None:
        prefix = "::".join(info.node.name for info in classes)
        for stmt in module_statements(body):
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
                self.collect(stmt.body, (*classes, info), collected, frozenset())


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


def key(
    node: ast.AST,
    names: dict[str, str] | None = None,
    *,
    mask: bool = False,
    skip_keywords: frozenset[str] = frozenset(),
) -> str:
    """A layout-free fingerprint of a node; `mask` hides constants (to align edited literals)."""
    return SEP.join(tokens(node, names or {}, mask=mask, skip_keywords=skip_keywords))


def contains(whole: str, part: str) -> bool:
    """Whether the node keyed `part` is a sub-expression of the node keyed `whole`."""
    return f"{SEP}{part}{SEP}" in f"{SEP}{whole}{SEP}"


def tokens(
    node: ast.AST,
    names: dict[str, str],
    *,
    mask: bool = False,
    skip_keywords: frozenset[str] = frozenset(),
) -> list[str]:
    out: list[str] = []
    _tokens(node, names, mask, skip_keywords, out)
    return out


def _tokens(
    value: object, names: dict[str, str], mask: bool, skip: frozenset[str], out: list[str]
) -> None:
    if isinstance(value, ast.Name):
        out.append(names.get(value.id, value.id))
    elif isinstance(value, ast.Constant):
        out.append("#" if mask else repr(value.value))
    elif isinstance(value, list):
        out.append("[")
        for item in value:
            _tokens(item, names, mask, skip, out)
            out.append(",")
        out.append("]")
    elif isinstance(value, ast.AST):
        if isinstance(value, ast.keyword) and value.arg in skip:
            return
        out.append(type(value).__name__)
        out.append("(")
        for name in value._fields:
            _tokens(getattr(value, name, None), names, mask, skip, out)
            out.append(",")
        out.append(")")
    elif not isinstance(value, ast.expr_context):
        out.append(repr(value))


def walk(node: ast.AST) -> list[ast.AST]:
    """The nodes `ast.walk` yields, in the same breadth-first order, as a list (no generators:
    the hunk analysis walks every changed function several times)."""
    found = [node]
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif type(value) is list:
                found.extend(item for item in value if isinstance(item, ast.AST))
    return found


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
