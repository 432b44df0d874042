"""`gate --shard K/N` on `runner: junit` suites: each shard leaves the other shards' ids out
through the runner's own filter (ctest's `-E` for the script suite of
tests/helpers/junit_suite.py, `--test-name-pattern` for the node:test suite of
test_junit_node.py), and the merge gives the unsharded gate's exit code; without a filter
`--shard` is refused naming the option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import junit_suite
from helpers.repo_helper import TestRepo, run_cli

NODE_TESTS = Path(__file__).with_name("test_junit_node.py")
BUG = "def add(a, b):\n    return a + b + (1 if a > 5 else 0)\n"
SCORING = {"props::add_commutes", "props::add_zero", "golden::golden_table"}


def gate(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("-C", str(root), "gate", "--base", "main", "-q", "--format", "json", *args)
    report: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, report, done.stderr


def sharded(repo: TestRepo, folder: Path, total: int = 2) -> tuple[list[dict[str, Any]], int]:
    """Every shard's report, and the merge's exit code."""
    paths, reports = [], []
    for k in range(1, total + 1):
        path = folder / f"shard-{k}.json"
        code, report, stderr = gate(repo.root, "--shard", f"{k}/{total}", "--evidence", str(path))
        assert report, stderr
        assert code == report["exit_code"], stderr
        paths.append(path)
        reports.append(report)
    for path in paths:  # the filter left the other shards' ids out: they never ran here
        evidence = json.loads(path.read_text())
        outcomes = evidence["execution"]["head_run"]["outcomes"]
        assert set(outcomes) == set(evidence["assigned"]), (outcomes, evidence["assigned"])
    merged, _, stderr = gate(repo.root, "--merge", *map(str, paths))
    return reports, merged


def ran(report: dict[str, Any]) -> set[str]:
    """The ids a shard's report judges (its planes step's failures name them)."""
    return {f["nodeid"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"}


@pytest.fixture
def script_suite(tmp_path: Path) -> TestRepo:
    repo = junit_suite.build(tmp_path / "script")
    repo.branch("patch")
    return repo


def test_a_bug_fails_the_merge_and_each_shard_judges_only_its_own(
    script_suite: TestRepo, tmp_path: Path
) -> None:
    script_suite.commit("faster add", {"src/calc.py": BUG})
    reports, merged = sharded(script_suite, tmp_path)
    assert merged == 1
    failing = [ran(r) for r in reports]
    assert failing[0].isdisjoint(failing[1])
    assert failing[0] | failing[1] == SCORING
    assert [len(r["shadow"]) for r in reports] == [1, 0]  # the shadow lane runs in shard 1


def test_an_honest_patch_passes_the_merge(script_suite: TestRepo, tmp_path: Path) -> None:
    script_suite.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    assert sharded(script_suite, tmp_path)[1] == 0


def test_a_suite_without_a_filter_is_refused_naming_the_option(tmp_path: Path) -> None:
    config = junit_suite.CONFIG.replace("filter: ctest", "filter: none")
    repo = junit_suite.build(tmp_path / "unfiltered", config)
    repo.branch("patch")
    repo.commit("a comment", {"src/calc.py": "# adds\n" + junit_suite.CALC})
    evidence = str(tmp_path / "s1.json")
    done = run_cli(
        "-C", str(repo.root), "gate", "--base", "main", "--shard", "1/2", "--evidence", evidence
    )
    assert done.returncode == 64
    assert "set junit.filter and put {deselect} in junit.command" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_node_suite_shards_through_its_name_pattern(tmp_path: Path) -> None:
    from importlib import util

    spec = util.spec_from_file_location("node_suite", NODE_TESTS)
    assert spec is not None and spec.loader is not None
    node = util.module_from_spec(spec)
    spec.loader.exec_module(node)
    repo = TestRepo(tmp_path / "node")
    repo.write(
        {
            "planegate.yml": node.CONFIG,
            "src/calc.js": node.CALC,
            "test/props.test.js": node.PROPS,
            "test/golden.test.js": node.GOLDEN,
            "test/timing.test.js": node.TIMING,
            "data/golden.txt": "1 2 3\n-4 4 0\n10 -3 7\n",
            ".gitignore": "out/\n",
        }
    )
    first = repo.commit("calc and its node:test suite")
    assert run_cli("-C", str(repo.root), "lock", "--no-trace").returncode == 0
    repo.commit("lock, freeze", {"freeze_ledger.jsonl": node.freeze_line(first) + "\n"})
    repo.branch("patch")
    repo.commit("faster add", {"src/calc.js": node.BUG})
    (tmp_path / "evidence").mkdir()
    reports, merged = sharded(repo, tmp_path / "evidence")
    assert merged == 1
    failing = [ran(r) for r in reports]
    assert failing[0].isdisjoint(failing[1])
    assert failing[0] | failing[1] == SCORING
