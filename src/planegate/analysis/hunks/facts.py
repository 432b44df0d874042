"""What one function asserts, skips, tolerates and generates: the facts the rules compare."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from planegate.analysis.hunks.model import (
    FuncNode,
    Module,
    key,
    last_part,
    number,
    short,
    truth,
    walk,
)

SKIP_MARKS = frozenset({"skip", "skipif", "xfail"})
UNITTEST_SKIPS = frozenset({"skip", "skipIf", "skipUnless", "expectedFailure"})
SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail", "pytest.importorskip"})
SWALLOWED = frozenset({"AssertionError", "Exception", "BaseException"})
TOLERANCE_KEYWORDS = frozenset(
    {"rel", "abs", "rel_tol", "abs_tol", "rtol", "atol", "places", "delta", "decimal"}
)
IGNORED_KEYWORDS = TOLERANCE_KEYWORDS | {"msg", "match", "reason", "ids", "id"}
EQUALITY_CALLS = frozenset(
    {
        "assertEqual",
        "assertEquals",
        "assertListEqual",
        "assertDictEqual",
        "assertTupleEqual",
        "assertSetEqual",
        "assertSequenceEqual",
        "assertMultiLineEqual",
        "assertCountEqual",
        "assertAlmostEqual",
        "assertIs",
        "assert_equal",
        "assert_array_equal",
        "assert_allclose",
        "assert_frame_equal",
        "assert_series_equal",
    }
)
WEAK_CALLS = frozenset({"assertIsNotNone", "assertIsInstance", "assertTrue", "assert_"})
RAISES_CALLS = frozenset({"pytest.raises", "pytest.warns"})
RAISES_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex"})
PATCH_METHODS = frozenset(
    {"setattr", "setenv", "delattr", "setitem", "delitem", "delenv", "syspath_prepend", "chdir"}
)


@dataclass(frozen=True)
class Param:
    name: str
    value: float
    higher_is_looser: bool = True


# Tolerance parameters: (name, positional index or None, default, higher is looser).
_TOLERANCES: dict[str, tuple[tuple[str, int | None, float, bool], ...]] = {
    "pytest.approx": (("rel", 1, 1e-6, True), ("abs", 2, 1e-12, True)),
    "math.isclose": (("rel_tol", None, 1e-9, True), ("abs_tol", None, 0.0, True)),
    "numpy.isclose": (("rtol", 2, 1e-5, True), ("atol", 3, 1e-8, True)),
    "numpy.allclose": (("rtol", 2, 1e-5, True), ("atol", 3, 1e-8, True)),
    "numpy.testing.assert_allclose": (("rtol", 2, 1e-7, True), ("atol", 3, 0.0, True)),
    "numpy.testing.assert_almost_equal": (("decimal", 2, 7.0, False),),
    "numpy.testing.assert_array_almost_equal": (("decimal", 2, 6.0, False),),
    "assertAlmostEqual": (("places", 2, 7.0, False), ("delta", None, 0.0, True)),
}


@dataclass(frozen=True)
class Assertion:
    kind: str
    line: int
    dead: str | None
    key: str
    operands: tuple[str, ...]
    node: ast.AST = field(compare=False, repr=False)

    @property
    def text(self) -> str:
        return short(self.node)


@dataclass(frozen=True)
class Skip:
    what: str
    line: int
    key: str


@dataclass(frozen=True)
class Raises:
    kind: str
    line: int
    exceptions: tuple[str, ...]
    exceptions_text: str
    match: str | None


@dataclass(frozen=True)
class Tolerance:
    kind: str
    line: int
    params: tuple[Param, ...]
    explicit: frozenset[str]
    align: str
    subject: str | None


@dataclass(frozen=True)
class Literal:
    align: str
    values: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Weak:
    subject: str
    line: int
    node: ast.AST = field(compare=False, repr=False)

    @property
    def text(self) -> str:
        return short(self.node)


@dataclass(frozen=True)
class Vacuous:
    key: str
    line: int
    text: str
    why: str


@dataclass(frozen=True)
class Params:
    argnames: str
    line: int
    cases: tuple[tuple[str, str], ...] | None
    whole: str


@dataclass(frozen=True)
class Example:
    key: str
    text: str
    line: int


@dataclass(frozen=True)
class Facts:
    line: int = 0
    assertions: tuple[Assertion, ...] = ()
    skips: tuple[Skip, ...] = ()
    raises: tuple[Raises, ...] = ()
    tolerances: tuple[Tolerance, ...] = ()
    literals: tuple[Literal, ...] = ()
    weak: tuple[Weak, ...] = ()
    vacuous: tuple[Vacuous, ...] = ()
    value_checked: frozenset[str] = frozenset()
    exact_checked: frozenset[str] = frozenset()
    params: tuple[Params, ...] = ()
    given: tuple[tuple[str, ast.expr], ...] = ()
    draws: tuple[ast.expr, ...] = ()
    settings: dict[str, ast.expr] = field(default_factory=dict)
    has_settings: bool = False
    examples: tuple[Example, ...] = ()
    seeds: tuple[str, ...] = ()
    assumes: tuple[int, ...] = ()
    filters: tuple[int, ...] = ()
    patches: tuple[str, ...] = ()
    autouse: bool = False
    invariant: bool = False

    @property
    def live(self) -> tuple[Assertion, ...]:
        return tuple(a for a in self.assertions if a.dead is None)

    @property
    def dead(self) -> tuple[Assertion, ...]:
        return tuple(a for a in self.assertions if a.dead is not None)


EMPTY = Facts()


def skip_mark(
    module: Module, node: ast.expr, local: dict[str, ast.expr] | None = None
) -> str | None:
    """`pytest.mark.xfail`, `unittest.skip`, … when `node` is (or names) a skip/xfail mark."""
    node = module.resolve(node, local)
    if isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            found = skip_mark(module, element, local)
            if found:
                return found
        return None
    if isinstance(node, ast.Constant) and node.value in SKIP_MARKS:
        return f"pytest.mark.{node.value}"
    target = node.func if isinstance(node, ast.Call) else node
    name = module.dotted(target)
    if name is None:
        return None
    parts = name.split(".")
    if parts[-1] in SKIP_MARKS and len(parts) >= 2 and parts[-2] == "mark":
        return f"pytest.mark.{parts[-1]}"
    if parts[-1] in UNITTEST_SKIPS and name.startswith("unittest."):
        return f"unittest.{parts[-1]}"
    return None


def skip_key(module: Module, node: ast.expr, what: str) -> str:
    """A skip's identity without its reason text, so rewording a reason is not a new skip."""
    node = module.resolve(node)
    if what.startswith("unittest.") and isinstance(node, ast.Call):
        args = node.args[1:] if what in ("unittest.skipIf", "unittest.skipUnless") else []
        return what + "".join(key(arg) for arg in args)
    return what + key(node, skip_keywords=frozenset({"reason"}))


def strategy_name(module: Module, node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    name = module.dotted(node.func)
    if name is None:
        return None
    if name.startswith("hypothesis.strategies.") or name.split(".")[0] in ("st", "strategies"):
        return last_part(name)
    return None


def is_strategy(module: Module, node: ast.expr, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("map", "filter", "flatmap")
    ):
        return is_strategy(module, node.func.value, depth + 1)
    if strategy_name(module, node) is not None:
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return is_strategy(module, node.left, depth + 1) or is_strategy(
            module, node.right, depth + 1
        )
    if isinstance(node, ast.Name) and node.id in module.aliases:
        return is_strategy(module, module.aliases[node.id], depth + 1)
    return False


def _names_in(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for child in walk(node):
        if isinstance(child, ast.Name):
            out.add(child.id)
        elif isinstance(child, ast.Attribute):
            out.add(child.attr)
    return out


def _is_env(module: Module, test: ast.expr) -> bool:
    for child in walk(test):
        name = module.dotted(child) if isinstance(child, ast.Attribute | ast.Name) else None
        if name and (name.startswith("os.environ") or name == "os.getenv"):
            return True
    return False


def _exception_names(node: ast.expr | None) -> list[str]:
    if node is None:
        return ["(bare except)"]
    if isinstance(node, ast.Tuple):
        return [name for element in node.elts for name in _exception_names(element)]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    return [short(node)]


def _plain(node: ast.expr) -> bool:
    return not any(isinstance(child, ast.Call | ast.Await) for child in walk(node))


def _scan(func: FuncNode) -> tuple[dict[str, str], dict[str, ast.expr], set[str]]:
    """One pass: canonical local names, local assignments, and names the body calls."""
    local: dict[str, ast.expr] = {}
    called: set[str] = set()
    spots: list[tuple[int, int, str]] = []
    arguments = func.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    for index, arg in enumerate(every):
        spots.append((-1, index, arg.arg))
    for child in walk(func):
        if isinstance(child, ast.Name):
            if isinstance(child.ctx, ast.Store):
                spots.append((child.lineno, child.col_offset, child.id))
        elif isinstance(child, ast.Call):
            if isinstance(child.func, ast.Name):
                called.add(child.func.id)
        elif isinstance(child, ast.Assign):
            if isinstance(child.targets[0], ast.Name):
                local[child.targets[0].id] = child.value
        elif isinstance(child, ast.arg):
            spots.append((child.lineno, child.col_offset, child.arg))
    names: dict[str, str] = {}
    for _, _, name in sorted(spots):
        names.setdefault(name, f"_v{len(names)}")
    return names, local, called


class _Walker:
    def __init__(self, module: Module, func: FuncNode) -> None:
        self.module = module
        self.names, self.local, self.called = _scan(func)
        self.want_literals = True
        self.assertions: list[Assertion] = []
        self.skips: list[Skip] = []
        self.raises: list[Raises] = []
        self.tolerances: list[Tolerance] = []
        self.literals: list[Literal] = []
        self.weak: list[Weak] = []
        self.vacuous: list[Vacuous] = []
        self.value_checked: set[str] = set()
        self.exact_checked: set[str] = set()
        self.tolerance_subjects: dict[int, str] = {}
        self.draws: list[ast.expr] = []
        self.assumes: list[int] = []
        self.filters: list[int] = []
        self.patches: list[str] = []
        # The same operand is keyed for several records; the tree outlives the walker.
        self._keys: dict[tuple[int, bool], str] = {}

    def key(self, node: ast.AST, *, mask: bool = False) -> str:
        slot = (id(node), mask)
        found = self._keys.get(slot)
        if found is None:
            found = key(node, self.names, mask=mask, skip_keywords=IGNORED_KEYWORDS)
            self._keys[slot] = found
        return found

    # statements -----------------------------------------------------------------------------

    def block(self, stmts: list[ast.stmt], dead: str | None) -> None:
        stopped = dead
        for stmt in stmts:
            self.stmt(stmt, stopped)
            if stopped is None and isinstance(stmt, ast.Return | ast.Raise):
                word = "return" if isinstance(stmt, ast.Return) else "raise"
                stopped = f"after the early {word} at line {stmt.lineno}"

    def stmt(self, stmt: ast.stmt, dead: str | None) -> None:
        if isinstance(stmt, ast.Assert):
            self.assertion(stmt, "assert", dead)
            self.exprs([stmt.test], dead)
        elif isinstance(stmt, ast.If):
            self.branch(stmt, dead)
        elif isinstance(stmt, ast.While):
            self.exprs([stmt.test], dead)
            never = dead or (
                f"under `while {short(stmt.test)}`" if truth(stmt.test) is False else None
            )
            self.block(stmt.body, never)
            self.block(stmt.orelse, dead)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            self.exprs([stmt.iter], dead)
            empty = _empty_sequence(stmt.iter)
            self.block(stmt.body, dead or (f"in a loop over {short(stmt.iter)}" if empty else None))
            self.block(stmt.orelse, dead)
        elif isinstance(stmt, ast.Try):
            swallow = self.swallower(stmt)
            self.block(stmt.body, dead or swallow)
            for handler in stmt.handlers:
                self.block(handler.body, dead)
            self.block(stmt.orelse, dead)
            self.block(stmt.finalbody, dead)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            self.exprs([item.context_expr for item in stmt.items], dead)
            self.block(stmt.body, dead or self.suppressor(stmt))
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.exprs(list(stmt.decorator_list), dead)
            unused = None if stmt.name in self.called else f"in nested `{stmt.name}` never called"
            self.block(stmt.body, dead or unused)
        elif isinstance(stmt, ast.ClassDef):
            return
        elif isinstance(stmt, ast.Match):
            self.exprs([stmt.subject], dead)
            for case in stmt.cases:
                self.block(case.body, dead)
        else:
            self.other(stmt, dead)

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
        where = f"under `if {short(stmt.test, 40)}` (line {stmt.lineno})"
        env = _is_env(self.module, stmt.test)
        if env:
            where = f"under the environment-gated `if {short(stmt.test, 40)}` (line {stmt.lineno})"
        self.block(stmt.body, dead or (where if value is False or env else None))
        self.block(stmt.orelse, dead or (where if value is True or env else None))

    def swallower(self, stmt: ast.Try) -> str | None:
        for handler in stmt.handlers:
            names = _exception_names(handler.type)
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
                names = {name for arg in call.args for name in _exception_names(arg)}
                if names & SWALLOWED:
                    return f"under `{short(call)}` (line {stmt.lineno})"
        return None

    # expressions ----------------------------------------------------------------------------

    def exprs(self, nodes: list[ast.expr] | list[ast.stmt], dead: str | None) -> None:
        for node in nodes:
            for child in walk(node):
                if isinstance(child, ast.Call):
                    self.call(child, dead)

    def assertion_kind(self, call: ast.Call) -> str | None:
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if not isinstance(last, str):
            return None
        if last.startswith("assert"):
            return "call"
        name = self.module.dotted(func)
        if name in ("pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail"):
            return "call"
        if last == "fail" and isinstance(func, ast.Attribute) and name and name.startswith("self"):
            return "call"
        if isinstance(func, ast.Name) and func.id in self.module.helpers:
            return "helper"
        return None

    def call(self, call: ast.Call, dead: str | None) -> None:
        name = self.module.dotted(call.func)
        last = call.func.attr if isinstance(call.func, ast.Attribute) else last_part(name)
        kind = self.assertion_kind(call)
        if kind is not None:
            self.assertion(call, kind, dead)
        if name in SKIP_CALLS or last == "skipTest":
            self.skips.append(Skip(f"{name or last}()", call.lineno, f"{name or last}()"))
        elif last in ("applymarker", "add_marker") and call.args:
            mark = skip_mark(self.module, call.args[0], self.local)
            if mark:
                self.skips.append(Skip(f"{last}({mark})", call.lineno, f"{last}({mark})"))
        elif last == "param" and name in ("pytest.param", "param"):
            self.param_marks(call)
        if name in RAISES_CALLS or last in RAISES_METHODS:
            self.raises_record(call, name or last)
        tolerance_kind = name if name in _TOLERANCES else last
        if tolerance_kind in _TOLERANCES and dead is None:
            self.tolerance(call, tolerance_kind)
        if name in ("hypothesis.assume", "hypothesis.reject", "assume", "reject"):
            self.assumes.append(call.lineno)
        func = call.func
        if (
            last == "filter"
            and isinstance(func, ast.Attribute)
            and is_strategy(self.module, func.value)
        ):
            self.filters.append(call.lineno)
        if last == "draw" and call.args and isinstance(call.func, ast.Attribute):
            self.draws.append(call.args[0])
        if self.is_patch(call, name, last):
            self.patches.append(self.key(call))

    def param_marks(self, call: ast.Call) -> None:
        for keyword in call.keywords:
            if keyword.arg == "marks":
                mark = skip_mark(self.module, keyword.value, self.local)
                if mark:
                    what = f"pytest.param(marks={mark})"
                    self.skips.append(Skip(what, call.lineno, what + self.key(call)))

    def is_patch(self, call: ast.Call, name: str | None, last: str) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute) and last in PATCH_METHODS:
            receiver = func.value
            return isinstance(receiver, ast.Name) and "monkeypatch" in receiver.id
        if name == "setattr":
            return True
        return bool(name) and ("mock.patch" in str(name) or str(name).endswith(".patch"))

    def raises_record(self, call: ast.Call, kind: str) -> None:
        exception: ast.expr | None = call.args[0] if call.args else None
        match: ast.expr | None = None
        for keyword in call.keywords:
            if keyword.arg in ("expected_exception", "expected_warning"):
                exception = keyword.value
            elif keyword.arg in ("match", "expected_regex"):
                match = keyword.value
        if kind.endswith("Regex") and len(call.args) > 1:
            match = call.args[1]
        names = tuple(_exception_names(exception)) if exception is not None else ("(none)",)
        text = short(exception) if exception is not None else "(none)"
        if match is None:
            pattern = None
        elif isinstance(match, ast.Constant):
            pattern = str(match.value)
        else:
            pattern = short(match)
        self.raises.append(Raises(kind, call.lineno, names, text, pattern))

    def tolerance(self, call: ast.Call, kind: str) -> None:
        params: list[Param] = []
        explicit: set[str] = set()
        subject_args = 1 if kind == "pytest.approx" else 2
        for name, index, default, looser in _TOLERANCES[kind]:
            node: ast.expr | None = None
            if index is not None and len(call.args) > index:
                node = call.args[index]
            for keyword in call.keywords:
                if keyword.arg == name:
                    node = keyword.value
            value = _number_or(node, default)
            if value is None:
                continue
            if node is not None:
                explicit.add(name)
            params.append(Param(name, value, looser))
        align = kind + "".join(self.key(arg) for arg in call.args[:subject_args])
        subject = self.tolerance_subjects.get(id(call))
        if subject is None and kind != "pytest.approx" and call.args:
            subject = self.key(call.args[0])
        self.tolerances.append(
            Tolerance(kind, call.lineno, tuple(params), frozenset(explicit), align, subject)
        )

    # assertions -----------------------------------------------------------------------------

    def assertion(self, node: ast.Assert | ast.Call, kind: str, dead: str | None) -> None:
        content: ast.AST = node.test if isinstance(node, ast.Assert) else node
        operands = self.operands(node)
        record = Assertion(kind, node.lineno, dead, self.key(content), operands, node)
        self.assertions.append(record)
        if dead is not None:
            return
        if self.want_literals:
            masked = self.key(content, mask=True)
            self.literals.append(Literal(masked, _constants(content), node.lineno))
        self.subjects(node)
        why = _vacuous(node, self.key)
        if why:
            self.vacuous.append(Vacuous(record.key, node.lineno, record.text, why))

    def operands(self, node: ast.Assert | ast.Call) -> tuple[str, ...]:
        if isinstance(node, ast.Assert):
            test = node.test
            if isinstance(test, ast.Compare):
                return tuple(self.key(side) for side in (test.left, *test.comparators))
            return (self.key(test),)
        return tuple(self.key(arg) for arg in node.args)

    def subjects(self, node: ast.Assert | ast.Call) -> None:
        if isinstance(node, ast.Call):
            self.call_subjects(node)
            return
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            self.compare_subjects(test, node.lineno)
        elif isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.args:
            if test.func.id in ("isinstance", "hasattr", "callable"):
                self.weak.append(Weak(self.key(test.args[0]), node.lineno, node))
        elif isinstance(test, ast.Name | ast.Attribute | ast.Subscript):
            self.weak.append(Weak(self.key(test), node.lineno, node))

    def compare_subjects(self, test: ast.Compare, line: int) -> None:
        op, left, right = test.ops[0], test.left, test.comparators[0]
        none_right = isinstance(right, ast.Constant) and right.value is None
        if isinstance(op, ast.Eq) or (isinstance(op, ast.Is) and not none_right):
            tolerant = [side for side in (left, right) if self._tolerance_call(side)]
            for side in (left, right):
                if not isinstance(side, ast.Constant) and side not in tolerant:
                    self.value_checked.add(self.key(side))
                    if not tolerant:
                        self.exact_checked.add(self.key(side))
            for side in tolerant:
                other = right if side is left else left
                for child in walk(side):
                    self.tolerance_subjects[id(child)] = self.key(other)
        elif isinstance(op, ast.IsNot) and none_right:
            self.weak.append(Weak(self.key(left), line, test))

    def _tolerance_call(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call):
            return False
        name = self.module.dotted(node.func)
        return name in _TOLERANCES

    def call_subjects(self, call: ast.Call) -> None:
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if last in EQUALITY_CALLS:
            for arg in call.args[:2]:
                if not isinstance(arg, ast.Constant):
                    self.value_checked.add(self.key(arg))
        elif last in WEAK_CALLS and call.args:
            self.weak.append(Weak(self.key(call.args[0]), call.lineno, call))


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


def _number_or(node: ast.expr | None, default: float) -> float | None:
    if node is None:
        return default
    if isinstance(node, ast.Constant) and node.value is None:
        return default
    return number(node)


def _constants(node: ast.AST) -> tuple[str, ...]:
    out: list[str] = []

    def visit(value: ast.AST) -> None:
        if isinstance(value, ast.keyword) and value.arg in IGNORED_KEYWORDS:
            return
        if isinstance(value, ast.Constant):
            out.append(repr(value.value))
            return
        for child in ast.iter_child_nodes(value):
            visit(child)

    visit(node)
    return tuple(out)


def _non_empty_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return False


Keyer = Callable[[ast.AST], str]


def _vacuous(node: ast.Assert | ast.Call, keyer: Keyer) -> str | None:
    if isinstance(node, ast.Assert):
        return _vacuous_test(node.test, keyer)
    func = node.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    args = node.args
    if last in ("assertTrue", "assert_") and args:
        return _vacuous_test(args[0], keyer)
    if last == "assertFalse" and args and truth(args[0]) is False:
        return "asserts that a false constant is false"
    if last in ("assertIsNotNone",) and args and isinstance(args[0], ast.Constant):
        return "asserts that a literal is not None" if args[0].value is not None else None
    if last in EQUALITY_CALLS and len(args) >= 2 and _plain(args[0]) and _same(keyer, *args[:2]):
        return "compares a value to itself"
    return None


def _same(keyer: Keyer, left: ast.expr, right: ast.expr) -> bool:
    return keyer(left) == keyer(right)


def _vacuous_test(test: ast.expr, keyer: Keyer) -> str | None:
    if (
        isinstance(test, ast.BoolOp)
        and isinstance(test.op, ast.Or)
        and any(truth(value) is True for value in test.values)
    ):
        return "`or` with a true constant is always true"
    if truth(test) is True:
        return "asserts a true constant"
    if _non_empty_literal(test):
        return "asserts a non-empty literal, which is always true"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = test.ops[0]
        reflexive = isinstance(op, ast.Eq | ast.Is | ast.LtE | ast.GtE)
        if reflexive and _plain(test.left) and _same(keyer, test.left, test.comparators[0]):
            return "compares a value to itself"
    return None


def function_facts(module: Module, func: FuncNode, *, literals: bool = True) -> Facts:
    """`literals` collects the expected-value data PG507 needs (fixture-plane files only)."""
    walker = _Walker(module, func)
    walker.want_literals = literals
    decorated = _decorators(module, func.decorator_list, walker)
    walker.block(func.body, None)
    return Facts(
        line=func.lineno,
        assertions=tuple(walker.assertions),
        skips=tuple(decorated.skips) + tuple(walker.skips),
        raises=tuple(walker.raises),
        tolerances=tuple(walker.tolerances),
        literals=tuple(walker.literals),
        weak=tuple(walker.weak),
        vacuous=tuple(walker.vacuous),
        value_checked=frozenset(walker.value_checked),
        exact_checked=frozenset(walker.exact_checked),
        params=tuple(decorated.params),
        given=tuple(decorated.given),
        draws=tuple(walker.draws),
        settings=decorated.settings,
        has_settings=decorated.has_settings,
        examples=tuple(decorated.examples),
        seeds=tuple(decorated.seeds),
        assumes=tuple(walker.assumes),
        filters=tuple(walker.filters),
        patches=tuple(walker.patches),
        autouse=decorated.autouse,
        invariant=decorated.invariant,
    )


@dataclass
class _Decorated:
    skips: list[Skip] = field(default_factory=list)
    params: list[Params] = field(default_factory=list)
    given: list[tuple[str, ast.expr]] = field(default_factory=list)
    settings: dict[str, ast.expr] = field(default_factory=dict)
    has_settings: bool = False
    examples: list[Example] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    autouse: bool = False
    invariant: bool = False


def _root_call(node: ast.expr) -> ast.expr:
    """`example(1).via("x")` -> `example(1)`."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Call)
    ):
        node = node.func.value
    return node


def _decorators(module: Module, decorators: list[ast.expr], walker: _Walker | None) -> _Decorated:
    out = _Decorated()
    for decorator in decorators:
        mark = skip_mark(module, decorator)
        if mark:
            out.skips.append(Skip(f"@{mark}", decorator.lineno, skip_key(module, decorator, mark)))
            continue
        root = _root_call(decorator)
        target = root.func if isinstance(root, ast.Call) else root
        name = module.dotted(target) or ""
        last = last_part(name)
        if walker is not None:
            walker.exprs([decorator], None)
        if not isinstance(root, ast.Call):
            out.invariant = out.invariant or last == "invariant"
            continue
        if last == "parametrize":
            parsed = parametrize(module, root)
            if parsed:
                out.params.append(parsed)
        elif last == "given":
            out.given.extend((str(index), arg) for index, arg in enumerate(root.args))
            out.given.extend((kw.arg, kw.value) for kw in root.keywords if kw.arg)
        elif last == "settings":
            out.has_settings = True
            out.settings.update({kw.arg: kw.value for kw in root.keywords if kw.arg})
        elif last == "example":
            out.examples.append(Example(key(decorator), short(decorator), decorator.lineno))
        elif last in ("seed", "reproduce_failure"):
            out.seeds.append(f"@{last}({', '.join(short(arg) for arg in root.args)})")
        elif last == "fixture":
            out.autouse = any(
                kw.arg == "autouse" and truth(kw.value) is True for kw in root.keywords
            )
        elif last == "invariant":
            out.invariant = True
    return out


def parametrize(module: Module, call: ast.Call) -> Params | None:
    if len(call.args) < 2:
        names_node = next((kw.value for kw in call.keywords if kw.arg == "argnames"), None)
        values_node = next((kw.value for kw in call.keywords if kw.arg == "argvalues"), None)
    else:
        names_node, values_node = call.args[0], call.args[1]
    if names_node is None or values_node is None:
        return None
    argnames = _argnames(names_node)
    values = module.resolve(values_node)
    if not isinstance(values, ast.List | ast.Tuple):
        return Params(argnames, call.lineno, None, key(values))
    cases = tuple((_case_key(module, element), short(element)) for element in values.elts)
    return Params(argnames, call.lineno, cases, key(values))


def _argnames(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ",".join(part.strip() for part in node.value.split(",") if part.strip())
    if isinstance(node, ast.List | ast.Tuple):
        return ",".join(
            str(element.value) for element in node.elts if isinstance(element, ast.Constant)
        )
    return short(node)


def _case_key(module: Module, node: ast.expr) -> str:
    if isinstance(node, ast.Call) and last_part(module.dotted(node.func)) == "param":
        return "".join(key(arg) for arg in node.args)
    if isinstance(node, ast.Tuple | ast.List) and len(node.elts) == 1:
        return key(node.elts[0])
    return key(node)


def class_facts(module: Module, node: ast.ClassDef) -> Facts:
    decorated = _decorators(module, node.decorator_list, None)
    skips = list(decorated.skips)
    for stmt in node.body:
        skips.extend(pytestmark_skips(module, stmt))
    return Facts(line=node.lineno, skips=tuple(skips), params=tuple(decorated.params))


def pytestmark_skips(module: Module, stmt: ast.stmt) -> list[Skip]:
    if not isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign) or stmt.value is None:
        return []
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
        return []
    value = module.resolve(stmt.value)
    elements = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    out: list[Skip] = []
    for element in elements:
        mark = skip_mark(module, element)
        if mark:
            what = f"pytestmark = {mark}"
            out.append(Skip(what, stmt.lineno, "pytestmark" + skip_key(module, element, mark)))
    return out
