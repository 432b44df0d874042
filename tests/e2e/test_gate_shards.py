"""`gate --shard K/N` and `gate --merge`: three shards of a real repository, merged, give the
unsharded gate's exit code and findings; evidence that does not add up is exit 65 naming
the file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo, run_cli
from helpers.shard_project import add_bug, honest_fix, project_files

SHARDS = 3


def gate(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("-C", str(root), "gate", "--base", "main", "-q", "--format", "json", *args)
    report: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, report, done.stderr


def verdict(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The findings as (rule, nodeid or path), sorted: what sharding must not change."""
    found = [
        (f["rule"], f.get("nodeid") or f.get("path"))
        for step in report["steps"]
        for f in step["findings"]
    ]
    return sorted(found, key=str)


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


def merge(root: Path, paths: list[Path], *extra: str) -> tuple[int, dict[str, Any], str]:
    return gate(root, *extra, "--merge", *map(str, paths))


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


def test_three_shards_merged_fail_as_the_unsharded_gate_does(
    buggy: tuple[TestRepo, list[Path]],
) -> None:
    repo, paths = buggy
    whole_code, whole, _ = gate(repo.root)
    code, merged, stderr = merge(repo.root, paths)
    assert whole_code == 1
    assert code == whole_code, stderr
    assert verdict(merged) == verdict(whole)
    failed = {f[1] for f in verdict(merged) if f[0] == "PG101"}
    assert "tests/prop/test_add_props.py::test_add_commutes" not in failed
    assert "tests/prop/test_add_props.py::test_add_zero" in failed
    assert len(failed) >= 3  # failures spread over more than one shard
    owners = {
        p.name: json.loads(p.read_text())["assigned"] for p in paths
    }  # every shard got some of the work
    assert all(owners.values())
    notes = [n for n in merged["notes"] if n.startswith("merged 3 shards")]
    assert notes, merged["notes"]


def test_the_same_inventory_gives_the_same_slice(
    buggy: tuple[TestRepo, list[Path]], tmp_path: Path
) -> None:
    repo, paths = buggy
    again = tmp_path / "again.json"
    gate(repo.root, "--shard", f"2/{SHARDS}", "--evidence", str(again))
    assert json.loads(again.read_text())["assigned"] == json.loads(paths[1].read_text())["assigned"]


def test_an_honest_patch_passes_sharded_and_unsharded(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "project")
    repo.commit("initial", project_files())
    repo.branch("patch")
    repo.commit("patch", honest_fix())
    whole_code, whole, stderr = gate(repo.root)
    assert whole_code == 0, (stderr, verdict(whole))
    code, merged, stderr = merge(repo.root, run_shards(repo.root, tmp_path))
    assert code == 0, (stderr, verdict(merged))
    assert verdict(merged) == verdict(whole) == []


def test_a_missing_shard_is_bad_input(buggy: tuple[TestRepo, list[Path]]) -> None:
    repo, paths = buggy
    code, report, stderr = merge(repo.root, [paths[0], paths[2]])
    assert (code, report) == (65, {})
    assert "shard 2/3 missing" in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_a_shard_given_twice_is_bad_input(buggy: tuple[TestRepo, list[Path]]) -> None:
    repo, paths = buggy
    code, _, stderr = merge(repo.root, [paths[0], paths[1], paths[1], paths[2]])
    assert code == 65
    assert f"{paths[1]}: shard 2/3 is given twice" in stderr


def test_a_tampered_evidence_file_is_bad_input_naming_it(
    buggy: tuple[TestRepo, list[Path]], tmp_path: Path
) -> None:
    repo, paths = buggy
    data = json.loads(paths[1].read_text())
    data["shard"]["index"] = "2"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    code, _, stderr = merge(repo.root, [paths[0], broken, paths[2]])
    assert code == 65
    assert stderr.startswith(f"planegate: {broken}: shard.index: expected integer")

    data = json.loads(paths[1].read_text())
    dropped = data["assigned"].pop()  # a shard that says it was not given a test
    del data["execution"]["head_run"]["outcomes"][dropped]
    lighter = tmp_path / "lighter.json"
    lighter.write_text(json.dumps(data))
    code, _, stderr = merge(repo.root, [paths[0], lighter, paths[2]])
    assert code == 65
    assert "nodeids of the base inventory are in no shard" in stderr
    assert dropped in stderr

    data = json.loads(paths[1].read_text())
    data["assigned"].append(json.loads(paths[0].read_text())["assigned"][0])
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(data))
    code, _, stderr = merge(repo.root, [paths[0], twice, paths[2]])
    assert code == 65
    assert "is assigned to shard" in stderr


def test_a_passing_outcome_written_into_a_file_does_not_pass_a_test_it_did_not_run(
    buggy: tuple[TestRepo, list[Path]], tmp_path: Path
) -> None:
    """An outcome in a shard's file counts only for a nodeid that shard was assigned."""
    repo, paths = buggy
    first = json.loads(paths[0].read_text())
    second = json.loads(paths[1].read_text())
    for nodeid in second["assigned"]:
        first["execution"]["head_run"]["outcomes"][nodeid] = {
            "nodeid": nodeid,
            "outcome": "passed",
            "message": "",
            "duration": 0.0,
        }
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(first))
    whole = merge(repo.root, paths)
    code, report, _ = merge(repo.root, [forged, paths[1], paths[2]])
    assert (code, verdict(report)) == (whole[0], verdict(whole[1]))


def test_evidence_of_another_head_is_bad_input(
    buggy: tuple[TestRepo, list[Path]],
) -> None:
    repo, paths = buggy
    repo.commit("a later commit", {"README.md": "later\n"})
    try:
        code, _, stderr = merge(repo.root, paths)
    finally:
        repo.git("reset", "-q", "--hard", "HEAD~1")
    assert code == 65
    assert stderr.startswith(f"planegate: {paths[0]}: evidence of head ")
    assert "merge the evidence of the shards of this run only" in stderr


def test_shard_and_merge_are_checked_as_usage(buggy: tuple[TestRepo, list[Path]]) -> None:
    repo, paths = buggy
    for args in (
        ("--shard", "1/3"),
        ("--shard", "4/3", "--evidence", "x.json"),
        ("--merge", str(paths[0]), "--shard", "1/3"),
    ):
        code, _, stderr = gate(repo.root, *args)
        assert code == 64, (args, stderr)
    code, _, stderr = gate(repo.root, "--merge", str(repo.root / "none.json"))
    assert code == 65
    assert "none.json: no such evidence file" in stderr


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
