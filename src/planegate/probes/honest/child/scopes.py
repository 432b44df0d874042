"""What the names of a test's scopes hold, for the assert split (`operands.py`): whether a
value is one the test made itself, and the callee a local was assigned from.

A scope's bindings are found in one loop over its own nodes (nested functions, classes and
lambdas apart), each node's children read from a table of the fields that can hold nodes:
no generator per node, no walk into the operators and contexts of every expression.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Mapping
from typing import Any

MADE_LEAVES = frozenset({ast.Constant, ast.Slice})
MADE_PARTS = frozenset(
    {
        ast.Attribute,
        ast.Subscript,
        ast.Call,
        ast.List,
        ast.Tuple,
        ast.Set,
        ast.Dict,
        ast.BinOp,
        ast.UnaryOp,
        ast.BoolOp,
        ast.Compare,
        ast.IfExp,
        ast.JoinedStr,
        ast.FormattedValue,
        ast.Starred,
        ast.keyword,
    }
)
NESTED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})  # named scopes
IMPORTS = frozenset({ast.Import, ast.ImportFrom})
DECLARED = frozenset({ast.Global, ast.Nonlocal})
PLAIN = frozenset({ast.Assign, ast.AnnAssign, ast.For, ast.AsyncFor})
# fields that never hold a node that binds or holds one: names, operators, contexts
NOT_NODES = frozenset(
    {"ctx", "op", "ops", "id", "name", "attr", "arg", "asname", "module", "level", "names"}
    | {"conversion", "kind", "type_comment", "is_async", "simple", "tag", "kwd_attrs"}
)
MAX_TEXT = 80
READ = frozenset({ast.Load, type(None)})
DIRECT_CONSTANTS = frozenset({int, str, bytes, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}
Binding = tuple[str, ast.expr | None, ast.AST]


def fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that can hold nodes."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f for f in kind._fields if f not in NOT_NODES)  # type: ignore[attr-defined]
    return found


class Scope:
    """What the names of one scope hold: True for a value the test made itself. Names bound
    nowhere are builtins (made); `calls`: a local assigned once from a call, its callee."""

    def __init__(
        self,
        module: Mapping[str, bool],
        local: Mapping[str, bool],
        calls: Mapping[str, ast.expr],
    ) -> None:
        self.module, self.local, self.calls = module, local, calls

    def made(self, node: ast.AST) -> bool:
        kind = type(node)
        if kind is ast.Name:
            name = node.id  # type: ignore[attr-defined]
            if name in self.local:
                return self.local[name]
            return self.module.get(name, True)
        if kind in MADE_LEAVES:
            return True
        if kind not in MADE_PARTS:
            return False
        for field in fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                if not all(self.made(v) for v in value if isinstance(v, ast.AST)):
                    return False
            elif isinstance(value, ast.AST) and not self.made(value):
                return False
        return True

    def callee(self, node: ast.expr) -> str:
        if isinstance(node, ast.Call):
            return text(node.func)
        if isinstance(node, ast.Name):
            func = self.calls.get(node.id)
            return "" if func is None else text(func)
        return ""


def bindings(scope: ast.AST, busy: list[int] | None = None) -> list[Binding]:
    """Each name a scope binds (nested blocks too; nested functions and classes bind only
    their own name, lambdas nothing), with the value of a plain assignment or `for` (None for
    any other binding) and the binding node, in the order of a depth-first walk (a module's
    names are read in that order: a name used before it is bound is a builtin's). `busy`: the
    lines that spell `for` or `:=`, when known; an expression on none of them is not read."""
    found: list[Binding] = []
    plain: dict[int, ast.expr] = {}
    stack: list[Any] = [scope]
    while stack:
        node = stack.pop()
        if node is not scope and not _bound(node, found, plain):
            continue
        children: list[Any] = []
        for field in fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                children += value
            elif isinstance(value, ast.AST):
                children.append(value)
        if busy is not None and not isinstance(node, ast.expr):
            children = [child for child in children if not _quiet(child, busy)]
        stack += reversed(children)  # popped in the order `ast.walk` would meet them
    return found


def _quiet(node: Any, busy: list[int]) -> bool:
    """An expression read, not assigned to, none of whose lines spells `for` or `:=`: it
    binds nothing (only a comprehension or an assignment expression bind inside one)."""
    if not isinstance(node, ast.expr) or type(getattr(node, "ctx", None)) not in READ:
        return False
    at = bisect.bisect_left(busy, node.lineno)
    return at == len(busy) or busy[at] > (node.end_lineno or node.lineno)


def _bound(node: Any, found: list[Binding], plain: dict[int, ast.expr]) -> bool:
    """Add what a node binds in its own scope; whether its children belong to the scope."""
    kind = type(node)
    if kind is ast.Name:
        if type(node.ctx) is not ast.Load and node.id:
            found.append((node.id, plain.get(id(node)), node))
        return False
    if kind in NESTED:
        found.append((node.name, None, node))
        return False
    if kind in IMPORTS:
        found.extend((a.asname or a.name.split(".")[0], None, node) for a in node.names)
        return False
    if kind in DECLARED:
        found.extend((name, None, node) for name in node.names)
        return False
    if kind is ast.Lambda or not isinstance(node, ast.AST):
        return False
    if isinstance(node, ast.ExceptHandler) and node.name:
        found.append((node.name, None, node))
    elif kind in PLAIN:
        for name_node, value in _plain_targets(node):
            plain[id(name_node)] = value
    return True


def module_names(
    body: list[ast.stmt], packages: frozenset[str], busy: list[int] | None = None
) -> dict[str, bool]:
    """Module-level names (nested blocks too): imports from outside the project and constants
    the test made are made; functions, classes and the rest are not (calling them may reach
    the project)."""
    names: dict[str, bool] = {}
    scope = Scope(names, {}, {})
    for name, value, node in bindings(ast.Module(body, []), busy):
        if isinstance(node, ast.Import | ast.ImportFrom):
            outside = dict(_imported(node, packages)).get(name, False)
            names[name] = outside and names.get(name, True)
        else:
            names[name] = value is not None and scope.made(value) and names.get(name, True)
    return names


def _imported(statement: ast.Import | ast.ImportFrom, packages: frozenset[str]) -> list[Any]:
    if isinstance(statement, ast.Import):
        return [
            (a.asname or a.name.split(".")[0], a.name.split(".")[0] not in packages)
            for a in statement.names
        ]
    top = (statement.module or "").split(".")[0]
    outside = statement.level == 0 and top not in packages
    return [(a.asname or a.name, outside) for a in statement.names]


def function_scope(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    module: Scope,
    params: frozenset[str],
    busy: list[int] | None = None,
) -> Scope:
    """A function's locals: parameters are made only when parametrize rows the test made
    give them; other locals when every binding is a plain assignment of a made value."""
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    local: dict[str, bool] = {a.arg: a.arg in params for a in every}
    values: dict[str, list[ast.expr]] = {}
    unknown = ast.Await(ast.Constant(None))  # bound otherwise than by a plain assignment
    for name, value, _ in bindings(node, busy):
        values.setdefault(name, []).append(unknown if value is None else value)
    for name, assigned in values.items():
        if name in local:  # a parameter assigned again: what it holds is no longer the row's
            assigned.append(unknown)
    local.update({name: True for name in values})
    scope = Scope(module.module, local, {})
    changed = True
    while changed:  # the greatest fixpoint: a local is made while all its values are
        changed = False
        for name, assigned in values.items():
            if local[name] and not all(scope.made(v) for v in assigned):
                local[name] = False
                changed = True
    calls = {
        name: assigned[0].func
        for name, assigned in values.items()
        if len(assigned) == 1 and isinstance(assigned[0], ast.Call)
    }
    return Scope(module.module, local, calls)


def _plain_targets(node: ast.AST) -> list[tuple[ast.Name, ast.expr]]:
    """For a plain assignment (or a `for` over an iterable), each target name node and the
    value standing for it (the whole value for an unpacked tuple)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    elif isinstance(node, ast.For | ast.AsyncFor):
        targets, value = [node.target], node.iter
    else:
        return []
    return [(name, value) for target in targets for name in _target_names(target)]


def _target_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def parametrized(node: ast.AST, module: Scope) -> frozenset[str]:
    """Argument names `@pytest.mark.parametrize` gives from rows the test made itself."""
    found: set[str] = set()
    for decorator in getattr(node, "decorator_list", ()):
        if not (isinstance(decorator, ast.Call) and text(decorator.func).endswith("parametrize")):
            continue
        args: dict[str, ast.expr | None] = {"argnames": None, "argvalues": None}
        for key, value in zip(args, decorator.args, strict=False):
            args[key] = value
        args.update({k.arg: k.value for k in decorator.keywords if k.arg in args})
        names, rows = args["argnames"], args["argvalues"]
        if names is None or rows is None or not module.made(rows):
            continue
        if isinstance(names, ast.Constant) and isinstance(names.value, str):
            found.update(part.strip() for part in names.value.split(","))
        elif isinstance(names, ast.List | ast.Tuple):
            found.update(
                e.value
                for e in names.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
    return frozenset(found)


def text(node: ast.AST) -> str:
    """`ast.unparse` of an operand, cut to MAX_TEXT: names, attributes, calls, subscripts
    and plain constants written directly (as `ast.unparse` writes them), the rest by it."""
    found = _direct(node)
    if found is None:
        try:
            found = ast.unparse(node)
        except Exception:
            return ""
    return found if len(found) <= MAX_TEXT else found[: MAX_TEXT - 3] + "..."


def _direct(node: Any) -> str | None:
    """What `ast.unparse` writes for the simplest expressions (None for any other)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[no-any-return]
    if kind is ast.Constant:
        plain = node.kind is None and type(node.value) in DIRECT_CONSTANTS
        return repr(node.value) if plain else None
    if kind is ast.Attribute:
        inner = None if type(node.value) is ast.Constant else _direct(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    if kind is ast.Subscript:
        if type(node.slice) in (ast.Tuple, ast.Slice):
            return None
        inner, index = _direct(node.value), _direct(node.slice)
        return None if inner is None or index is None else f"{inner}[{index}]"
    if kind is not ast.Call:
        return None
    parts = [_direct(node.func), *map(_direct, node.args)]
    for keyword in node.keywords:
        value = _direct(keyword.value)
        parts.append(None if keyword.arg is None or value is None else f"{keyword.arg}={value}")
    if None in parts:
        return None
    return f"{parts[0]}({', '.join(parts[1:])})"  # type: ignore[arg-type]
