"""The reach review (PG590-PG595): production code that reaches beyond its domain, found by
what it can do, never by how it is spelled.

One walk of a module's AST looks every construct up in the capability table
(`analysis/reach_table.py`): attribute names (`f_back`, `tb_frame`, `__globals__`), the dotted
names imports reach (`sys.modules`, `gc.*`, `ctypes`), callables whose argument is computed
(`getattr`, `exec`, `__import__`), signal handlers that use their frame, writes into modules
the project does not own, and strings that name the harness or `/proc`. Names are resolved
through imports, aliases, `getattr` and `__import__` with folded arguments, and strings are
folded from their pieces (`analysis/folding.py`), so `getattr(__import__("s" + "ys"),
"mod" + "ules")` is `sys.modules`. The production-code scan (`analysis/prodscan.py`) runs it
on the base and head versions of each changed file and reports what the head adds.
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from planegate import syntax
from planegate.analysis import reach_table as table
from planegate.analysis.folding import Scope, scope_of
from planegate.analysis.reach_table import Capability

BUILTIN_NAMES = frozenset(dir(builtins))
MAX_NESTED = 3  # code handed to exec() as a folded string is read this deep
COMPOSITES = (ast.BinOp, ast.JoinedStr, ast.Call, ast.Subscript)


RULES = frozenset(
    {table.FRAMES, table.INTERPRETER, table.DUNDER, table.COMPUTED, table.NATIVE, table.OUTSIDE}
)


@dataclass(frozen=True)
class Review:
    """Who reviews the reach review's findings (a person: the plane's owner), and the
    project's own top-level packages (a write into one of them reaches nothing foreign)."""

    owner: str
    own: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Reach:
    line: int
    capability: Capability
    key: str  # the construct as written, to match base and head versions
    subject: str  # what the line does, as the message quotes it

    @property
    def message(self) -> str:
        capability = self.capability
        review = "a person reviews this line" if capability.risk == "high" else "worth a look"
        return f"production code {capability.what}: {self.subject} ({review})"


def review(tree: ast.AST, own: frozenset[str] = frozenset(), depth: int = 0) -> list[Reach]:
    """Every reach of a module, one per line and capability (the highest risk on a line wins)."""
    reviewer = _Review(scope_of(tree), own, _docstrings(tree), _functions(tree), depth)
    reviewer.visit(tree)
    return _strongest(reviewer.found)


def _strongest(found: list[Reach]) -> list[Reach]:
    high = {r.line for r in found if r.capability.risk == "high"}
    kept: dict[tuple[int, str], Reach] = {}
    for reach in found:
        if reach.capability.risk == "medium" and reach.line in high:
            continue
        kept.setdefault((reach.line, reach.capability.rule), reach)
    return sorted(kept.values(), key=lambda r: (r.line, r.capability.rule))


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _functions(tree: ast.AST) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {
        node.name: node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _snippet(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 80 else text[:77] + "..."


class _Review(ast.NodeVisitor):
    def __init__(
        self,
        scope: Scope,
        own: frozenset[str],
        docstrings: set[int],
        functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
        depth: int,
    ) -> None:
        self.scope = scope
        self.own = own
        self.docstrings = docstrings
        self.functions = functions
        self.depth = depth
        self.found: list[Reach] = []
        self.settled: dict[int, Capability | None] = {}  # sys.modules nodes read for one name

    def add(self, node: ast.AST, capability: Capability, subject: str | None = None) -> None:
        text = subject or f"`{_snippet(node)}`"
        key = f"{capability.rule}:{capability.what}:{self._shape(node)}"
        self.found.append(Reach(getattr(node, "lineno", 1), capability, key, text))

    def _shape(self, node: ast.AST) -> str:
        """The construct with its local names blanked: renaming a variable does not make an
        old reach new (what is imported, and every attribute and literal, still counts)."""
        names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
        saved = [n.id for n in names]
        for name in names:
            if name.id not in self.scope.aliases and name.id not in BUILTIN_NAMES:
                name.id = "_"
        try:
            return ast.unparse(node)[:300]
        finally:
            for name, original in zip(names, saved, strict=True):
                name.id = original

    # names reached through imports -----------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._named(node, [alias.name], f"`import {alias.name}`")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        # a module of the table is stopped where it is imported; a name imported from one
        # (`from sys import modules`) where it is used
        if node.module and not node.level and node.module.split(".")[0] in table.MODULES:
            self._named(node, [node.module], f"`from {node.module} import ...`")

    def _named(self, node: ast.AST, dotted: Iterable[str], subject: str | None) -> bool:
        """A hit when a name `node` may reach is a row of the table (or a module of one);
        True if so."""
        for name in sorted(dotted):
            capability = table.NAMES.get(name) or table.MODULES.get(name.split(".", 1)[0])
            if name == "sys.modules" and id(node) in self.settled:
                capability = self.settled[id(node)]
            if capability is not None:
                self.add(node, capability, subject)
                return True
        return False

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.scope.aliases:
            self._named(node, self.scope.reached(node), None)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            row = table.ATTRIBUTES.get(node.attr)
            if row is not None:
                self.add(node, row)
            elif node.attr == "__dict__" and self.scope.reached(node.value):
                self.add(node, table.MODULE_DICT)
            if self._named(node, self.scope.reached(node), None):
                return  # `sys.modules` found once, not again as `sys`
        else:
            self._written(node, node.value, node.attr)
        self.generic_visit(node)

    def _written(self, node: ast.AST, target: ast.expr, attr: str | None) -> None:
        row = table.WRITTEN_ATTRIBUTES.get(attr or "")
        if row is not None:
            self.add(node, row)
        if self._foreign(target):
            sensitive = any(_sensitive(name) for name in self.scope.reached(target))
            self.add(node, table.FOREIGN_WRITE if sensitive else table.FOREIGN_SETTING)

    def _foreign(self, node: ast.expr) -> bool:
        """`node` may be something imported from outside the project."""
        return any(name.split(".", 1)[0] not in self.own for name in self.scope.reached(node))

    # sys.modules read for one module by name -------------------------------------------
    def visit_Subscript(self, node: ast.Subscript) -> None:
        if "sys.modules" in self.scope.reached(node.value):
            self._one_module(node.value, node.slice)
        if self._folded(node):
            return
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        ops = node.ops
        membership = len(ops) == 1 and isinstance(ops[0], (ast.In, ast.NotIn))
        if membership and "sys.modules" in self.scope.reached(node.comparators[0]):
            self._one_module(node.comparators[0], node.left)
        self.generic_visit(node)

    def _one_module(self, modules: ast.expr, key: ast.expr) -> None:
        """`sys.modules[__name__]` is the module itself; a literal name is a medium; anything
        else (a computed key, iteration, the whole mapping) stays high."""
        if isinstance(key, ast.Name) and key.id in ("__name__", "__package__"):
            self.settled[id(modules)] = None
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            self.settled[id(modules)] = table.MODULES_BY_NAME

    # calls -----------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        for func in sorted(self.scope.resolve_all(node.func)):
            self._call(node, func)
        method = node.func if isinstance(node.func, ast.Attribute) else None
        getter = method is not None and method.attr == "get" and bool(node.args)
        if method and getter and "sys.modules" in self.scope.reached(method.value):
            self._one_module(method.value, node.args[0])
        if self._named(node, self.scope.reached(node), None) or self._folded(node):
            return
        self.generic_visit(node)

    def _call(self, node: ast.Call, func: str) -> None:
        if func in table.COMPUTED_ARGUMENTS:
            self._computed(node, func)
        elif func in table.NAMESPACES:
            if node.args and self.scope.reached(node.args[0]):
                self.add(node, table.MODULE_DICT)
            elif not node.args:
                self.add(node, table.NAMESPACES[func])
        elif func == "signal.signal" and len(node.args) >= 2:
            self._signal(node, node.args[1])

    def _computed(self, node: ast.Call, func: str) -> None:
        position, row = table.COMPUTED_ARGUMENTS[func]
        if len(node.args) <= position:
            return
        argument = node.args[position]
        text = self.scope.fold(argument)
        if text is None:
            self._unfolded(node, func, row, argument)
        elif func in ("getattr", "operator.attrgetter", "operator.methodcaller"):
            if text.split(".")[-1] in table.ATTRIBUTES:
                self.add(node, table.ATTRIBUTES[text.split(".")[-1]])
        elif func in ("setattr", "delattr"):
            self._written(node, node.args[0], text)
        elif func in ("eval", "exec", "compile"):
            self.add(node, table.LITERAL_CODE)
            self._nested(node, text)

    def _unfolded(self, node: ast.Call, func: str, row: Capability, argument: ast.expr) -> None:
        if func in ("getattr", "setattr", "delattr"):
            target = node.args[0]
            if isinstance(target, ast.Name) and target.id in ("self", "cls"):
                return  # an object's own attributes: reaching further takes a dunder
            if self._foreign(target):
                row = table.ON_MODULE
        elif row.risk == "high" and func not in ("eval", "exec", "compile"):  # noqa: SIM102
            if _own_prefix(argument, self.own):
                row = Capability(row.rule, "medium", row.what + " (one of the project's own)")
        self.add(node, row)

    def _nested(self, node: ast.Call, code: str) -> None:
        """Code handed to exec() as a folded string is read as code, at the call's line."""
        if self.depth >= MAX_NESTED:
            return
        try:
            tree = syntax.parse(code)
        except (SyntaxError, ValueError):
            return
        for inner in review(tree, self.own, self.depth + 1):
            subject = f"`{_snippet(node)}` runs code that {inner.capability.what}"
            self.add(node, inner.capability, subject)

    def _signal(self, node: ast.Call, handler: ast.expr) -> None:
        function: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | None = None
        if isinstance(handler, ast.Lambda):
            function = handler
        elif isinstance(handler, ast.Name) and handler.id in self.functions:
            function = self.functions[handler.id]
        elif isinstance(handler, ast.Attribute) and handler.attr in self.functions:
            function = self.functions[handler.attr]  # self._on_term: a method of the module
        if function is None:
            name = self.scope.resolve(handler)
            if name not in ("signal.SIG_DFL", "signal.SIG_IGN", "None"):
                self.add(node, table.SIGNAL_UNSEEN)
            return
        arguments = function.args
        params = [*arguments.posonlyargs, *arguments.args]
        method = isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        if method and params and params[0].arg in ("self", "cls"):
            params = params[1:]
        frame = params[1].arg if len(params) >= 2 else None
        body = [function.body] if isinstance(function, ast.Lambda) else function.body
        used = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name)}
        if arguments.vararg is not None or (frame is not None and frame in used):
            self.add(node, table.SIGNAL_FRAME)

    # strings ---------------------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.docstrings:
            self._text(node, node.value, built=False)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if not self._folded(node):
            self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if not self._folded(node):
            self.generic_visit(node)

    def _folded(self, node: ast.expr) -> bool:
        """A string built from literal pieces, judged as the whole it spells; True if it
        folds (its pieces are then not judged one by one)."""
        if not isinstance(node, COMPOSITES):
            return False
        text = self.scope.fold(node)
        if text is None:
            return False
        self._text(node, text, built=True)
        return True

    def _text(self, node: ast.AST, text: str, *, built: bool) -> None:
        stripped = text.strip()
        if stripped.startswith("/proc/") or stripped == "/proc":
            self.add(node, table.PROC, f"`{_snippet(node)}` is {stripped[:60]!r}")
            return
        parts = stripped.split(".")
        if parts[0] in table.HARNESS and all(part.isidentifier() for part in parts):
            row = table.HARNESS_BUILT if built else table.HARNESS_LITERAL
            self.add(node, row, f"`{_snippet(node)}` is {stripped!r}")
            return
        named = table.ATTRIBUTES.get(stripped)
        if named is not None and (built or named.risk == "high"):
            self.add(node, named, f"`{_snippet(node)}` is {stripped!r}")


def _sensitive(dotted: str) -> bool:
    """A module whose state tests depend on: the standard library, the harness, or one whose
    name says it is for tests (`numpy.testing`)."""
    parts = dotted.split(".")
    return (
        parts[0] in sys.stdlib_module_names
        or parts[0] in table.HARNESS
        or any("test" in part for part in parts)
    )


def _own_prefix(node: ast.expr, own: frozenset[str]) -> bool:
    """An import name that starts with the module's own package (`f"{__name__}.x"`,
    `"." + name`, `"mypkg." + name`): it can reach only the project's own modules."""
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            node = node.left
        elif isinstance(node, ast.JoinedStr) and node.values:
            node = node.values[0]
        elif isinstance(node, ast.FormattedValue):
            node = node.value
        else:
            break
    if isinstance(node, ast.Name):
        return node.id in ("__name__", "__package__")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        head = node.value
        return head.startswith(".") or ("." in head and head.split(".", 1)[0] in own)
    return False
