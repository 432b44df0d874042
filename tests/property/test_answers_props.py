"""Properties of the answer probes' pure cores: literal values compare as Python compares
them, builtin values are never a delegated comparison, the assert split keeps every
comparison's meaning, import lines name what they import."""

from __future__ import annotations

import ast
import operator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planegate.probes.answers import run as answers_run
from planegate.probes.answers.child import probe_strict
from planegate.probes.answers.child.strict_compare import Checker
from planegate.probes.in_code.expected import canon
from planegate.pyimports import imported_names

SCALARS = st.one_of(
    st.integers(-1000, 1000),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=8),
    st.binary(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)
OPS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6}){0,2}", fullmatch=True)


@given(VALUES, VALUES)
def test_canon_equality_is_python_equality(a: Any, b: Any) -> None:
    assert (canon(a) == canon(b)) == (a == b)


@given(VALUES, VALUES, st.sampled_from(sorted(OPS)))
def test_builtin_values_are_never_a_delegated_comparison(a: Any, b: Any, op: str) -> None:
    assert Checker("/nonexistent").problem(op, a, b) is None


@given(st.lists(st.integers(-3, 3), min_size=2, max_size=4), st.data())
def test_the_assert_split_keeps_the_comparison(values: list[int], data: st.DataObject) -> None:
    ops = [data.draw(st.sampled_from(sorted(OPS))) for _ in values[1:]]
    text = " ".join(f"{value} {op}" for value, op in zip(values, ops, strict=False))
    source = f"def check():\n    assert {text} {values[-1]}\n"
    expected = eval(f"{text} {values[-1]}")  # the comparison as Python evaluates it
    module = ast.parse(source)
    assert probe_strict.transform(module) == 1
    namespace: dict[str, Any] = {}
    exec(compile(module, "t.py", "exec"), namespace)
    namespace["@strict_ar"] = type("R", (), {probe_strict.CHECK: staticmethod(lambda *_a: None)})
    try:
        namespace["check"]()
        passed = True
    except AssertionError:
        passed = False
    assert passed == bool(expected)


@given(NAMES, NAMES)
def test_import_lines_name_their_modules(module: str, member: str) -> None:
    names, dynamic = imported_names(f"import {module}\nfrom {module} import {member}\n", "m.py")
    assert names == [module, module, f"{module}.{member}"] and not dynamic


@given(st.text(max_size=300))
def test_a_summary_is_short_and_never_raises(message: str) -> None:
    assert len(answers_run.summary(message)) <= len(message) + 200
