"""Reading the calls and assertions of one function body into the facts' records.

`CallReader` holds what a walk of the body collects; `walker.Walker` adds the statements.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from planegate.analysis.hunks.facts import (
    Assertion,
    Literal,
    Projection,
    Raises,
    Skip,
    Tolerance,
    Vacuous,
    Weak,
)
from planegate.analysis.hunks.keys import Flat, flat, key, tree
from planegate.analysis.hunks.marks import SKIP_CALLS, skip_mark
from planegate.analysis.hunks.parsed_module import FuncNode, Module, last_part, short
from planegate.analysis.hunks.projections import PART_TAKERS, subjects
from planegate.analysis.hunks.strategies import is_strategy
from planegate.analysis.hunks.tolerance import TOLERANCE_KEYWORDS, TOLERANCES, tolerance
from planegate.analysis.hunks.vacuous import EQUALITY_CALLS, vacuous

IGNORED_KEYWORDS = TOLERANCE_KEYWORDS | {"msg", "match", "reason", "ids", "id"}
# check kinds weaker than equality: truthiness, None-ness, type
WEAK_CALLS = {
    "assertTrue": "truth",
    "assert_": "truth",
    "assertIsNotNone": "none",
    "assertIsNone": "none",
    "assertIsInstance": "type",
}
WEAK_FUNCTIONS = {"isinstance": "type", "hasattr": "truth", "callable": "truth"}
RAISES_CALLS = frozenset({"pytest.raises", "pytest.warns"})
RAISES_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex"})
PATCH_METHODS = frozenset(
    {"setattr", "setenv", "delattr", "setitem", "delitem", "delenv", "syspath_prepend", "chdir"}
)
ASSERTING_CALLS = frozenset(
    {"pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail"}
)
HYPOTHESIS_CALLS = frozenset({"hypothesis.assume", "hypothesis.reject", "assume", "reject"})
# The dotted names and last parts `CallReader.call` and its readers act on (see `_acted_on`).
_NAMES_READ = frozenset(
    {*ASSERTING_CALLS, *SKIP_CALLS, "pytest.param", "param", *RAISES_CALLS, *HYPOTHESIS_CALLS}
    | {*TOLERANCES, "setattr"}
)
_LASTS_READ = frozenset(
    {"skipTest", "applymarker", "add_marker", "param", *RAISES_METHODS, *TOLERANCES}
    | {"filter", "draw", *PATCH_METHODS}
)


class CallReader:
    """The records a walk of one function body collects from its calls and assertions."""

    def __init__(self, module: Module, func: FuncNode) -> None:
        self.module = module
        # Only the calls `call` may act on are filed: `exprs` skips the others.
        self.names, self.local, self.called, self._calls = _scan(func, self._acted_on)
        self.want_literals = True
        self.assertions: list[Assertion] = []
        self.skips: list[Skip] = []
        self.raises: list[Raises] = []
        self.tolerances: list[Tolerance] = []
        self.literals: list[Literal] = []
        self.weak: list[Weak] = []
        self.projections: list[Projection] = []
        self.vacuous: list[Vacuous] = []
        self.value_checked: set[str] = set()
        self.exact_checked: set[str] = set()
        self.tolerance_subjects: dict[int, str] = {}
        self.draws: list[ast.expr] = []
        self.assumes: list[int] = []
        self.filters: list[int] = []
        self.patches: list[str] = []
        # The same operand is keyed for several records, and an assert's operands before
        # the assert; the tree outlives the walker.
        self._keys: dict[int, str] = {}

    def key(self, node: ast.AST) -> str:
        known = self._keys
        found = known.get(id(node))
        if found is None:
            found = key(node, self.names, skip_keywords=IGNORED_KEYWORDS, known=known)
            known[id(node)] = found
        return found

    # calls ----------------------------------------------------------------------------------

    def exprs(self, nodes: list[ast.expr] | list[ast.stmt], dead: str | None) -> None:
        """The calls in `nodes` (parts of this reader's function) that `call` may act on, as
        `walk` finds them."""
        if not self._calls:
            return  # none in this function (most are plain calls, not filed)
        for node in nodes:
            for call in self._calls.get(id(node), ()):
                self.call(call, dead)

    def assertion_kind(self, call: ast.Call) -> str | None:
        return self._assertion_kind(call, self.module.dotted(call.func))

    def _assertion_kind(self, call: ast.Call, name: str | None) -> str | None:
        """`name` is the dotted name of `call.func`."""
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if not isinstance(last, str):
            return None
        if last.startswith("assert"):
            return "call"
        if name in ASSERTING_CALLS:
            return "call"
        if last == "fail" and isinstance(func, ast.Attribute) and name and name.startswith("self"):
            return "call"
        if isinstance(func, ast.Name) and func.id in self.module.helpers:
            return "helper"
        return None

    def call(self, call: ast.Call, dead: str | None) -> None:
        name = self.module.dotted(call.func)
        last = call.func.attr if isinstance(call.func, ast.Attribute) else last_part(name)
        kind = self._assertion_kind(call, name)
        if kind is not None:
            self.assertion(call, kind, dead)
        self.skip_call(call, name, last)
        if name in RAISES_CALLS or last in RAISES_METHODS:
            self.raises_record(call, name or last)
        tolerance_kind = name if name in TOLERANCES else last
        if tolerance_kind in TOLERANCES and dead is None:
            subject = self.tolerance_subjects.get(id(call))
            self.tolerances.append(tolerance(call, tolerance_kind, self.key, subject))
        self.hypothesis_call(call, name, last)
        if self.is_patch(call, name, last):
            self.patches.append(self.key(call))

    def _acted_on(self, call: ast.Call) -> bool:
        """False when `call` and its readers do nothing with this call (most calls are to the
        code under test): a superset of the names and conditions they look for."""
        func = call.func
        name = self.module.dotted(func)
        last = func.attr if isinstance(func, ast.Attribute) else last_part(name)
        if name in _NAMES_READ or last in _LASTS_READ:
            return True
        own = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if isinstance(own, str) and (own.startswith("assert") or own == "fail"):
            return True
        if isinstance(func, ast.Name) and func.id in self.module.helpers:
            return True
        return bool(name) and ("mock.patch" in str(name) or str(name).endswith(".patch"))

    def skip_call(self, call: ast.Call, name: str | None, last: str) -> None:
        if name in SKIP_CALLS or last == "skipTest":
            self.skips.append(Skip(f"{name or last}()", call.lineno, f"{name or last}()"))
        elif last in ("applymarker", "add_marker") and call.args:
            mark = skip_mark(self.module, call.args[0], self.local)
            if mark:
                self.skips.append(Skip(f"{last}({mark})", call.lineno, f"{last}({mark})"))
        elif last == "param" and name in ("pytest.param", "param"):
            self.param_marks(call)

    def hypothesis_call(self, call: ast.Call, name: str | None, last: str) -> None:
        if name in HYPOTHESIS_CALLS:
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
        names = tuple(exception_names(exception)) if exception is not None else ("(none)",)
        if match is None:
            pattern = None
        elif isinstance(match, ast.Constant):
            pattern = str(match.value)
        else:
            pattern = short(match)
        self.raises.append(Raises(kind, call.lineno, names, exception, pattern))

    # assertions -----------------------------------------------------------------------------

    def assertion(self, node: ast.Assert | ast.Call, kind: str, dead: str | None) -> None:
        content: ast.AST = node.test if isinstance(node, ast.Assert) else node
        tokens = flat(content, self.names, IGNORED_KEYWORDS)
        key = self._keys[id(content)] = tokens.key
        operands = self.operands(node, tokens, key)
        record = Assertion(kind, node.lineno, dead, key, operands, node)
        self.assertions.append(record)
        if dead is not None:
            return
        if self.want_literals:
            literal = Literal(tokens.masked(key), tokens.constant_values(), node.lineno)
            self.literals.append(literal)
        self.subjects(node)
        why = vacuous(node, self.key)
        if why:
            self.vacuous.append(Vacuous(record.key, node.lineno, record.text, why))

    def operands(self, node: ast.Assert | ast.Call, tokens: Flat, key: str) -> tuple[str, ...]:
        """The keys of what `node` compares; `tokens`: those of its test, or of the call (whose
        key is `key`)."""
        if isinstance(node, ast.Assert):
            test = node.test
            if not isinstance(test, ast.Compare):
                return (key,)
            return tokens.part_keys([test.left, *test.comparators], self._keys)
        return tokens.part_keys(node.args, self._keys)

    def subjects(self, node: ast.Assert | ast.Call) -> None:
        if isinstance(node, ast.Call):
            self.call_subjects(node)
            return
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            self.compare_subjects(test, node.lineno)
        elif isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.args:
            kind = WEAK_FUNCTIONS.get(test.func.id)
            if kind is not None:
                self.weak.append(Weak(self.key(test.args[0]), node.lineno, node, kind))
        elif isinstance(test, ast.Name | ast.Attribute | ast.Subscript):
            self.weak.append(Weak(self.key(test), node.lineno, node))

    def compare_subjects(self, test: ast.Compare, line: int) -> None:
        op, left, right = test.ops[0], test.left, test.comparators[0]
        none_right = isinstance(right, ast.Constant) and right.value is None
        if isinstance(op, ast.Eq) or (isinstance(op, ast.Is) and not none_right):
            tolerant: list[ast.expr] = []
            if isinstance(left, ast.Call) or isinstance(right, ast.Call):
                tolerant = [side for side in (left, right) if self._tolerance_call(side)]
            for side in (left, right):
                if not isinstance(side, ast.Constant) and side not in tolerant:
                    self.value_checked.add(self.key(side))
                    self.projection(side, line, test)
                    if not tolerant:
                        self.exact_checked.add(self.key(side))
            for side in tolerant:
                other = right if side is left else left
                for call in self._calls.get(id(side), ()):
                    self.tolerance_subjects[id(call)] = self.key(other)
        elif isinstance(op, ast.IsNot | ast.Is) and none_right:
            self.weak.append(Weak(self.key(left), line, test, "none"))

    def projection(self, side: ast.expr, line: int, node: ast.AST) -> None:
        if type(side) not in PART_TAKERS:
            return  # not a part of anything (what `subjects` says, sooner)
        found = subjects(side, self.key)
        if found is not None:
            self.projections.append(Projection(found[0], found[1], line, node))

    def _tolerance_call(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call):
            return False
        name = self.module.dotted(node.func)
        return name in TOLERANCES

    def call_subjects(self, call: ast.Call) -> None:
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if last in EQUALITY_CALLS:
            for arg in call.args[:2]:
                if not isinstance(arg, ast.Constant):
                    self.value_checked.add(self.key(arg))
                    self.projection(arg, call.lineno, call)
        elif last in WEAK_CALLS and call.args:
            self.weak.append(Weak(self.key(call.args[0]), call.lineno, call, WEAK_CALLS[last]))


def exception_names(node: ast.expr | None) -> list[str]:
    if node is None:
        return ["(bare except)"]
    if isinstance(node, ast.Tuple):
        return [name for element in node.elts for name in exception_names(element)]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    return [short(node)]


_Scan = tuple[dict[str, str], dict[str, ast.expr], set[str], dict[int, list[ast.Call]]]
_SCANNED = frozenset({ast.Name, ast.Call, ast.Assign, ast.arg})


def _scan(func: FuncNode, filed: Callable[[ast.Call], bool]) -> _Scan:
    """One pass: canonical local names, local assignments, names the body calls, and for
    each node with `filed` calls in it (itself included), by id, those calls in `walk`
    order."""
    local: dict[str, ast.expr] = {}
    called: set[str] = set()
    calls: list[int] = []  # where the calls are in `found`
    spots = _argument_spots(func.args)
    found, parents = tree(func)
    for index, node in enumerate(found):
        if type(node) not in _SCANNED:
            continue
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                spots.append((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                called.add(node.func.id)
            calls.append(index)
        elif isinstance(node, ast.Assign):
            if isinstance(node.targets[0], ast.Name):
                local[node.targets[0].id] = node.value
        elif isinstance(node, ast.arg):
            spots.append((node.lineno, node.col_offset, node.arg))
    return _canonical(spots), local, called, _file_calls(calls, found, parents, filed)


def _canonical(spots: list[tuple[int, int, str]]) -> dict[str, str]:
    """Each local's canonical name, by order of first binding."""
    names: dict[str, str] = {}
    for _, _, name in sorted(spots):
        names.setdefault(name, f"_v{len(names)}")
    return names


def _file_calls(
    calls: list[int], found: list[ast.AST], parents: list[int], filed: Callable[[ast.Call], bool]
) -> dict[int, list[ast.Call]]:
    under: dict[int, list[ast.Call]] = {}
    for index in calls:
        call = found[index]
        if isinstance(call, ast.Call) and filed(call):
            _file_call(call, index, found, parents, under)
    return under


def _file_call(
    call: ast.Call,
    index: int,
    found: list[ast.AST],
    parents: list[int],
    under: dict[int, list[ast.Call]],
) -> None:
    """File `call` (`found[index]`) under itself and each node it is in. Breadth-first is
    `walk`'s order for any subtree too, so each list comes out in that order."""
    while index >= 0:
        calls = under.get(id(found[index]))
        if calls is None:
            under[id(found[index])] = [call]
        else:
            calls.append(call)
        index = parents[index]


def _argument_spots(arguments: ast.arguments) -> list[tuple[int, int, str]]:
    """The function's own arguments, first of all names, in signature order."""
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [(-1, index, arg.arg) for index, arg in enumerate(every)]
