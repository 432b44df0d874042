"""Each shard's report holds only its own slice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo, run_cli
from helpers.shard_project import add_bug, project_files

SHARDS = 3


def gate(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("-C", str(root), "gate", "--base", "main", "-q", "--format", "json", *args)
    report: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, report, done.stderr


def run_shards(root: Path, folder: Path) -> list[Path]:
    paths = []
    for k in range(1, SHARDS + 1):
        path = folder / f"shard-{k}.json"
        code, report, stderr = gate(root, "--shard", f"{k}/{SHARDS}", "--evidence", str(path))
        assert report, stderr
        assert code == report["exit_code"], stderr
        assert path.is_file()
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def buggy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestRepo, list[Path]]]:
    """A repository whose patch breaks production code, and its three shards' evidence."""
    with pytest.MonkeyPatch.context() as env:
        home = tmp_path_factory.mktemp("home")
        env.setenv("HOME", str(home))
        env.setenv("GIT_CONFIG_NOSYSTEM", "1")
        env.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
        repo = TestRepo(tmp_path_factory.mktemp("buggy") / "project")
        repo.commit("initial", project_files())
        repo.branch("patch")
        repo.commit("patch", add_bug())
        yield repo, run_shards(repo.root, tmp_path_factory.mktemp("evidence"))


def test_each_shard_reports_only_its_own_slice(buggy: tuple[TestRepo, list[Path]]) -> None:
    _, paths = buggy
    seen: list[str] = []
    for path in paths:
        evidence = json.loads(path.read_text())
        assigned = set(evidence["assigned"])
        seen += evidence["assigned"]
        outcomes = evidence["execution"]["head_run"]["outcomes"]
        assert assigned <= set(outcomes)  # every assigned nodeid ran here
        reported = {
            f["nodeid"] for s in evidence["report"]["steps"] for f in s["findings"] if f["nodeid"]
        }
        assert reported <= assigned
        assert evidence["exit_code"] == evidence["report"]["exit_code"]
    assert len(seen) == len(set(seen))
