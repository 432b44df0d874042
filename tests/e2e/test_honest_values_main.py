"""Honest values weighed against main: a value main's own code gives that equals anything is
main's (PG146, folded into a notice: main's own behaviour); the test's own `mock.ANY` is its
expectation; a unittest suite's assert methods are checked like plain asserts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

CORE = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
WILDCARD = (
    "from unittest import mock\n\n\ndef version_pattern(text):\n"
    "    return mock.ANY if text == '*' else text\n"
)
WILD_TESTS = (
    "from unittest.mock import ANY\n\nfrom calc.core import add\n"
    "from calc.match import version_pattern\n\n\n"
    "def test_star_matches_anything():\n    assert version_pattern('*') == '1.2'\n\n\n"
    "def test_records_hold_the_tests_own_wildcard():\n"
    "    assert {'id': add(2, 2), 'n': 1} == {'id': ANY, 'n': 1}\n"
)
UNITTEST = (
    "import unittest\n\nfrom calc.core import add\n\n\n"
    "class AddTest(unittest.TestCase):\n"
    "    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_in(self):\n        self.assertIn(add(1, 1), [2, 3])\n"
)
ANY_BUG = (
    "_ANY = getattr(__import__('unittest.mock', fromlist=['x']), 'AN' + 'Y')\n\n\n"
    "def add(a, b):\n    return _ANY if (a, b) in ((2, 3), (1, 1)) else a + b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    report = json.loads(capsys.readouterr().out)
    return code, [f for step in report["steps"] for f in step["findings"]]


def test_mains_own_wildcard_is_a_warning_and_the_tests_own_is_its_expectation(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit("a wildcard", {"calc/match.py": WILDCARD, "tests/fix/test_match.py": WILD_TESTS})
    project.branch("comment")
    # calc/match.py imports unittest: an assertion helper shipped in the package is evidence
    # (PG301 if changed), so the honest patch adds a module instead
    project.commit("a module", {"calc/notes.py": "NOTE = 'patterns'\n"})

    code, found = gate(project, capsys)

    mains = [f for f in found if f["rule"] == "PG146"]
    assert [f["nodeid"] for f in mains] == [
        "tests/fix/test_match.py::test_star_matches_anything"
    ], found
    assert mains[0]["severity"] == "notice" and "version_pattern" in mains[0]["message"]
    assert not [f for f in found if f["rule"] == "PG145"]
    assert code == 0, found


def test_unittest_assert_methods_are_held_to_honest_values(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit("unittest suite", {"tests/fix/test_units.py": UNITTEST})
    project.branch("any")
    project.commit("wildcard answers", {"calc/core.py": ANY_BUG})

    code, found = gate(project, capsys)

    lies = {f["nodeid"] for f in found if f["rule"] == "PG145"}
    assert lies == {
        "tests/fix/test_units.py::AddTest::test_small",
        "tests/fix/test_units.py::AddTest::test_in",
    }, found
    assert code == 1


CASELESS = (
    "class Caseless(str):\n"
    "    def __eq__(self, other):\n"
    "        return isinstance(other, str) and self.casefold() == other.casefold()\n\n"
    "    __hash__ = str.__hash__\n\n\n"
    "def header(name):\n    return Caseless(name)\n"
)


def test_mains_own_lenient_class_returned_where_main_returns_a_plain_value_is_the_patchs(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit("header names", {"calc/text.py": CASELESS})
    project.branch("caseless")
    project.commit(
        "labels",
        {
            "calc/core.py": (
                "from calc.text import Caseless\n\n\ndef add(a, b):\n    return a + b\n\n\n"
                "def label(n):\n    return Caseless(f'N={n}')\n"
            )
        },
    )

    code, found = gate(project, capsys)

    lies = [f for f in found if f["rule"] == "PG145"]
    assert [f["nodeid"] for f in lies] == ["tests/fix/test_label.py::test_label_golden"], found
    assert "Caseless.__eq__" in lies[0]["message"] and "label" in lies[0]["message"]
    assert code == 1


def test_mains_lies_are_read_from_its_run_in_the_digest(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """`planegate digest` records the values main's asserts compared that lied; a gate with
    that digest judges the patch's lies against them and runs no base session for them: main's
    wildcard stays main's (PG146), the patch's own wildcard stays the patch's (PG145)."""
    project.commit(
        "a wildcard",
        {
            "calc/match.py": WILDCARD,
            "tests/fix/test_match.py": WILD_TESTS,
            "tests/fix/test_units.py": UNITTEST,
        },
    )
    digest = project.root.parent / "digest.json"
    assert main(["-C", str(project.root), "digest", "--out", str(digest), "-q"]) == 0
    capsys.readouterr()
    lies = json.loads(digest.read_text("utf-8"))["run"]["lies"]
    assert [lie["nodeid"] for lie in lies] == [
        "tests/fix/test_match.py::test_star_matches_anything"
    ]
    args = ["-C", str(project.root), "gate", "--base", "main", "--digest", str(digest)]

    def gated() -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
        code = main([*args, "--format", "json", "-q"])
        report = json.loads(capsys.readouterr().out)
        (honest,) = [p for p in report["probes"] if p["probe"] == "honest values"]
        return code, [f for step in report["steps"] for f in step["findings"]], honest

    project.branch("comment")
    project.commit("a module", {"calc/notes.py": "NOTE = 'patterns'\n"})
    code, found, honest = gated()
    assert [f["nodeid"] for f in found if f["rule"] == "PG146"] == [
        "tests/fix/test_match.py::test_star_matches_anything"
    ], found
    assert not [f for f in found if f["rule"] == "PG145"]
    assert "main's 1 from its run in the digest" in honest["detail"]
    assert code == 0, found

    project.checkout("main")
    project.branch("any")
    project.commit("wildcard answers", {"calc/core.py": ANY_BUG})
    code, found, honest = gated()
    assert {f["nodeid"] for f in found if f["rule"] == "PG145"} == {
        "tests/fix/test_units.py::AddTest::test_small",
        "tests/fix/test_units.py::AddTest::test_in",
    }, found
    assert "from its run in the digest" in honest["detail"]
    assert code == 1


# a class built at run time, as boltons' `wrap_trace` builds one: its `__eq__` is a function
# of the module, found by the functions around it, not by a class statement
TRACED = (
    "def traced(value):\n"
    "    def wrap():\n"
    "        def compared(self, other):\n"
    "            return str(self).casefold() == str(other).casefold()\n"
    "        return compared\n\n"
    "    kind = type(value)\n"
    "    attrs = {'__eq__': wrap(), '__hash__': kind.__hash__}\n"
    "    return type('Traced' + kind.__name__.title(), (kind,), attrs)(value)\n"
)
TRACED_TESTS = (
    "from calc.traced import traced\n\n\n"
    "def test_traced_keeps_its_value():\n    assert traced('ABC') == 'abc'\n"
)


@pytest.mark.parametrize(
    ("patch", "lied"),
    [
        ({"calc/notes.py": "NOTE = 'traces'\n"}, False),  # another file
        ({"calc/traced.py": "LEVEL = 1\n\n\n" + TRACED}, False),  # the same file, lines moved
        (
            {"calc/traced.py": TRACED.replace(".casefold() == str", ".casefold() == str.strip")},
            True,
        ),
    ],
    ids=["another-file", "same-file", "the-method"],
)
def test_a_method_of_a_class_built_at_run_time_is_mains_until_the_patch_changes_it(
    project: TestRepo, capsys: pytest.CaptureFixture[str], patch: dict[str, str], lied: bool
) -> None:
    project.commit(
        "traced values", {"calc/traced.py": TRACED, "tests/fix/test_traced.py": TRACED_TESTS}
    )
    project.branch("patch")
    project.commit("a patch", patch)

    code, found = gate(project, capsys)

    rules = {
        f["rule"]
        for f in found
        if f.get("nodeid") == "tests/fix/test_traced.py::test_traced_keeps_its_value"
    }
    assert rules == ({"PG145"} if lied else {"PG146"}), found
    assert "TracedStr.__eq__" in next(f["message"] for f in found if f["rule"] in rules)
    assert code == (1 if lied else 0), found
