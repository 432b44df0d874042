"""The fixture probe runs for every fixture test that reads locked data, however slow; when
the probe budget cannot hold them, a random sample runs and the rest are listed (PG148)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.project import CONFIG
from helpers.repo_helper import TestRepo
from planegate.cli import main

SLOW = (
    "import time\nfrom pathlib import Path\n\nfrom calc.core import label\n\n\n"
    "def test_label_golden_slowly():\n"
    "    time.sleep(2.2)\n"
    "    expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
    "    assert label(3) == expected\n"
)


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


def fixture_record(report: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in report["probes"] if p["probe"] == "fixture data")


def _comment(project: TestRepo) -> None:
    project.branch("comment")
    core = (project.root / "calc/core.py").read_text("utf-8")
    project.commit("a comment", {"calc/core.py": "# arithmetic\n" + core})


def test_a_slow_fixture_test_is_probed(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.commit("a slow golden test", {"tests/fix/test_slow.py": SLOW})
    _comment(project)

    code, report = gate(project, capsys)

    assert code == 0, report
    assert fixture_record(report)["tests"] == 2  # the 2.2 s test too
    assert not [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG148"]


def test_fixture_tests_over_the_probe_budget_are_sampled_and_listed(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    tight = CONFIG.replace("  triage_runs: 0\n", "  triage_runs: 0\n  probe_budget: 1\n")
    project.commit("a slow golden test", {"tests/fix/test_slow.py": SLOW, "planegate.yml": tight})
    _comment(project)

    code, report = gate(project, capsys)

    found = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG148"]
    assert len(found) == 1 and found[0]["severity"] == "warning", report
    assert "tests/fix/test_slow.py::test_label_golden_slowly" in found[0]["message"]
    assert fixture_record(report)["outcome"] == "over budget"
    assert code == 0
