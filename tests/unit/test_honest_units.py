"""Honest values' pure parts: which operands the test made itself, how asserts and unittest
methods are split, which values lie, and what the record and findings say."""

from __future__ import annotations

import ast
import dataclasses
from collections import namedtuple
from types import SimpleNamespace
from typing import Any, cast
from unittest import mock

import pytest

from planegate.probes.answers.wire import AnswerProbes, ProbeFailure
from planegate.probes.honest import findings, plan
from planegate.probes.honest.child import asserts, operands, values
from planegate.probes.honest.wire import lies_of

PACKAGES = frozenset({"calc", "tests"})


def split(source: str) -> dict[int, tuple[Any, ...]]:
    """Line -> (ops, texts, callees, made) of each comparison the transform split."""
    module = ast.parse(source)
    operands.transform(module, "tests/t.py", PACKAGES)
    found = {}
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == operands.CHECK
        ):
            ops = node.args[0]
            info = node.args[1]
            assert isinstance(ops, ast.Constant) and isinstance(info, ast.Constant)
            where, texts, callees, made = cast(tuple[str, Any, Any, Any], info.value)
            found[int(where.rsplit(":", 1)[1])] = (ops.value, texts, callees, made)
    return found


def test_what_the_test_made_is_told_from_what_the_project_returned() -> None:
    found = split(
        "from unittest.mock import ANY\n"  # 1
        "import pytest\n"
        "from calc.core import add, WILD\n"
        "EXPECTED = {'id': ANY}\n"
        "@pytest.mark.parametrize('x, want', [(1, ANY), (2, pytest.approx(3))])\n"  # 5
        "def test_p(x, want, fixture_value):\n"
        "    result = add(x, 1)\n"
        "    assert result == want\n"
        "    assert add(2, 2) == EXPECTED\n"
        "    assert fixture_value == [ANY, 3]\n"  # 10
        "    table = [ANY, 3]\n"
        "    assert result in table\n"
        "    assert result == WILD\n"
        "    again = 1\n"
        "    again = add(1, 1)\n"  # 15
        "    assert again != x\n"
    )
    assert found[8] == ("==", ("result", "want"), ("add", ""), (False, True))
    assert found[9][3] == (False, True) and found[9][2] == ("add", "")
    assert found[10][3] == (False, True)
    assert found[12][0] == "in" and found[12][3] == (False, True)
    assert found[13][3] == (False, False)  # a name the project exports is the project's
    assert found[16][3] == (False, True)  # assigned once from the project: not the test's


def test_unittest_methods_and_truth_asserts_are_split() -> None:
    found = split(
        "class T:\n"
        "    def test_u(self):\n"
        "        self.assertEqual(self.make(), 3)\n"
        "        self.assertIn('k', self.table)\n"
        "        self.assertTrue(self.make() == 3)\n"
        "        self.assertFalse(self.make() < 3, 'message')\n"
        "        self.assertIsNone(self.make())\n"
        "        self.assertEqual(*self.pair)\n"
    )
    assert sorted(found) == [3, 4, 5, 6]
    assert found[3][:2] == ("==", ("self.make()", "3"))
    assert found[4][0] == "in" and found[6][0] == "<"


def test_the_split_keeps_what_the_assert_says() -> None:
    source = (
        "import unittest\n"
        "def make():\n    return 3\n"
        "def test_ok():\n    assert make() == 3\n    assert 2 < make() <= 3\n"
        "    unittest.TestCase().assertEqual(make(), 3)\n"
        "def test_bad():\n    assert make() == 4, 'told'\n"
    )
    module = ast.parse(source)
    operands.transform(module, "t.py", frozenset())
    module.body = [s for s in module.body if not _our_import(s)]  # the stand-in below instead
    seen: list[tuple[str, tuple[Any, ...]]] = []

    def check(ops: str, _info: object, *values: object) -> tuple[object, ...]:
        seen.append((ops, values))
        return values  # what it was given: a comparing method's arguments are what it returns

    rewrite = SimpleNamespace(**{operands.CHECK: check})
    namespace: dict[str, Any] = {operands.ALIAS: rewrite}
    code = compile(module, "t.py", "exec")
    exec(code, namespace)
    namespace["test_ok"]()
    with pytest.raises(AssertionError, match="told"):
        namespace["test_bad"]()
    assert seen == [("==", (3, 3)), ("<,<=", (2, 3, 3)), ("==", (3, 3)), ("==", (3, 4))]


def _our_import(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Import) and statement.names[0].asname == operands.ALIAS


class _Array:
    """Compares element-wise, like numpy: the answer has no single truth value."""

    def __eq__(self, other: object) -> Any:
        return self

    def __bool__(self) -> bool:
        raise ValueError("ambiguous")

    __hash__ = object.__hash__


class _Wild:
    def __eq__(self, other: object) -> bool:
        return other is other

    __hash__ = object.__hash__


class _ToBuiltins:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, int | str) or NotImplemented

    __hash__ = object.__hash__


@dataclasses.dataclass
class _Point:
    x: Any
    y: Any


def test_values_equal_to_anything_are_found_however_they_are_written() -> None:
    assert values.anything(mock.ANY, 4) == "it equals a fresh object()"
    assert values.anything(_Wild(), "x") is not None
    assert values.anything(_ToBuiltins(), 4) == "it equals both 4 and 7923"
    for honest in (_Point(1, 2), mock.MagicMock(), mock.call(1), 4.0, [1], {"a": 1}):
        assert values.anything(honest, 4) is None
    assert values.anything(_Array(), 1) is None


def test_lying_parts_of_containers_records_and_tuples_are_reached() -> None:
    pair = namedtuple("pair", "a b")
    for value in ([1, mock.ANY], {"k": (1, mock.ANY)}, _Point(1, mock.ANY), pair(1, mock.ANY)):
        assert any(values.anything(leaf, other) for leaf, other in values.leaves(value, None))
    honest = [_Point(1, 2)]
    assert not any(values.anything(v, o) for v, o in values.leaves(honest, None))
    assert (honest[0].x, honest[0].y) == (1, 2)


def test_a_builtin_subclass_is_seen_as_its_builtin() -> None:
    class Blind(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and self.casefold() == other.casefold()

        __hash__ = str.__hash__

    plain = values.plain(Blind("ABC"))
    assert type(plain) is str and plain == "ABC"
    assert values.plain("abc") is None and values.plain(True) is None


def _state(checker: Any = None) -> SimpleNamespace:
    return SimpleNamespace(
        current="tests/t.py::test_x",
        found={},
        checked=0,
        side=lambda filename: ("prod", filename) if filename.startswith("/tree/") else ("", ""),
        checker=checker,
        kinds={},
        getframe=lambda _depth: SimpleNamespace(f_locals={}, f_globals={}, f_builtins={}),
    )


def test_the_check_records_a_lie_once_per_assert_and_operand() -> None:
    state = _state()
    check = asserts._check(state)
    info = ("tests/t.py:3", ("add(1, 2)", "3"), ("add", ""), (False, True))
    for _ in range(3):
        check("==", info, mock.ANY, 3)
    check("==", info, 3, 3)
    made = ("tests/t.py:4", ("ANY", "add(1, 2)"), ("", "add"), (True, False))
    check("==", made, mock.ANY, 3)  # the test's own ANY is its expectation
    assert state.checked == 5
    [entry] = state.found["tests/t.py::test_x"]
    assert entry["type"] == "unittest.mock._ANY" and entry["text"] == "add(1, 2)"
    lies, checked = lies_of({"honest": {"tests": state.found, "checked": state.checked}}) or ((), 0)
    assert checked == 5 and lies[0].key == (
        "tests/t.py::test_x",
        "tests/t.py:3",
        0,
        entry["type"],
        values.ANYTHING,
    )
    assert lies_of({}) is None


def test_a_class_of_the_patch_bending_a_builtin_is_found_on_either_side(tmp_path: Any) -> None:
    from planegate.probes.answers.child.strict_compare import Checker

    source = tmp_path / "calc.py"
    source.write_text(
        "class Total(int):\n"
        "    def __eq__(self, other):\n"
        "        return int(self) == other or int(self) == -int(other)\n"
        "    __hash__ = int.__hash__\n"
    )
    namespace: dict[str, Any] = {"__name__": "calc"}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    total = namespace["Total"]
    state = _state(Checker(str(tmp_path), ("calc.py",)))
    check = asserts._check(state)
    info = ("tests/t.py:3", ("add(a, b)", "add(b, a)"), ("add", "add"), (False, False))
    check("==", info, total(5), total(-5))
    [entry] = state.found["tests/t.py::test_x"]
    assert entry["kind"] == values.BENT and "Total.__eq__" in entry["how"]
    honest = _state(Checker(str(tmp_path), ("calc.py",)))
    asserts._check(honest)("==", info, total(5), total(5))
    assert honest.found == {}


class _Bag:
    def __contains__(self, item: object) -> bool:
        return True


def test_membership_checks_the_members_and_the_container() -> None:
    state = _state()
    check = asserts._check(state)
    info = ("tests/t.py:5", ("3", "found()"), ("", "found"), (True, False))
    check("in", info, 3, [1, mock.ANY])
    check("in", ("tests/t.py:6", *info[1:]), 3, _Bag())
    check("in", ("tests/t.py:7", *info[1:]), 3, [1, 2, 3])
    found = state.found["tests/t.py::test_x"]
    assert [(e["where"], e["type"]) for e in found] == [
        ("tests/t.py:5", "unittest.mock._ANY"),
        ("tests/t.py:6", f"{__name__}._Bag"),
    ]


def test_an_object_of_the_projects_class_is_checked_even_where_the_test_made_it() -> None:
    state = _state()
    namespace: dict[str, Any] = {"__name__": "calc.approx"}
    source = "class Near:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
    exec(compile(source, "/tree/calc/approx.py", "exec"), namespace)
    check = asserts._check(state)
    made = ("tests/t.py:9", ("add(1, 2)", "pytest.approx(3)"), ("add", ""), (False, True))
    check("==", made, 4, namespace["Near"]())  # `pytest.approx` rebound by the project
    [entry] = state.found["tests/t.py::test_x"]
    assert entry["type"] == "calc.approx.Near" and entry["operand"] == 1


def test_a_run_without_the_record_is_pg147_and_a_lie_pg145() -> None:
    ctx = cast(
        Any,
        SimpleNamespace(
            author="@author",
            plane_map=SimpleNamespace(plane_of=lambda _n: "fixture"),
            who=SimpleNamespace(of_plane=lambda _p, _f: "@owner"),
        ),
    )
    missing = ProbeFailure(plan.UNCLOSED, "", "the scoring run closed without the record", "rerun")
    lie = ProbeFailure(plan.LIED, "tests/t.py::test_x", "tests/t.py:3: `add(1, 2)` lied", "rerun")
    mains = ProbeFailure(plan.MAINS, "tests/t.py::test_y", "tests/t.py:9: `f()` lied", "rerun")
    found = findings.findings(ctx, AnswerProbes(failures=(missing, lie, mains)))
    assert [(f.rule, f.severity.value, f.path, f.line) for f in found] == [
        ("PG147", "error", None, None),
        ("PG145", "error", "tests/t.py", 3),
        ("PG146", "warning", "tests/t.py", 9),
    ]
    assert found[2].owner == "@owner" and found[1].owner == "@author"


def test_every_block_is_split_and_every_node_made_is_placed_at_its_statement() -> None:
    source = (
        "import unittest\n"  # 1
        "from calc.core import add\n"
        "def test_blocks(x):\n"
        "    try:\n"
        "        assert add(1, 1) == 2\n"  # 5
        "    except ValueError:\n"
        "        assert add(2, 2) == 4\n"
        "    else:\n"
        "        assert add(3, 3) == 6\n"
        "    finally:\n"  # 10
        "        assert add(4, 4) == 8\n"
        "    match x:\n"
        "        case 1:\n"
        "            assert add(x, 1) == 2\n"
        "    with open(__file__) as f:\n"  # 15
        "        for line in f:\n"
        "            while line:\n"
        "                assert add(1, 0) in (1,)\n"
        "                break\n"
        "    def inner():\n"  # 20
        "        assert add(0, 0) != 1\n"
        "    f = lambda: add(1, 2) == 3\n"
        "class TestCase(unittest.TestCase):\n"
        "    class Nested:\n"
        "        def test_n(self):\n"  # 25
        "            self.assertEqual(add(1, 2), 3)\n"
        "    def test_t(self):\n"
        "        self.assertTrue(add(1, 2) < 4, 'msg')\n"
        "        if add(1, 1):\n"
        "            self.assertIn(add(1, 1), [2])\n"  # 30
    )
    found = split(source)
    assert sorted(found) == [5, 7, 9, 11, 14, 18, 21, 26, 28, 30]
    module = ast.parse(source)
    operands.transform(module, "tests/t.py", PACKAGES)
    placed = ast.dump(module, include_attributes=True)
    # what a walk of the whole module would add: nothing, every node is placed already
    assert ast.dump(ast.fix_missing_locations(module), include_attributes=True) == placed
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id.startswith("@honest"):
            assert node.lineno in found and node.end_lineno == node.lineno
    compile(module, "tests/t.py", "exec")
