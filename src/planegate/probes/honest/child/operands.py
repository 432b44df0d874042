"""Which values main's asserts compare, split out so each can be checked (child side).

Before pytest rewrites a test module's asserts (main's test files are trusted), each
comparison is split: its operands are evaluated once into hidden names, handed to the check,
then compared as before (pytest's explanation still shows them); a comparing method's first
two arguments are the check's own return value (it returns what it was given). Split are `assert`
statements whose test is a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `not in`,
chains too), the comparing `unittest` assert methods (`assertEqual`, `assertIn`,
`assertLess`, ... called on anything), and a comparison handed to `assertTrue`/`assertFalse`.

Each operand also carries, from the test's own source: its text, the callee that produced it
when it is a call (or a local assigned once from one), and whether the test made it itself:
literals, displays, names bound only to such values (module constants, locals, parametrize
arguments whose rows are such values), imports from modules outside the project, and calls of
those (`mock.ANY`, `pytest.approx(3)`, `{"id": ANY}`). A value the test made is its own
expectation and is not held to honest equality; every other one (what a call of the
project's code, a fixture, `self`, a helper returned) is.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import Any

from planegate.probes.honest.child import scopes
from planegate.runner.child import rewrite_import

CHECK = "_honest_operands"  # set on _pytest.assertion.rewrite, which rewritten modules import
ALIAS = "@honest_ar"  # not a valid identifier: no clash with the test's own names
OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
}
# unittest's comparing assert methods: the operator their first two arguments meet with
METHODS = {
    "assertEqual": "==",
    "assertEquals": "==",
    "assertListEqual": "==",
    "assertTupleEqual": "==",
    "assertDictEqual": "==",
    "assertSetEqual": "==",
    "assertSequenceEqual": "==",
    "assertMultiLineEqual": "==",
    "assertAlmostEqual": "~",
    "assertCountEqual": "~",
    "assertNotEqual": "!=",
    "assertLess": "<",
    "assertLessEqual": "<=",
    "assertGreater": ">",
    "assertGreaterEqual": ">=",
    "assertIn": "in",
    "assertNotIn": "not in",
}
TRUTH = frozenset({"assertTrue", "assertFalse", "assert_"})


def transform(
    module: ast.Module, where: str, packages: frozenset[str], source: bytes | None = None
) -> int:
    """Split the module's comparisons in place (`where`: its path, for the record;
    `packages`: the project's top-level names; `source`: the text the module was parsed
    from, when known: a statement whose lines never spell `assert` is left unread); returns
    how many were split."""
    lines = lines_of(source, ASSERTS)
    if lines is not None and not lines:
        return 0
    splitter = _Splitter(where, module.body, packages, lines)
    splitter.busy = lines_of(source, BINDING)
    module.body = splitter.body(module.body)
    if splitter.count:
        rewrite_import.insert(module, ALIAS)
        # every node the split made is placed where it is made (`_at`): only the import
        # is left to place, as `ast.fix_missing_locations` would over the whole module
        for statement in module.body:
            if isinstance(statement, ast.Import) and statement.names[0].asname == ALIAS:
                ast.fix_missing_locations(statement)
    return splitter.count


ASSERTS = re.compile(rb"assert")  # the keyword, and every method split: all `assert...`
BINDING = re.compile(rb"\bfor\b|:=")  # what binds a name inside an expression


def lines_of(source: bytes | None, pattern: re.Pattern[bytes]) -> list[int] | None:
    """The numbers of the lines where `pattern` matches, in order; None when lines cannot be
    told from the bytes alone (no source, a name written in other than ASCII, a lone
    carriage return)."""
    if type(source) is not bytes or not source.isascii():
        return None
    if b"\r" in source and source.count(b"\r") != source.count(b"\r\n"):
        return None
    found: list[int] = []
    line, counted = 1, 0
    for match in pattern.finditer(source):
        at = match.start()
        line += source.count(b"\n", counted, at)
        counted = at
        if not found or found[-1] != line:
            found.append(line)
    return found


class _Splitter:
    """Walks statements only (asserts and calls are statements, and only statements hold
    statements), in the order `ast.NodeTransformer` visits them; a statement none of whose
    lines spells `assert` is skipped whole. A scope's names are read when its first
    comparison is split."""

    def __init__(
        self,
        where: str,
        body: list[ast.stmt],
        packages: frozenset[str],
        lines: list[int] | None,
    ) -> None:
        self.where = where
        self.lines = lines
        self.module_body, self.packages = body, packages
        self.module: scopes.Scope | None = None
        # each enclosing class or function: [node, is a class, its params or its scope]
        self.frames: list[list[Any]] = []
        self.count = 0
        self.names = 0
        self.kept: list[ast.expr] = []  # the last split's kept arguments (released with it)
        self.busy: list[int] | None = None  # the lines that spell `for` or `:=`, when known

    def body(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        lines = self.lines
        for statement in statements:
            if lines is not None:
                at = bisect.bisect_left(lines, statement.lineno)
                if at == len(lines) or lines[at] > (statement.end_lineno or statement.lineno):
                    out.append(statement)
                    continue
            kind = type(statement)
            if kind is ast.Assert:
                out.extend(self.visit_Assert(statement))  # type: ignore[arg-type]
            elif kind is ast.Expr:
                out.extend(self.visit_Expr(statement))  # type: ignore[arg-type]
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                self.frames.append([statement, kind is ast.ClassDef, None])
                self.children(statement)
                self.frames.pop()
                out.append(statement)
            else:
                self.children(statement)
                out.append(statement)
        return out

    def children(self, node: ast.AST) -> None:
        """The statement lists a node holds (a handler's or a match case's too), in place."""
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is not list or not value:
                continue
            first = value[0]
            if isinstance(first, ast.stmt):
                setattr(node, field, self.body(value))
            elif isinstance(first, ast.excepthandler | ast.match_case):
                for holder in value:
                    self.children(holder)

    def module_scope(self) -> scopes.Scope:
        if self.module is None:
            names = scopes.module_names(self.module_body, self.packages, self.busy)
            self.module = scopes.Scope(names, {}, {})
        return self.module

    def scope(self) -> scopes.Scope:
        """The innermost function's scope (the module's outside any)."""
        for index in range(len(self.frames) - 1, -1, -1):
            frame = self.frames[index]
            if not frame[1]:
                if frame[2] is None:
                    params = self._params(index - 1) | scopes.parametrized(
                        frame[0], self.module_scope()
                    )
                    module = self.module_scope()
                    frame[2] = scopes.function_scope(frame[0], module, params, self.busy)
                return frame[2]  # type: ignore[no-any-return]
        return self.module_scope()

    def _params(self, index: int) -> frozenset[str]:
        """What the parametrize marks of the classes around frame `index` give (a function
        takes its classes' rows, not those of a function around it)."""
        while index >= 0 and not self.frames[index][1]:
            index -= 1
        if index < 0:
            return frozenset()
        frame = self.frames[index]
        if frame[2] is None:
            own = scopes.parametrized(frame[0], self.module_scope())
            frame[2] = self._params(index - 1) | own
        return frame[2]  # type: ignore[no-any-return]

    def visit_Assert(self, node: ast.Assert) -> list[ast.stmt]:
        test = node.test
        if not isinstance(test, ast.Compare) or not all(type(op) in OPS for op in test.ops):
            return [node]
        ops = ",".join(OPS[type(op)] for op in test.ops)
        operands = [test.left, *test.comparators]
        statements, loads = self._split(node, ops, operands, keep=True)
        at = _at(node)
        compare = ast.Compare(loads[0], list(test.ops), loads[1:], **at)
        statements.append(ast.Assert(compare, node.msg, **at))
        return _released(statements, [*loads, *self.kept], at)

    def visit_Expr(self, node: ast.Expr) -> list[ast.stmt]:
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            return [node]
        method = call.func.attr
        if any(isinstance(a, ast.Starred) for a in call.args):
            return [node]
        if method in METHODS and len(call.args) >= 2:
            # the method's first two arguments are what the check returns: no statement and
            # no name of its own, so the values live as long as the call, as they did
            at = _at(node)
            checked = self._check(node, METHODS[method], call.args[:2])
            args = [ast.Starred(checked, ast.Load(), **at), *call.args[2:]]
            return [ast.Expr(ast.Call(call.func, args, call.keywords, **at), **at)]
        if method in TRUTH and call.args and _comparison(call.args[0]):
            test = call.args[0]
            assert isinstance(test, ast.Compare)
            ops = ",".join(OPS[type(op)] for op in test.ops)
            statements, loads = self._split(node, ops, [test.left, *test.comparators])
            compare = ast.Compare(loads[0], list(test.ops), loads[1:], **_at(node))
            args = [compare, *call.args[1:]]
        else:
            return [node]
        at = _at(node)
        statements.append(ast.Expr(ast.Call(call.func, args, call.keywords, **at), **at))
        return _released(statements, [*loads, *self.kept], at)

    def _split(
        self, node: ast.stmt, ops: str, operands: list[ast.expr], *, keep: bool = False
    ) -> tuple[list[ast.stmt], list[ast.expr]]:
        names = [f"@honest{self.names + index}" for index in range(len(operands))]
        self.names += len(operands)
        at = _at(node)
        statements: list[ast.stmt] = []
        kept: list[ast.expr] = []
        for name, operand in zip(names, operands, strict=True):
            value = self._kept_arguments(operand, statements, kept, at) if keep else operand
            target = ast.Name(name, ast.Store(), **at)
            statements.append(ast.Assign(targets=[target], value=value, **at))
        loads: list[ast.expr] = [ast.Name(name, ast.Load(), **at) for name in names]
        statements.append(ast.Expr(self._check(node, ops, operands, loads), **at))
        self.kept = kept
        return statements, loads

    def _check(
        self,
        node: ast.stmt,
        ops: str,
        operands: list[ast.expr],
        values: list[ast.expr] | None = None,
    ) -> ast.Call:
        """The check's call on `values` (by default the operands themselves), with what the
        test's source tells of each operand; it returns the values it was given."""
        self.count += 1
        scope = self.scope()
        info = (
            f"{self.where}:{node.lineno}",
            tuple(scopes.text(operand) for operand in operands),
            tuple(scope.callee(operand) for operand in operands),
            tuple(scope.made(operand) for operand in operands),
        )
        at = _at(node)
        check = ast.Attribute(ast.Name(ALIAS, ast.Load(), **at), CHECK, ast.Load(), **at)
        constant = ast.Constant(info, **at)  # type: ignore[arg-type]  # a tuple of constants
        given = operands if values is None else values
        return ast.Call(check, [ast.Constant(ops, **at), constant, *given], [], **at)

    def _kept_arguments(
        self,
        operand: ast.expr,
        statements: list[ast.stmt],
        kept: list[ast.expr],
        at: dict[str, Any],
    ) -> ast.expr:
        """A call's positional arguments that are calls, evaluated first into hidden names
        that live as long as the operands: pytest's rewriter keeps an `assert`'s intermediate
        values until it ends, and `assert hash(C()) != hash(C())` (attrs) needs the first
        `C()` alive when the second is made (a unittest method call keeps none: plain
        Python frees them, so it is not split this way)."""
        if not isinstance(operand, ast.Call) or not any(
            isinstance(arg, ast.Call) for arg in operand.args
        ):
            return operand
        if any(isinstance(arg, ast.Starred) for arg in operand.args):
            return operand
        args: list[ast.expr] = []
        for arg in operand.args:
            if isinstance(arg, ast.Call):
                name = f"@honest{self.names}"
                self.names += 1
                target = ast.Name(name, ast.Store(), **at)
                statements.append(ast.Assign(targets=[target], value=arg, **at))
                kept.append(ast.Name(name, ast.Load(), **at))
                args.append(ast.Name(name, ast.Load(), **at))
            else:
                args.append(arg)
        return ast.Call(operand.func, args, operand.keywords, **at)


def _released(
    statements: list[ast.stmt], loads: list[ast.expr], at: dict[str, Any]
) -> list[ast.stmt]:
    """The split statements in a `try` whose `finally` rebinds the hidden names to None: the
    operands live no longer than the test's own expression kept them (a test that checks a
    weak reference dies after its assert needs the assert's values gone)."""
    names: list[ast.expr] = [
        ast.Name(load.id, ast.Store(), **at) for load in loads if isinstance(load, ast.Name)
    ]
    release = ast.Assign(targets=names, value=ast.Constant(None, **at), **at)
    return [ast.Try(body=statements, handlers=[], orelse=[], finalbody=[release], **at)]


def _at(node: ast.stmt) -> dict[str, Any]:
    """The statement's place, for each node its split makes (what `ast.fix_missing_locations`
    would give them, without walking the module)."""
    return {
        "lineno": node.lineno,
        "col_offset": node.col_offset,
        "end_lineno": node.end_lineno,
        "end_col_offset": node.end_col_offset,
    }


def _comparison(node: ast.expr) -> bool:
    return isinstance(node, ast.Compare) and all(type(op) in OPS for op in node.ops)
