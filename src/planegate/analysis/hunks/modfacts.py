"""Facts about a module's import-time code: module marks, conftest settings, shared data."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from planegate import syntax
from planegate.analysis.hunks.facts import Skip
from planegate.analysis.hunks.keys import key, walk
from planegate.analysis.hunks.marks import SKIP_CALLS, pytestmark_skips, skip_mark
from planegate.analysis.hunks.parsed_module import Module, last_part, module_statements, short
from planegate.analysis.hunks.strategies import is_strategy


@dataclass(frozen=True)
class Entry:
    value: str
    line: int


@dataclass(frozen=True)
class Binding:
    name: str
    node: ast.expr
    key: str
    line: int


@dataclass(frozen=True)
class ModuleFacts:
    skips: tuple[Skip, ...]
    collect_ignore: tuple[Entry, ...]
    plugins: tuple[Entry, ...]
    settings: dict[str, tuple[dict[str, ast.expr], int]]
    profile: Entry | None
    strategies: dict[str, Binding]
    constants: dict[str, Binding]
    filters: int


def _import_time(module: Module) -> list[ast.stmt]:
    return [
        stmt
        for stmt in module_statements(module.tree.body)
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def _target_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AugAssign | ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        growing = isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert")
        if growing and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return [func.value.id]
    return []


def _strings(node: ast.AST, line: int) -> list[Entry]:
    return [
        Entry(child.value, line)
        for child in walk(node)
        if isinstance(child, ast.Constant) and isinstance(child.value, str)
    ]


def module_facts(module: Module) -> ModuleFacts:
    skips: list[Skip] = []
    ignores: list[Entry] = []
    plugins: list[Entry] = []
    settings: dict[str, tuple[dict[str, ast.expr], int]] = {}
    profile: Entry | None = None
    filters = 0
    for stmt in _import_time(module):
        skips.extend(pytestmark_skips(module, stmt))
        names = _target_names(stmt)
        if "collect_ignore" in names or "collect_ignore_glob" in names:
            ignores.extend(_strings(stmt, stmt.lineno))
        if "pytest_plugins" in names:
            plugins.extend(_strings(stmt, stmt.lineno))
        for call in (node for node in walk(stmt) if isinstance(node, ast.Call)):
            name = module.dotted(call.func) or ""
            if name in SKIP_CALLS:
                skips.append(Skip(f"module-level {name}()", call.lineno, f"module {name}()"))
            elif last_part(name) == "param":
                skips.extend(_param_skips(module, call))
            elif last_part(name) == "register_profile" and call.args:
                label = f"profile {short(call.args[0])}"
                settings[label] = (
                    {kw.arg: kw.value for kw in call.keywords if kw.arg},
                    call.lineno,
                )
            elif last_part(name) == "load_profile" and call.args:
                profile = Entry(short(call.args[0]), call.lineno)
            elif _strategy_filter(module, call):
                filters += 1
        _settings_assignment(stmt, module, settings)
    strategies, constants = _bindings(module)
    return ModuleFacts(
        tuple(skips),
        tuple(ignores),
        tuple(plugins),
        settings,
        profile,
        strategies,
        constants,
        filters,
    )


def _strategy_filter(module: Module, call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "filter"
        and is_strategy(module, func.value)
    )


def _param_skips(module: Module, call: ast.Call) -> list[Skip]:
    out: list[Skip] = []
    for keyword in call.keywords:
        if keyword.arg == "marks":
            mark = skip_mark(module, keyword.value)
            if mark:
                what = f"pytest.param(marks={mark})"
                out.append(Skip(what, call.lineno, what + key(call)))
    return out


def _settings_assignment(
    stmt: ast.stmt, module: Module, settings: dict[str, tuple[dict[str, ast.expr], int]]
) -> None:
    """`Machine.TestCase.settings = settings(max_examples=...)`."""
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
        return
    if last_part(module.dotted(stmt.value.func)) != "settings":
        return
    for target in stmt.targets:
        if isinstance(target, ast.Attribute) and target.attr == "settings":
            values = {kw.arg: kw.value for kw in stmt.value.keywords if kw.arg}
            settings[short(target)] = (values, stmt.lineno)


def _bindings(module: Module) -> tuple[dict[str, Binding], dict[str, Binding]]:
    strategies: dict[str, Binding] = {}
    constants: dict[str, Binding] = {}
    for stmt in _import_time(module):
        if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
            continue
        for name in _target_names(stmt):
            binding = Binding(name, stmt.value, key(stmt.value), stmt.lineno)
            if is_strategy(module, stmt.value):
                strategies[name] = binding
            elif name.isupper() and _literal(stmt.value):
                constants[name] = binding
    return strategies, constants


def _literal(node: ast.expr) -> bool:
    try:
        syntax.literal(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True
