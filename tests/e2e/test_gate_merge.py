"""The gate judges the patch merged onto the base's tip: main's newest tests meet a stale
branch, a conflict is a finding, and the report names every commit involved."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.repo.git import GitRepo

CORE = "calc/core.py"
NEWER_TEST = (
    "from calc.core import add\n\n\ndef test_add_negative():\n    assert add(-2, -3) == -5\n"
)
ABS_BUG = "def add(a, b):\n    return abs(a) + abs(b)\n\n\ndef label(n):\n    return f'n={n}'\n"


def gate(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q", *extra])
    return code, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for step in report["steps"] for f in step["findings"] if f["rule"] == rule]


def stale_branch(project: TestRepo, change: dict[str, str | bytes]) -> None:
    """A branch `stale` cut from main before main added tests/fix/test_newer.py."""
    project.branch("stale")
    project.commit("patch", change)
    project.checkout("main")
    project.commit("a newer test", {"tests/fix/test_newer.py": NEWER_TEST})
    project.checkout("stale")


def test_a_stale_branch_meets_mains_newer_test(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    stale_branch(project, {CORE: ABS_BUG})
    code, report = gate(project, capsys)
    assert code == 1
    failed = [f["nodeid"] for f in findings(report, "PG101")]
    assert failed == ["tests/fix/test_newer.py::test_add_negative"]
    assert findings(report, "PG205") == []  # the newer test did not vanish: the merge holds it
    git = GitRepo(project.root)
    assert report["base"] == git.resolve("main")
    assert report["head"] == git.resolve("stale")
    assert report["merge_base"] == git.resolve("main~1")
    merged = git.merge(report["base"], report["head"])
    assert report["merged_tree"] == merged.tree


def test_a_stale_honest_branch_passes_and_the_text_names_both_commits(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    stale_branch(project, {"calc/extra.py": "def twice(x):\n    return 2 * x\n"})
    code = main(["-C", str(project.root), "gate", "--base", "main", "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    git = GitRepo(project.root)
    assert f"base {git.resolve('main')[:12]} (its tip" in out
    assert f"head {git.resolve('stale')[:12]} merged onto it (tree " in out


def test_a_conflict_is_a_finding_and_runs_nothing(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.branch("conflict")
    project.commit("one way", {CORE: ABS_BUG})
    project.checkout("main")
    project.commit("another way", {CORE: ABS_BUG.replace("abs(a) + abs(b)", "b + a")})
    project.checkout("conflict")
    code, report = gate(project, capsys)
    assert code == 1
    assert report["verdict"] == "fail" and report["merged_tree"] is None
    (conflict,) = findings(report, "PG108")
    assert conflict["path"] == CORE
    assert "rebase" in conflict["message"]
    notes = [note for step in report["steps"] for note in step["notes"]]
    assert all("not judged" in note for note in notes)


def test_the_merged_tree_is_written_without_touching_the_checkout(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit("one", {"a.txt": "1\n", "b.txt": "1\n"})
    repo.branch("side")
    repo.commit("side", {"b.txt": "2\n"})
    repo.checkout("main")
    repo.commit("main", {"a.txt": "2\n"})
    git = GitRepo(repo.root)
    merged = git.merge("main", "side")
    assert merged.tree is not None and merged.conflicts == ()
    assert (git.read(merged.tree, "a.txt"), git.read(merged.tree, "b.txt")) == (b"2\n", b"2\n")
    assert [c.path for c in git.changes("main", merged.tree)] == ["b.txt"]
    assert repo.git("status", "--porcelain") == ""
    assert (repo.root / "b.txt").read_text() == "1\n"


def objects_of(root: Path) -> dict[str, int]:
    folder = root / ".git" / "objects"
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


def test_the_merge_leaves_the_repository_as_it_was(
    project: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # the action mounts the repository read-only: the merged tree is planegate's own object
    stale_branch(project, {"calc/extra.py": "def twice(x):\n    return 2 * x\n"})
    before = objects_of(project.root)
    code, report = gate(project, capsys)
    assert code == 0, report
    assert objects_of(project.root) == before
    merged = report["merged_tree"]
    assert merged not in {GitRepo(project.root).resolve(ref) for ref in ("main", "stale")}
    found = subprocess.run(  # git itself does not find the merged tree in the repository
        ["git", "-C", str(project.root), "cat-file", "-e", merged], capture_output=True, check=False
    )
    assert found.returncode != 0
