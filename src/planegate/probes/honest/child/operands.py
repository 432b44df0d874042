"""Which values main's asserts compare, split out so each can be checked (child side).

Before pytest rewrites a test module's asserts (main's test files are trusted), each
comparison is split: its operands are evaluated once into hidden names, handed to the check,
then compared as before (pytest's explanation still shows them). Split are `assert`
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
from collections.abc import Iterable, Mapping
from typing import Any

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
MADE_LEAVES = (ast.Constant, ast.Slice)
MADE_PARTS = (
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
)
MAX_TEXT = 80
SYNTAX = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)  # scopes of their own


def transform(module: ast.Module, where: str, packages: frozenset[str]) -> int:
    """Split the module's comparisons in place (`where`: its path, for the record;
    `packages`: the project's top-level names); returns how many were split."""
    module_names = _module_names(module.body, packages)
    splitter = _Splitter(where, module_names)
    module.body = splitter.body(module.body)
    if splitter.count:
        rewrite_import.insert(module, ALIAS)
        # every node the split made is placed where it is made (`_at`): only the import
        # is left to place, as `ast.fix_missing_locations` would over the whole module
        for statement in module.body:
            if isinstance(statement, ast.Import) and statement.names[0].asname == ALIAS:
                ast.fix_missing_locations(statement)
    return splitter.count


class _Splitter:
    """Walks statements only (asserts and calls are statements, and only statements hold
    statements), in the order `ast.NodeTransformer` visits them."""

    def __init__(self, where: str, module_names: Mapping[str, bool]) -> None:
        self.where = where
        self.scopes: list[_Scope] = [_Scope(module_names, {}, {})]
        self.params: list[frozenset[str]] = [frozenset()]
        self.count = 0
        self.names = 0
        self.kept: list[ast.expr] = []  # the last split's kept arguments (released with it)

    def body(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            kind = type(statement)
            if kind is ast.Assert:
                out.extend(self.visit_Assert(statement))  # type: ignore[arg-type]
            elif kind is ast.Expr:
                out.extend(self.visit_Expr(statement))  # type: ignore[arg-type]
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                self.visit_FunctionDef(statement)  # type: ignore[arg-type]
                out.append(statement)
            elif kind is ast.ClassDef:
                self.visit_ClassDef(statement)  # type: ignore[arg-type]
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

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.params.append(self.params[-1] | _parametrized(node, self.scopes[0]))
        self.children(node)
        self.params.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        params = self.params[-1] | _parametrized(node, self.scopes[0])
        self.scopes.append(_function_scope(node, self.scopes[0], params))
        self.children(node)
        self.scopes.pop()

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
            statements, loads = self._split(node, METHODS[method], call.args[:2])
            args = [*loads, *call.args[2:]]
        elif method in TRUTH and call.args and _comparison(call.args[0]):
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
        self.count += 1
        scope = self.scopes[-1]
        info = (
            f"{self.where}:{node.lineno}",
            tuple(_text(operand) for operand in operands),
            tuple(scope.callee(operand) for operand in operands),
            tuple(scope.made(operand) for operand in operands),
        )
        at = _at(node)
        statements: list[ast.stmt] = []
        kept: list[ast.expr] = []
        for name, operand in zip(names, operands, strict=True):
            value = self._kept_arguments(operand, statements, kept, at) if keep else operand
            target = ast.Name(name, ast.Store(), **at)
            statements.append(ast.Assign(targets=[target], value=value, **at))
        loads: list[ast.expr] = [ast.Name(name, ast.Load(), **at) for name in names]
        check = ast.Attribute(ast.Name(ALIAS, ast.Load(), **at), CHECK, ast.Load(), **at)
        constant = ast.Constant(info, **at)  # type: ignore[arg-type]  # a tuple of constants
        call = ast.Call(check, [ast.Constant(ops, **at), constant, *loads], [], **at)
        statements.append(ast.Expr(call, **at))
        self.kept = kept
        return statements, loads

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


class _Scope:
    """What the names of one scope hold: True for a value the test made itself. Names bound
    nowhere are builtins (made); `calls`: a local assigned once from a call, its callee."""

    def __init__(
        self, module: Mapping[str, bool], local: Mapping[str, bool], calls: Mapping[str, str]
    ) -> None:
        self.module, self.local, self.calls = module, local, calls

    def made(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            if node.id in self.local:
                return self.local[node.id]
            return self.module.get(node.id, True)
        if isinstance(node, MADE_LEAVES):
            return True
        if isinstance(node, MADE_PARTS):
            return all(self.made(child) for child in _parts(node))
        return False

    def callee(self, node: ast.expr) -> str:
        if isinstance(node, ast.Call):
            return _text(node.func)
        if isinstance(node, ast.Name):
            return self.calls.get(node.id, "")
        return ""


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


def _parts(node: ast.AST) -> Iterable[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, SYNTAX):
            yield child


def _module_names(body: list[ast.stmt], packages: frozenset[str]) -> dict[str, bool]:
    """Module-level names (nested blocks too): imports from outside the project and constants
    the test made are made; functions, classes and the rest are not (calling them may reach
    the project)."""
    names: dict[str, bool] = {}
    scope = _Scope(names, {}, {})
    for name, value, node in _bindings(ast.Module(body, [])):
        if isinstance(node, ast.Import | ast.ImportFrom):
            outside = dict(_imported(node, packages)).get(name, False)
            names[name] = outside and names.get(name, True)
        else:
            names[name] = value is not None and scope.made(value) and names.get(name, True)
    return names


def _bindings(scope: ast.AST) -> list[tuple[str, ast.expr | None, ast.AST]]:
    """Each name a scope binds (nested blocks too; nested functions, classes and lambdas
    bind only their own name), with the value of a plain assignment or `for` (None for any
    other binding) and the binding node."""
    nodes = list(_own_statements(scope))
    plain: dict[int, ast.expr] = {}
    for node in nodes:
        for name_node, value in _plain_targets(node):
            plain[id(name_node)] = value
    found: list[tuple[str, ast.expr | None, ast.AST]] = []
    for node in nodes:
        for name in _stored(node):
            found.append((name, plain.get(id(node)), node))
    return found


def _imported(statement: ast.Import | ast.ImportFrom, packages: frozenset[str]) -> list[Any]:
    if isinstance(statement, ast.Import):
        return [
            (a.asname or a.name.split(".")[0], a.name.split(".")[0] not in packages)
            for a in statement.names
        ]
    top = (statement.module or "").split(".")[0]
    outside = statement.level == 0 and top not in packages
    return [(a.asname or a.name, outside) for a in statement.names]


def _function_scope(
    node: ast.FunctionDef | ast.AsyncFunctionDef, module: _Scope, params: frozenset[str]
) -> _Scope:
    """A function's locals: parameters are made only when parametrize rows the test made
    give them; other locals when every binding is a plain assignment of a made value."""
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    local: dict[str, bool] = {a.arg: a.arg in params for a in every}
    values: dict[str, list[ast.expr]] = {}
    unknown = ast.Await(ast.Constant(None))  # bound otherwise than by a plain assignment
    for name, value, _ in _bindings(node):
        values.setdefault(name, []).append(unknown if value is None else value)
    for name, assigned in values.items():
        if name in local:  # a parameter assigned again: what it holds is no longer the row's
            assigned.append(unknown)
    local.update({name: True for name in values})
    scope = _Scope(module.module, local, {})
    changed = True
    while changed:  # the greatest fixpoint: a local is made while all its values are
        changed = False
        for name, assigned in values.items():
            if local[name] and not all(scope.made(v) for v in assigned):
                local[name] = False
                changed = True
    calls = {
        name: _text(assigned[0].func)
        for name, assigned in values.items()
        if len(assigned) == 1 and isinstance(assigned[0], ast.Call)
    }
    return _Scope(module.module, local, calls)


def _own_statements(node: ast.AST) -> list[ast.AST]:
    """The nodes of a function's own scope (nested functions, classes and lambdas apart), in
    `ast.walk`'s depth-first order of a recursive walk."""
    found: list[ast.AST] = []
    stack: list[tuple[ast.AST, bool]] = [(node, True)]  # (node, whether to walk its children)
    while stack:
        current, inside = stack.pop()
        if current is not node:
            found.append(current)
        if not inside:
            continue
        children = list(ast.iter_child_nodes(current))
        for child in reversed(children):
            if isinstance(child, NESTED):  # its name only, standing for it
                name = child.name if not isinstance(child, ast.Lambda) else ""
                stack.append((ast.Name(name, ast.Store()), False))
            else:
                stack.append((child, True))
    return found


def _stored(node: ast.AST) -> list[str]:
    """Names a node binds in its own scope (not those of its children, which are walked too)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id] if node.id else []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    if isinstance(node, ast.alias):
        return []
    return []


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


def _parametrized(node: ast.AST, module: _Scope) -> frozenset[str]:
    """Argument names `@pytest.mark.parametrize` gives from rows the test made itself."""
    found: set[str] = set()
    for decorator in getattr(node, "decorator_list", ()):
        if not (isinstance(decorator, ast.Call) and _text(decorator.func).endswith("parametrize")):
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


def _comparison(node: ast.expr) -> bool:
    return isinstance(node, ast.Compare) and all(type(op) in OPS for op in node.ops)


def _text(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        return ""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."
