"""What main's scoring tests expect, as literal values (pure): the answers production code
must not carry.

- a pair: `assert f(2, 3) == 5` (either side; a method or attribute of the call's result
  counts too) gives the inputs (2, 3) and the answer 5; a `pytest.mark.parametrize` table
  gives one pair per row when the assert compares a call of its names with one of them;
- an expected value: every literal operand of an assert's comparison;
- a golden: a locked data file's whole text and each of its lines.

Values are compared by `canon`: 5 == 5.0, a list is not a tuple, a dict is its items.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate import sourcesize, syntax

Canon = tuple[Any, ...]
MIN_GOLDEN_LINE = 6


def canon(value: Any) -> Canon:
    """A hashable form of a literal value under Python's equality (bool apart)."""
    if isinstance(value, bool) or value is None:
        return ("const", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return ("num", value)
    if isinstance(value, (str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(canon(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(canon(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((canon(k), canon(v)) for k, v in value.items()))
    return ("other", repr(value))


def literal(node: ast.AST | None) -> tuple[bool, Any]:
    """(True, value) for a literal expression, else (False, None)."""
    if node is None:
        return False, None
    try:
        return True, syntax.literal(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def trivial(value: Any) -> bool:
    """0, 1, -1, "", True, None, short strings and empty collections never count."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return abs(value) <= 1
    if isinstance(value, (str, bytes)):
        return len(value.strip()) < 3
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return len(value) == 0 or all(trivial(v) for v in value)
    return False


def specific(value: Any) -> bool:
    """A value too particular to turn up in a program by chance."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return abs(value) >= 100
    if isinstance(value, float):
        return not value.is_integer() or abs(value) >= 100
    if isinstance(value, (str, bytes)):
        text = value.strip()
        return len(text) >= 12 or (len(text) >= 6 and not text.isalpha())
    if isinstance(value, (list, tuple)):
        return len(value) >= 2 and any(specific(v) for v in value)
    return False


@dataclass(frozen=True)
class Pair:
    inputs: tuple[Any, ...]
    answer: Any
    where: str  # "tests/x.py::test_y line 7"


@dataclass
class Expectations:
    pairs: list[Pair] = field(default_factory=list)
    values: dict[Canon, str] = field(default_factory=dict)  # expected value -> where
    golden_lines: dict[str, str] = field(default_factory=dict)  # stripped line -> where
    golden_texts: dict[str, str] = field(default_factory=dict)  # stripped text -> path

    def add_test_file(self, path: str, source: str) -> None:
        tree = sourcesize.parse(source)
        if tree is None:
            return
        for function in _test_functions(tree):
            rows = _parametrize_rows(function)
            for node in ast.walk(function):
                if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
                    where = f"{path}::{function.name} line {node.lineno}"
                    self._assert(node.test, rows, where)

    def add_golden(self, path: str, text: str) -> None:
        whole = text.strip()
        if len(whole) >= MIN_GOLDEN_LINE:
            self.golden_texts.setdefault(_lines(whole), path)
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if len(stripped) >= MIN_GOLDEN_LINE:
                self.golden_lines.setdefault(stripped, f"{path}:{number}")

    def _assert(self, test: ast.Compare, rows: list[dict[str, Any]], where: str) -> None:
        operands = [test.left, *test.comparators]
        for operand in operands:
            ok, value = literal(operand)
            if ok and not trivial(value):
                self.values.setdefault(canon(value), where)
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
            return
        left, right = test.left, test.comparators[0]
        for call_side, answer_side in ((left, right), (right, left)):
            self.pairs += _pairs(call_side, answer_side, rows, where)


def _lines(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


def normalized(text: str) -> str:
    """How a string literal is compared with a golden's whole text."""
    return _lines(text)


def _test_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            yield node


def _call_of(node: ast.AST) -> ast.Call | None:
    """The call whose result the operand is: `f(x)`, `f(x).y`, `f(x).y()`, `f(x)[0]`."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call)
        ):
            node = node.func.value
        else:
            return node if isinstance(node, ast.Call) else None


def _pairs(
    call_side: ast.AST, answer_side: ast.AST, rows: list[dict[str, Any]], where: str
) -> list[Pair]:
    call = _call_of(call_side)
    if call is None:
        return []
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not arguments:
        return []
    ok, answer = literal(answer_side)
    inputs = [literal(a) for a in arguments]
    if ok and all(found for found, _ in inputs):
        return [Pair(tuple(v for _, v in inputs), answer, where)]
    names = [a.id if isinstance(a, ast.Name) else "" for a in arguments]
    answer_name = answer_side.id if isinstance(answer_side, ast.Name) else ""
    found = []
    for row in rows:
        if not (ok or answer_name in row):
            continue
        known = [(n in row, row.get(n, value)) for n, (_, value) in zip(names, inputs, strict=True)]
        if all(seen or arg_ok for (seen, _), (arg_ok, _) in zip(known, inputs, strict=True)):
            values = tuple(value for _, value in known)
            found.append(Pair(values, answer if ok else row[answer_name], where))
    return found


def _parametrize_rows(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict[str, Any]]:
    """The rows of the function's literal `parametrize` tables, as name -> value."""
    rows: list[dict[str, Any]] = []
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and _is_parametrize(decorator.func)):
            continue
        if len(decorator.args) < 2:
            continue
        names = _argnames(decorator.args[0])
        ok, table = literal(decorator.args[1])
        if not names or not ok or not isinstance(table, (list, tuple)):
            continue
        for row in table:
            values = row if len(names) > 1 else (row,)
            if isinstance(values, (list, tuple)) and len(values) == len(names):
                rows.append(dict(zip(names, values, strict=True)))
    return rows


def _is_parametrize(func: ast.AST) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "parametrize"


def _argnames(node: ast.AST) -> list[str]:
    ok, value = literal(node)
    if ok and isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if ok and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return []


def expectations(tests: Mapping[str, str], goldens: Mapping[str, str]) -> Expectations:
    found = Expectations()
    for path, source in sorted(tests.items()):
        found.add_test_file(path, source)
    for path, text in sorted(goldens.items()):
        found.add_golden(path, text)
    return found
