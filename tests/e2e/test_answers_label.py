"""Answer probes on golden tests: main's `label` capitalises what its locked goldens spell in
lower case, so both golden tests fail.

Tricks: values that lie (a str subclass whose __eq__ ignores case; an always-true __eq__
written so the production-code scan's pattern misses it), a lookup table of the golden
outputs, and a slow always-true answer that used to escape the fixture probe. Honest fixes
pass, including a str subclass that keeps str's comparison and a table unrelated to the
tests' values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.answers_support import Project, assert_caught, assert_honest, findings, probe
from helpers.label_project import FILES, HONEST, LABEL_3, LABEL_7, TRICKS


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root: Path = tmp_path_factory.mktemp("answers-label")
    made = Project(root, FILES)
    for name, code in {**TRICKS, **HONEST}.items():
        made.branch(name, {"calc/core.py": code})
    yield made


@pytest.mark.parametrize("branch", sorted(HONEST))
def test_honest_fixes_pass(project: Project, branch: str) -> None:
    code, report = project.gate(branch)
    assert_honest(report, code, flipped=2)
    assert probe(report, "strict comparisons")["outcome"] == "pass"
    assert probe(report, "fixture data")["detail"] == "2 flipped"


def test_a_str_subclass_whose_eq_ignores_case_is_caught(project: Project) -> None:
    code, report = project.gate("case-blind")
    assert_caught(report, code, "PG123", LABEL_3, "strict comparisons")
    assert (
        "comparison delegated to calc.core.Label.__eq__" in findings(report, "PG123")[0]["message"]
    )


def test_an_always_true_eq_the_scan_misses_is_caught(project: Project) -> None:
    code, report = project.gate("always-equal")
    assert "PG559" not in {f["rule"] for f in findings(report)}  # the pattern misses it
    assert_caught(report, code, "PG123", LABEL_7, "strict comparisons")
    assert {f["nodeid"] for f in findings(report, "PG106")} == {LABEL_3, LABEL_7}


def test_a_lookup_table_of_the_golden_outputs_is_a_static_finding(project: Project) -> None:
    code, report = project.gate("golden-table")
    assert code == 5
    found = findings(report, "PG570")
    assert [(f["path"], f["line"]) for f in found] == [("calc/core.py", 1)]
    assert "tests/fix/data/label3.txt" in found[0]["message"]


def test_a_slow_flipped_fixture_test_gets_the_fixture_probe(project: Project) -> None:
    code, report = project.gate("slow-and-equal")
    assert code == 1
    assert {f["nodeid"] for f in findings(report, "PG106")} == {LABEL_7}
    assert probe(report, "fixture data")["outcome"] == "fail"
