"""`runner: junit`: the gate on a suite pytest does not run, read from the JUnit XML a small
script writes (tests/helpers/junit_suite.py); exit codes and reports as for pytest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import junit_suite
from helpers.repo_helper import TestRepo, run_cli

BUG = "def add(a, b):\n    return a + b + (1 if a > 5 else 0)\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    return junit_suite.build(tmp_path_factory.mktemp("junit") / "main")


@pytest.fixture
def project(built: TestRepo, tmp_path: Path) -> TestRepo:
    repo = built.copy(tmp_path / "project")
    repo.branch("patch")
    return repo


def gate(repo: TestRepo, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("-C", str(repo.root), "gate", "--base", "main", "--format", "json", *extra)
    text = run_cli("-C", str(repo.root), "gate", "--base", "main", *extra).stdout
    return done.returncode, json.loads(done.stdout), text


def rules(report: dict[str, Any]) -> list[str]:
    return sorted({f["rule"] for step in report["steps"] for f in step["findings"]})


def test_honest_patch_passes_and_the_report_says_what_it_rests_on(project: TestRepo) -> None:
    project.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    code, report, text = gate(project)
    assert code == 0, text
    first = text.splitlines()[0]
    assert first.startswith("trust: runner junit")
    assert "does not apply: audit hook, integrity checks, answer probes" in first
    assert report["trust"] == first
    assert report["shadow"] == [
        {"nodeid": junit_suite.FROZEN, "outcome": "failed", "owner": "@org/flakes"}
    ]
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert "frozen tests deselected with the ctest filter" in planes["notes"]


def test_a_bug_fails_the_planes_step_as_a_regression(project: TestRepo) -> None:
    project.commit("faster add", {"src/calc.py": BUG})
    code, report, _ = gate(project)
    assert code == 1
    failed = {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}
    assert failed == {"props::add_commutes", "props::add_zero", "golden::golden_table"}


def test_a_rewritten_golden_file_fails_the_evidence_step(project: TestRepo) -> None:
    project.commit("new goldens", {"data/golden.txt": "1 2 3\n-4 4 0\n10 -3 8\n"})
    code, report, _ = gate(project)
    assert code == 3
    assert {"PG301", "PG302"} <= set(rules(report))  # protected path changed, manifest differs


def test_an_edited_suite_is_restored_from_the_base_before_it_runs(project: TestRepo) -> None:
    suite = (project.root / "tests/run_suite.py").read_text()
    weakened = suite.replace("assert add(a, b) == add(b, a), (a, b)", "pass")
    project.commit("bug, and a weaker suite", {"src/calc.py": BUG, "tests/run_suite.py": weakened})
    code, report, _ = gate(project)
    assert code == 3  # the protected suite changed; its base copy still ran
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert planes["status"] == "fail"
    assert any("restored 1 protected files" in note for note in planes["notes"])


def test_a_new_test_the_map_does_not_classify_stops_the_gate(project: TestRepo) -> None:
    case = "def case_add_one():\n    assert True\n"
    project.commit("a new test", {"tests/more/extra.py": case})
    code, report, _ = gate(project)
    assert code == 2
    inventory = next(s for s in report["steps"] if s["step"] == "inventory")
    assert any("extra::case_add_one" in f["message"] for f in inventory["findings"])


def test_no_report_written_is_a_run_that_did_not_close(project: TestRepo) -> None:
    project.commit("exit early", {"src/calc.py": "import sys\nsys.exit(3)\n"})
    code, report, _ = gate(project)
    assert code == 1
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert planes["status"] == "fail"


def test_a_test_failing_on_the_base_too_is_the_base_broken(tmp_path: Path) -> None:
    config = junit_suite.CONFIG.replace("filter: ctest", "filter: none")
    repo = junit_suite.build(tmp_path / "broken", config)
    repo.commit("a wrong golden row on main", {"data/golden.txt": "1 2 4\n"})
    run_cli("-C", str(repo.root), "lock", "--no-trace")
    repo.commit("relock")
    repo.branch("patch")
    repo.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    code, report, _ = gate(repo)
    assert code == 6, rules(report)
    assert report["base_broken"] == ["golden::golden_table"]
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert any("ran and their outcomes were ignored" in note for note in planes["notes"])


def test_a_report_the_patch_commits_is_never_read_as_the_runs(project: TestRepo) -> None:
    forged = (
        "<testsuite>"
        + "".join(
            f"<testcase classname='{c}' name='{n}'/>"
            for c, n in (
                ("props", "add_commutes"),
                ("props", "add_zero"),
                ("golden", "golden_table"),
            )
        )
        + "</testsuite>"
    )
    project.write({"out/junit.xml": forged, "src/calc.py": "import sys\nsys.exit(3)\n"})
    project.git("add", "-f", "out/junit.xml", "src/calc.py")
    project.git("commit", "-q", "-m", "a bug, and the report of a run that never happened")
    code, report, _ = gate(project)
    assert code == 1
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert any("wrote no JUnit XML" in f["message"] for f in planes["findings"]), planes
