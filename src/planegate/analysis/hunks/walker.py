"""Walking one function body: which assertions can run, and why the others never do.

A statement after an early return, under `if False`, in a loop over nothing, in a try that
swallows the failure or under an environment-gated `if` is dead: its assertions prove nothing.
"""

from __future__ import annotations

import ast

from planegate.analysis.hunks.calls import CallReader, exception_names
from planegate.analysis.hunks.facts import Skip
from planegate.analysis.hunks.keys import walk
from planegate.analysis.hunks.parsed_module import Module, last_part, short, truth

SWALLOWED = frozenset({"AssertionError", "Exception", "BaseException"})
STOPS = frozenset({ast.Return, ast.Raise})
# Statements with no statement inside them (`Assert` aside, which `stmt` reads itself).
SIMPLE = frozenset(
    {
        *(ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.Pass),
        *(ast.Delete, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Break),
        ast.Continue,
    }
)


class Walker(CallReader):
    """The facts of one body, statement by statement; `dead` says why a part never runs."""

    def block(self, stmts: list[ast.stmt], dead: str | None) -> None:
        stopped = dead
        for stmt in stmts:
            self.stmt(stmt, stopped)
            if stopped is None and type(stmt) in STOPS:
                word = "return" if isinstance(stmt, ast.Return) else "raise"
                stopped = f"after the early {word} at line {stmt.lineno}"

    def stmt(self, stmt: ast.stmt, dead: str | None) -> None:
        # `type(...) in` first: the statements most bodies are made of, without the chain
        if type(stmt) in SIMPLE:
            self.simple(stmt, dead)
        elif isinstance(stmt, ast.Assert):
            self.assertion(stmt, "assert", dead)
            self.exprs([stmt.test], dead)
        elif isinstance(stmt, ast.If):
            self.branch(stmt, dead)
        elif isinstance(stmt, ast.While | ast.For | ast.AsyncFor):
            self.loop(stmt, dead)
        elif isinstance(stmt, ast.Try):
            self.try_block(stmt, dead)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            self.exprs([item.context_expr for item in stmt.items], dead)
            self.block(stmt.body, dead or self.suppressor(stmt))
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.nested(stmt, dead)
        elif isinstance(stmt, ast.Match):
            self.match(stmt, dead)
        elif not isinstance(stmt, ast.ClassDef):
            self.other(stmt, dead)

    def match(self, stmt: ast.Match, dead: str | None) -> None:
        self.exprs([stmt.subject], dead)
        for case in stmt.cases:
            self.block(case.body, dead)

    def nested(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, dead: str | None) -> None:
        self.exprs(list(stmt.decorator_list), dead)
        unused = None if stmt.name in self.called else f"in nested `{stmt.name}` never called"
        self.block(stmt.body, dead or unused)

    def loop(self, stmt: ast.While | ast.For | ast.AsyncFor, dead: str | None) -> None:
        if isinstance(stmt, ast.While):
            self.exprs([stmt.test], dead)
            never = dead or (
                f"under `while {short(stmt.test)}`" if truth(stmt.test) is False else None
            )
            self.block(stmt.body, never)
        else:
            self.exprs([stmt.iter], dead)
            empty = _empty_sequence(stmt.iter)
            self.block(stmt.body, dead or (f"in a loop over {short(stmt.iter)}" if empty else None))
        self.block(stmt.orelse, dead)

    def try_block(self, stmt: ast.Try, dead: str | None) -> None:
        swallow = self.swallower(stmt)
        self.block(stmt.body, dead or swallow)
        for handler in stmt.handlers:
            self.block(handler.body, dead)
        self.block(stmt.orelse, dead)
        self.block(stmt.finalbody, dead)

    def other(self, stmt: ast.stmt, dead: str | None) -> None:
        inner = [
            c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt | ast.excepthandler)
        ]
        if not inner:
            self.simple(stmt, dead)
            return
        self.exprs([c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)], dead)
        for child in inner:
            if isinstance(child, ast.ExceptHandler):
                self.block(child.body, dead)
            elif isinstance(child, ast.stmt):
                self.stmt(child, dead)

    def simple(self, stmt: ast.stmt, dead: str | None) -> None:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            target = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            name = self.module.dotted(target) or ""
            if name.endswith("SkipTest") or name == "pytest.skip.Exception":
                self.skips.append(Skip(f"raise {last_part(name)}", stmt.lineno, "raise " + name))
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if type(target) is ast.Name:
                    continue  # a local: no patch
                if isinstance(target, ast.Subscript | ast.Attribute) and self._module_target(
                    target
                ):
                    self.patches.append(self.key(stmt))
        self.exprs([stmt], dead)

    def _module_target(self, target: ast.Subscript | ast.Attribute) -> bool:
        root: ast.expr = target
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.module.imports

    def branch(self, stmt: ast.If, dead: str | None) -> None:
        self.exprs([stmt.test], dead)
        value = truth(stmt.test)
        env = _is_env(self.module, stmt.test)
        where = None  # written only when a branch never runs
        if env:
            where = f"under the environment-gated `if {short(stmt.test, 40)}` (line {stmt.lineno})"
        elif value is not None:
            where = f"under `if {short(stmt.test, 40)}` (line {stmt.lineno})"
        self.block(stmt.body, dead or (where if value is False or env else None))
        self.block(stmt.orelse, dead or (where if value is True or env else None))

    def swallower(self, stmt: ast.Try) -> str | None:
        for handler in stmt.handlers:
            names = exception_names(handler.type)
            if not (set(names) & SWALLOWED or names == ["(bare except)"]):
                continue
            reraises = any(
                isinstance(child, ast.Raise)
                or (isinstance(child, ast.Call) and self.assertion_kind(child) is not None)
                or isinstance(child, ast.Assert)
                for node in handler.body
                for child in walk(node)
            )
            if not reraises:
                caught = "except" if handler.type is None else f"except {short(handler.type)}"
                return f"swallowed by `{caught}` (line {handler.lineno})"
        return None

    def suppressor(self, stmt: ast.With | ast.AsyncWith) -> str | None:
        for item in stmt.items:
            call = item.context_expr
            if (
                isinstance(call, ast.Call)
                and last_part(self.module.dotted(call.func)) == "suppress"
            ):
                names = {name for arg in call.args for name in exception_names(arg)}
                if names & SWALLOWED:
                    return f"under `{short(call)}` (line {stmt.lineno})"
        return None


def _empty_sequence(node: ast.expr) -> bool:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return not node.elts
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return (
            len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == 0
        )
    return False


def _is_env(module: Module, test: ast.expr) -> bool:
    for child in walk(test):
        name = module.dotted(child) if isinstance(child, ast.Attribute | ast.Name) else None
        if name and (name.startswith("os.environ") or name == "os.getenv"):
            return True
    return False
