"""`planegate digest` on a `runner: junit` suite (tests/helpers/junit_suite.py): main's ids,
outcomes, manifest and ledger in the digest's usual format, and a gate given that digest reads
the base's outcomes from it instead of running the base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import junit_suite
from helpers.repo_helper import TestRepo, run_cli
from planegate.gate.junit_gate import FROM_MAIN

BUG = "def add(a, b):\n    return a + b + (1 if a > 5 else 0)\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    return junit_suite.build(tmp_path_factory.mktemp("junit-digest") / "main")


@pytest.fixture
def project(built: TestRepo, tmp_path: Path) -> TestRepo:
    repo = built.copy(tmp_path / "project")
    repo.branch("patch")
    return repo


def digest(repo: TestRepo, *extra: str) -> dict[str, Any]:
    out = repo.root.parent / "digest.json"
    done = run_cli("-C", str(repo.root), "digest", "--commit", "main", "--out", str(out), *extra)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def gate(repo: TestRepo, digest_path: Path) -> tuple[int, dict[str, Any]]:
    done = run_cli(
        "-C", str(repo.root), "gate", "--base", "main", "--digest", str(digest_path),
        "--format", "json",
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)


def planes_notes(report: dict[str, Any]) -> list[str]:
    notes: list[str] = next(s for s in report["steps"] if s["step"] == "planes")["notes"]
    return notes


def test_the_digest_records_main_s_ids_outcomes_manifest_and_ledger(project: TestRepo) -> None:
    data = digest(project)
    assert data["inventory"]["property"] == ["props::add_commutes", "props::add_zero"]
    assert data["inventory"]["fixture"] == ["golden::golden_table"]
    assert data["inventory"]["freeze"] == [junit_suite.FROZEN]
    assert {"data/golden.txt", "tests/run_suite.py", "freeze_ledger.jsonl"} <= set(data["files"])
    assert data["run"]["not_passed"] == {}  # the frozen test was deselected, as a gate does
    assert set(data["run"]["file_seconds"]) == {"props", "golden"}


def test_collect_only_keeps_the_ids_and_records_no_run(project: TestRepo) -> None:
    data = digest(project, "--collect-only")
    assert data["inventory"]["property"] == ["props::add_commutes", "props::add_zero"]
    assert "run" not in data


def test_a_gate_given_the_digest_does_not_run_the_base(project: TestRepo) -> None:
    digest(project)
    project.commit("faster add", {"src/calc.py": BUG})
    code, report = gate(project, project.root.parent / "digest.json")
    assert code == 1
    assert FROM_MAIN in planes_notes(report)
    assert "matches git at the base tip" in report["digest_source"]
    failed = {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}
    assert failed == {"props::add_commutes", "props::add_zero", "golden::golden_table"}


def test_the_base_s_outcomes_are_the_digest_s(project: TestRepo) -> None:
    """What main's run recorded decides: tests it saw fail are the base broken, not
    regressions the patch made, though the base's own run would pass them."""
    data = digest(project)
    failing = ["golden::golden_table", "props::add_commutes", "props::add_zero"]
    data["run"]["not_passed"] = {n: {"outcome": "failed", "message": ""} for n in failing}
    edited = project.root.parent / "edited.json"
    edited.write_text(json.dumps(data))
    project.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    honest, _ = gate(project, edited)
    assert honest == 0
    project.commit("a bug", {"src/calc.py": BUG})
    code, report = gate(project, edited)
    assert code == 6
    assert sorted(report["base_broken"]) == failing


def test_honest_patch_passes_with_the_digest(project: TestRepo) -> None:
    digest(project)
    project.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    code, report = gate(project, project.root.parent / "digest.json")
    assert code == 0, report
    assert FROM_MAIN in planes_notes(report)


def test_a_digest_from_another_environment_runs_the_base(project: TestRepo) -> None:
    data = digest(project)
    data["run"]["environment"]["platform"] = "elsewhere"
    other = project.root.parent / "other.json"
    other.write_text(json.dumps(data))
    project.commit("faster add", {"src/calc.py": BUG})
    code, report = gate(project, other)
    assert code == 1
    assert FROM_MAIN not in planes_notes(report)
    assert "another environment" in report["digest_source"]


def test_a_digest_of_an_older_main_is_not_used_for_the_base_s_outcomes(project: TestRepo) -> None:
    """main moved on after its digest: the digest still matches git where it was made, but
    it does not vouch for the new tip, whose outcomes come from the base's own run."""
    digest(project)
    project.checkout("main")
    project.commit("main moves on", {"src/calc.py": "# main's comment\n" + junit_suite.CALC})
    project.git("branch", "-f", "patch", "main")
    project.checkout("patch")
    project.commit("faster add", {"src/calc.py": BUG})
    code, report = gate(project, project.root.parent / "digest.json")
    assert code == 1
    assert FROM_MAIN not in planes_notes(report)
    assert "the newest digest is of an ancestor of the base tip" in report["digest_source"]
