"""Fair verdicts: a scoring test that does not pass on the patch is compared with its outcome
on the base, in the same environment and mode, before anyone is blamed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.fair_project import BROKEN, PREFIX, fair_repo, honest_patch
from helpers.repo_helper import TestRepo, run_cli
from planegate.cli import main
from planegate.freeze import bundles, ledger
from planegate.freeze import sweep as core
from planegate.repo.git import GitRepo


@pytest.fixture
def repo(tmp_path: Path) -> TestRepo:
    return fair_repo(tmp_path / "repo")


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any], *rules: str) -> list[dict[str, Any]]:
    found = [f for step in report["steps"] for f in step["findings"]]
    return [f for f in found if f["rule"] in rules]


def test_main_state_is_a_note_and_a_test_failing_on_main_too_is_base_broken(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    honest_patch(repo)
    code, report = gate(repo, capsys)
    assert code == 6, report
    assert findings(report, "PG101", "PG102") == []
    (broken,) = findings(report, "PG111")
    assert broken["nodeid"] == BROKEN
    assert broken["owner"] == "@org/goldens"
    assert broken["severity"] == "warning"
    assert "[repro: git checkout " in broken["message"]
    assert report["base_broken"] == [BROKEN]
    notes = "\n".join(report["steps"][4]["notes"])
    assert f"{PREFIX}test_needs_python_4 skipped on main too: Skipped: needs Python 4" in notes
    assert f"{PREFIX}test_needs_a_tool skipped on main too" in notes
    assert f"{PREFIX}test_known_bug xfailed on main too" in notes


def test_a_skip_the_patch_causes_and_a_real_failure_are_still_the_patchs(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.branch("bug")
    repo.commit("bug", {"calc/core.py": "FAST = False\n\n\ndef add(a, b):\n    return a * b\n"})
    code, report = gate(repo, capsys)
    assert code == 1
    blamed = {f["nodeid"]: f for f in findings(report, "PG101", "PG102")}
    assert sorted(blamed) == [PREFIX + "test_add", PREFIX + "test_fast_path"]
    assert blamed[PREFIX + "test_add"]["owner"] == "the patch author"
    assert "[regression; repro:" in blamed[PREFIX + "test_add"]["message"]
    assert [f["nodeid"] for f in findings(report, "PG111")] == [BROKEN]


def freeze_on_main(repo: TestRepo) -> None:
    """A person freezes the broken test on main from an evidence bundle they wrote."""
    commit = repo.git("rev-parse", "main")
    obj = core.bundle(
        kind="manual",
        nodeid=BROKEN,
        commit=commit,
        seed=0,
        created_at=bundles.now_stamp(),
        env_fingerprint=ledger.env_fingerprint(),
        attempts=[{"run": 1, "outcome": "failed", "message": "assert 2 == 3"}],
        summary={
            "base_commit": commit,
            "runs": 3,
            "failures": 3,
            "mode": "scoring",
            "failure_signature": "assert 2 == 3",
            "test_source_hash": bundles.test_source_hash(GitRepo(repo.root), commit, BROKEN),
        },
    )
    path, _ = bundles.write_bundle(repo.root, obj)
    done = run_cli(
        "-C",
        str(repo.root),
        "freeze",
        BROKEN,
        "--class",
        "env",
        "--owner",
        "@org/goldens",
        "--note",
        "needs a service CI does not have",
        "--evidence",
        str(path),
    )
    assert done.returncode == 0, done.stderr
    repo.commit("freeze the broken test")


def test_once_a_person_freezes_the_broken_test_the_honest_patch_passes(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    freeze_on_main(repo)
    honest_patch(repo)
    code, report = gate(repo, capsys)
    assert code == 0, report
    assert findings(report, "PG101", "PG102", "PG111") == []
    assert report["base_broken"] == []
    assert [s["nodeid"] for s in report["shadow"]] == [BROKEN]
