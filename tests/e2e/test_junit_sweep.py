"""`planegate sweep` on a `runner: junit` suite: the command run three times on the base; a
test failing in some runs is proposed for a freeze, one failing in every run is the base
broken (exit 6), unless a person says main passes where the project's own CI runs
(`--broken-here`): then it is proposed as an `env` freeze."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import junit_suite
from helpers.repo_helper import TestRepo, run_cli

# fails on odd runs of the command in one tree: runs 1 and 3 of the sweep, and run 5 (the
# second under CPU load)
INTERMITTENT = """def slow_clock():
    count = Path("out/count")
    runs = int(count.read_text()) + 1 if count.exists() else 1
    Path("out").mkdir(exist_ok=True)
    count.write_text(str(runs))
    assert runs % 2 == 0, "timed out waiting for the clock"
"""
ALWAYS = 'def slow_clock():\n    assert False, "timed out waiting for the clock"\n'


def project(root: Path, body: str) -> TestRepo:
    repo = junit_suite.build(root)
    suite = (root / "tests/run_suite.py").read_text().replace(ALWAYS, body)
    repo.commit(
        "the clock test, unfrozen", {"tests/run_suite.py": suite, "freeze_ledger.jsonl": ""}
    )
    return repo


def test_an_intermittent_test_is_proposed_for_a_freeze(tmp_path: Path) -> None:
    repo = project(tmp_path / "p", INTERMITTENT)
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "7")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"propose freeze {junit_suite.FROZEN}: timing" in done.stdout
    assert "failed 2/3" in done.stdout
    assert "the only probe is CPU load" in done.stdout
    proposals = sorted(repo.root.rglob("*proposals*.jsonl"))
    assert proposals, done.stdout
    event = json.loads(proposals[0].read_text().splitlines()[0])
    assert (event["nodeid"], event["flake_class"]) == (junit_suite.FROZEN, "timing")


def test_a_test_failing_every_run_is_the_base_broken(tmp_path: Path) -> None:
    repo = project(tmp_path / "p", ALWAYS)
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "7")
    assert done.returncode == 6, done.stdout + done.stderr
    assert f"base broken: {junit_suite.FROZEN} failed every run" in done.stdout
    assert "propose freeze" not in done.stdout


def test_broken_here_proposes_an_env_freeze_for_a_test_failing_every_run(tmp_path: Path) -> None:
    repo = project(tmp_path / "p", ALWAYS)
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "7", "--broken-here", "--write")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"propose freeze {junit_suite.FROZEN}: env (confidence 0.50), failed 3/3" in done.stdout
    assert "base broken" not in done.stdout
    (line,) = (repo.root / "freeze_ledger.jsonl").read_text("utf-8").splitlines()
    event = json.loads(line)
    assert (event["nodeid"], event["flake_class"]) == (junit_suite.FROZEN, "env")
    assert "runs of the project's command" in event["note"]


def test_a_frozen_test_failing_every_run_is_listed_not_broken(tmp_path: Path) -> None:
    repo = junit_suite.build(tmp_path / "p")  # the ledger freezes the always-failing test
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "7")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"already frozen: {junit_suite.FROZEN} (failed every run)" in done.stdout
    assert "base broken" not in done.stdout
