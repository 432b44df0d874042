"""Subtests decide their test in the gate: a failed subtest fails it, a skipped one skips it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

SUBTEST_FILE = "tests/fix/test_cases.py"
SUBTESTS = (
    "import pytest\n\n"
    "from calc.core import add\n"
    "from calc.modes import SUPPORTED\n\n\n"
    "def test_add_cases(subtests):\n"
    "    for a, b, total in [(1, 2, 3), (2, 2, 4), (-1, 1, 0)]:\n"
    "        with subtests.test(msg='sum', a=a, b=b):\n"
    "            assert add(a, b) == total\n\n\n"
    "def test_modes(subtests):\n"
    "    for mode in ['fast', 'exact']:\n"
    "        with subtests.test(mode=mode):\n"
    "            if mode not in SUPPORTED:\n"
    "                pytest.skip(f'{mode} unsupported')\n"
)


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    report = json.loads(capsys.readouterr().out)
    return code, [f for step in report["steps"] for f in step["findings"]]


@pytest.fixture
def with_subtests(project: TestRepo) -> TestRepo:
    project.commit(
        "subtests",
        {SUBTEST_FILE: SUBTESTS, "calc/modes.py": "SUPPORTED = {'fast', 'exact'}\n"},
    )
    return project


def test_a_failing_subtest_fails_its_test_with_the_subtests_message(
    with_subtests: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    with_subtests.branch("bug")
    with_subtests.commit(
        "clamp",
        {
            "calc/core.py": "def add(a, b):\n    return max(a + b, 1)\n\n\ndef label(n):\n"
            "    return f'n={n}'\n"
        },
    )
    code, found = gate(with_subtests, capsys)
    assert code == 1
    (failed,) = [f for f in found if f["rule"] == "PG101"]
    assert failed["nodeid"] == f"{SUBTEST_FILE}::test_add_cases"
    assert "subtest [sum] (a=-1, b=1): assert 1 == 0" in failed["message"]


def test_a_skipped_subtest_counts_as_a_skipped_test(
    with_subtests: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    with_subtests.branch("drop")
    with_subtests.commit("drop a mode", {"calc/modes.py": "SUPPORTED = {'fast'}\n"})
    code, found = gate(with_subtests, capsys)
    assert code == 1
    (skipped,) = [f for f in found if f["rule"] == "PG102"]
    assert skipped["nodeid"] == f"{SUBTEST_FILE}::test_modes"
    assert "skipped" in skipped["message"] and "exact unsupported" in skipped["message"]


def test_passing_subtests_pass(with_subtests: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    with_subtests.branch("honest")
    with_subtests.commit("more modes", {"calc/modes.py": "SUPPORTED = {'fast', 'exact', 'x'}\n"})
    code, found = gate(with_subtests, capsys)
    assert code == 0, found
