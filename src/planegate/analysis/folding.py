"""Constant folding for the reach review: the string an expression of literals spells, and the
dotted name an expression of imports reaches, without running anything.

`"_py" + "test"`, `"".join(["s", "ys"])`, `f"{'mod'}ules"`, `"%s" % "x"`, `"{}".format("x")`,
`"tsetyp"[::-1]`, `chr(112)`, `str("x")`, `b"x".decode()` and names bound once to such an
expression all fold to their string; `__import__("s" + "ys")`, `importlib.import_module(...)`,
`getattr(sys, "mod" + "ules")` and names bound to them resolve to the dotted name they reach
(`sys.modules`). Anything else folds to None: the review then treats it as computed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

MAX_FOLDED = 10_000  # a folded string longer than this is not built (`"a" * 10**9`)
IMPORTERS = frozenset({"__import__", "importlib.import_module", "importlib.__import__"})
GETTERS = frozenset({"getattr", "builtins.getattr", "inspect.getattr_static"})
# builtins that reach: a name bound to one of them (`run = exec`) is an alias of it
REACHING_BUILTINS = frozenset(
    {"exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals", "locals",
     "__import__", "__builtins__"}
)  # fmt: skip


@dataclass
class Scope:
    """What the names of one module are bound to, flow-insensitively: every dotted name an
    import or an assignment binds a name to (a name bound twice may reach either), and the
    string a name spells when every assignment of it folds to that one string."""

    aliases: dict[str, frozenset[str]] = field(default_factory=dict)  # name -> dotted names
    strings: dict[str, str] = field(default_factory=dict)  # local name -> folded string
    choices: dict[str, frozenset[str]] = field(default_factory=dict)  # every string it folds to

    def fold(self, node: ast.AST | None) -> str | None:
        """The string `node` spells, or None."""
        return _fold(node, self, 0)

    def resolve(self, node: ast.AST | None) -> str | None:
        """A dotted name `node` reaches (`sys.modules`, `frame.f_back`), or None."""
        return min(self.resolve_all(node), default=None)

    def resolve_all(self, node: ast.AST | None) -> frozenset[str]:
        """Every dotted name `node` may reach, local roots included (`frame.f_back`);
        `builtins.exec` is `exec`."""
        names = _resolve(node, self, 0, strict=False)
        return frozenset(name.removeprefix("builtins.") for name in names)

    def reached(self, node: ast.AST | None) -> frozenset[str]:
        """Every dotted name `node` may reach through an import (none when its root is a
        local value, not something imported): `sys.modules`, never `frame.f_back`."""
        return _resolve(node, self, 0, strict=True)


def scope_of(tree: ast.AST) -> Scope:
    scope = _imports(tree)
    bindings: dict[str, list[ast.expr]] = {}
    for name, value in _bindings(tree):
        bindings.setdefault(name, []).append(value)
    for _ in range(3):  # chains of bindings (`a = "x"; b = a + "y"`) settle in a few rounds
        for name, values in bindings.items():
            texts = {scope.fold(value) for value in values}
            if None not in texts and name not in scope.aliases:
                scope.choices[name] = frozenset(t for t in texts if t is not None)
                if len(texts) == 1:
                    scope.strings[name] = texts.pop() or ""
            reached = frozenset().union(*(scope.reached(value) for value in values))
            if reached:
                scope.aliases[name] = scope.aliases.get(name, frozenset()) | reached
    return scope


def _imports(tree: ast.AST) -> Scope:
    scope = Scope()
    _bind(scope, "__builtins__", "builtins")  # the module (or its dict) every module sees
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".", 1)[0]
                _bind(scope, alias.asname or top, alias.name if alias.asname else top)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                _bind(scope, alias.asname or alias.name, f"{node.module}.{alias.name}")
    return scope


def _bind(scope: Scope, name: str, dotted: str) -> None:
    scope.aliases[name] = scope.aliases.get(name, frozenset()) | {dotted}


def _bindings(tree: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
            target, value = node.target, node.value
            if isinstance(target, ast.Name) and value is not None:
                yield target.id, value


def _fold(node: ast.AST | None, scope: Scope, depth: int) -> str | None:
    if node is None or depth > 50:
        return None
    depth += 1
    text: str | None = None
    if isinstance(node, ast.Constant):
        value = node.value
        text = value if isinstance(value, str) else None
        if isinstance(value, bytes):
            text = value.decode("latin-1")
    elif isinstance(node, ast.Name):
        text = scope.strings.get(node.id)
    elif isinstance(node, ast.BinOp):
        text = _fold_binop(node, scope, depth)
    elif isinstance(node, ast.JoinedStr):
        parts = [_fold_part(part, scope, depth) for part in node.values]
        text = None if None in parts else "".join(p for p in parts if p is not None)
    elif isinstance(node, ast.Subscript):
        text = _fold_slice(node, scope, depth)
    elif isinstance(node, ast.Call):
        text = _fold_call(node, scope, depth)
    return text if text is None or len(text) <= MAX_FOLDED else None


def _fold_part(node: ast.expr, scope: Scope, depth: int) -> str | None:
    if isinstance(node, ast.FormattedValue):
        if node.format_spec is not None:
            return None
        return _fold(node.value, scope, depth)
    return _fold(node, scope, depth)


def _fold_binop(node: ast.BinOp, scope: Scope, depth: int) -> str | None:
    left = _fold(node.left, scope, depth)
    if left is None:
        return None
    if isinstance(node.op, ast.Add):
        right = _fold(node.right, scope, depth)
        return None if right is None else left + right
    if isinstance(node.op, ast.Mod):
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = _fold_all(args, scope, depth)
        return None if values is None else _safe(lambda: left % tuple(values))
    return None


def _fold_all(nodes: list[ast.expr], scope: Scope, depth: int) -> list[str] | None:
    values = [_fold(arg, scope, depth) for arg in nodes]
    return None if None in values else [v for v in values if v is not None]


def _fold_slice(node: ast.Subscript, scope: Scope, depth: int) -> str | None:
    text = _fold(node.value, scope, depth)
    index = node.slice
    if text is None:
        return None
    if isinstance(index, ast.Slice):
        bounds = [_int(part) for part in (index.lower, index.upper, index.step)]
        if any(b is False for b in bounds):
            return None
        lower, upper, step = (None if b is False else b for b in bounds)
        return _safe(lambda: text[slice(lower, upper, step)])
    number = _int(index)
    return None if number is None or number is False else _safe(lambda: text[number])


def _int(node: ast.expr | None) -> int | bool | None:
    """An int literal's value, None for no bound, False for anything else."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else False
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return False


def _fold_call(node: ast.Call, scope: Scope, depth: int) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        owner = _fold(func.value, scope, depth)
        if owner is None:
            return None
        if func.attr == "join" and len(node.args) == 1:
            items = node.args[0]
            if isinstance(items, (ast.List, ast.Tuple)):
                parts = _fold_all(items.elts, scope, depth)
                return None if parts is None else owner.join(parts)
            inner = _fold(items, scope, depth)  # "".join("abc") joins characters
            return None if inner is None else owner.join(inner)
        if func.attr == "format":
            values = _fold_all(node.args, scope, depth)
            return None if values is None else _safe(lambda: owner.format(*values))
        if func.attr in ("decode", "lower", "upper", "strip", "casefold") and not node.args:
            return getattr(owner, func.attr)() if func.attr != "decode" else owner
        if func.attr == "replace" and len(node.args) == 2:
            values = _fold_all(node.args, scope, depth)
            return None if values is None else owner.replace(values[0], values[1])
        return None
    name = scope.resolve(func)
    if name in ("chr", "builtins.chr") and len(node.args) == 1:
        number = _int(node.args[0])
        return None if number is None or number is False else _safe(lambda: chr(number))
    if name in ("str", "bytes") and len(node.args) == 1:
        return _fold(node.args[0], scope, depth)
    return None


def _safe(make: object) -> str | None:
    try:
        value = make()  # type: ignore[operator]
    except (ValueError, TypeError, IndexError, KeyError, OverflowError):
        return None
    return value if isinstance(value, str) else None


def _resolve(node: ast.AST | None, scope: Scope, depth: int, *, strict: bool) -> frozenset[str]:
    none: frozenset[str] = frozenset()
    if node is None or depth > 50:
        return none
    depth += 1
    if isinstance(node, ast.Name):
        found = scope.aliases.get(node.id)
        if found is None and (not strict or node.id in REACHING_BUILTINS):
            found = frozenset({node.id})  # `run = exec` binds run to exec
        return found if found is not None else none
    if isinstance(node, ast.Attribute):
        inner = _resolve(node.value, scope, depth, strict=strict)
        return frozenset(f"{name}.{node.attr}" for name in inner)
    if isinstance(node, ast.Call):
        return _resolve_call(node, scope, depth, strict=strict)
    if isinstance(node, ast.Subscript):  # vars(m)["x"], m.__dict__["x"], sys.modules["m"]
        key = _fold(node.slice, scope, depth)
        if key is None:
            return none
        if "sys.modules" in _resolve(node.value, scope, depth, strict=True):
            return frozenset({key})
        owners = _dict_owner(node.value, scope, depth, strict=strict)
        return frozenset(f"{owner}.{key}" for owner in owners)
    return none


def _resolve_call(node: ast.Call, scope: Scope, depth: int, *, strict: bool) -> frozenset[str]:
    funcs = _resolve(node.func, scope, depth, strict=False)
    first = node.args[0] if node.args else None
    if funcs & IMPORTERS:
        # __import__("a.b") gives back `a`; import_module("a.b") gives `a.b`
        top = "importlib.import_module" not in funcs and not node.keywords
        return frozenset(m.split(".", 1)[0] if top else m for m in _folds(first, scope, depth))
    if funcs & GETTERS and len(node.args) >= 2:
        owners = _resolve(first, scope, depth, strict=strict)
        attrs = _folds(node.args[1], scope, depth)
        return frozenset(f"{owner}.{attr}" for owner in owners for attr in attrs)
    return frozenset()


def _folds(node: ast.AST | None, scope: Scope, depth: int) -> frozenset[str]:
    """Every string `node` may spell: a name assigned several folded strings spells each."""
    if isinstance(node, ast.Name) and node.id in scope.choices:
        return scope.choices[node.id]
    text = _fold(node, scope, depth)
    return frozenset({text}) if text else frozenset()


def _dict_owner(node: ast.expr, scope: Scope, depth: int, *, strict: bool) -> frozenset[str]:
    if "builtins" in _resolve(node, scope, depth, strict=True):
        return frozenset({"builtins"})  # __builtins__["exec"] (a dict outside __main__)
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return _resolve(node.value, scope, depth, strict=strict)
    if (
        isinstance(node, ast.Call)
        and node.args
        and "vars" in _resolve(node.func, scope, depth, strict=False)
    ):
        return _resolve(node.args[0], scope, depth, strict=strict)
    return frozenset()
