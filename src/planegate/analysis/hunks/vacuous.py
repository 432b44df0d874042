"""Assertions that hold whatever the code under test does: true constants, a value vs itself."""

from __future__ import annotations

import ast
from collections.abc import Callable

from planegate.analysis.hunks.keys import walk
from planegate.analysis.hunks.parsed_module import truth

# The assertion-call names that compare two values for equality (unittest, numpy, pandas).
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


REFLEXIVE = frozenset({ast.Eq, ast.Is, ast.LtE, ast.GtE})


def _plain(node: ast.expr) -> bool:
    return not any(isinstance(child, ast.Call | ast.Await) for child in walk(node))


def _non_empty_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return False


Keyer = Callable[[ast.AST], str]


def vacuous(node: ast.Assert | ast.Call, keyer: Keyer) -> str | None:
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
    if last in EQUALITY_CALLS and len(args) >= 2 and _same(keyer, *args[:2]) and _plain(args[0]):
        return "compares a value to itself"
    return None


def _same(keyer: Keyer, left: ast.expr, right: ast.expr) -> bool:
    return keyer(left) == keyer(right)


def _vacuous_test(test: ast.expr, keyer: Keyer) -> str | None:
    if isinstance(test, ast.Compare):  # the common case; none of the constant checks apply
        return _reflexive(test, keyer)
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
    return None


def _reflexive(test: ast.Compare, keyer: Keyer) -> str | None:
    if (
        len(test.ops) == 1
        and type(test.ops[0]) in REFLEXIVE
        and _same(keyer, test.left, test.comparators[0])
        and _plain(test.left)
    ):
        return "compares a value to itself"
    return None
