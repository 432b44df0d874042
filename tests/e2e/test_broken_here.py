"""A test that fails on main deterministically in this environment, under plain pytest too
(attrs' `test_wrapped_annotation` on this machine's Python): every patch exits 6 and names
the way out; `planegate sweep --broken-here` proposes an `env` freeze with its evidence (every
run failing in the gate's environment, alone, and under plain pytest, with the environment's
fingerprint); once a person commits it, an honest patch exits 0 and a real bug still exits 1.
Without the option the sweep proposes nothing for it: only a person can say main passes
where the project's own CI runs."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo, run_cli

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
  freeze:
    owner: "@org/flakes"
    max_fraction: 0.5
pytest:
  plugins: []
"""
HERE = "tests/fix/test_interpreter.py::test_needs_a_newer_interpreter"
FILES = {
    "planegate.yml": CONFIG,
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a + b\n",
    "tests/fix/test_add.py": (
        "from calc.core import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_add_zero():\n    assert add(0, 7) == 7\n"
    ),
    # passes where the project's CI runs (a newer interpreter), on no Python here
    "tests/fix/test_interpreter.py": (
        "import sys\n\nfrom calc.core import add\n\n\n"
        "def test_needs_a_newer_interpreter():\n"
        "    assert add(1, 1) == 2\n    assert sys.version_info >= (3, 99)\n"
    ),
}


@pytest.fixture(scope="module")
def main_repo(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    repo = TestRepo(tmp_path_factory.mktemp("broken-here") / "repo")
    repo.commit("suite", FILES)
    return repo


def test_the_gate_exits_6_and_names_the_way_out(main_repo: TestRepo, tmp_path: Path) -> None:
    repo = main_repo.copy(tmp_path / "repo")
    repo.branch("honest")
    repo.commit("a comment", {"calc/core.py": "# adds\n" + FILES["calc/core.py"]})
    done = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert done.returncode == 6, done.stdout
    assert "PG111" in done.stdout and HERE in done.stdout
    assert "planegate sweep --broken-here" in done.stdout


def test_the_sweep_alone_calls_the_base_broken_and_names_the_option(
    main_repo: TestRepo, tmp_path: Path
) -> None:
    repo = main_repo.copy(tmp_path / "repo")
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "3", "-q")
    assert done.returncode == 6, done.stdout + done.stderr
    assert f"base broken: {HERE} failed every run, and alone" in done.stdout
    assert "planegate: 0 proposals" in done.stdout
    assert "`planegate sweep --broken-here` proposes an `env` freeze" in done.stderr


def test_a_freeze_on_the_maintainers_word_lets_honest_work_pass_and_bugs_fail(
    main_repo: TestRepo, tmp_path: Path
) -> None:
    repo = main_repo.copy(tmp_path / "repo")
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "3", "--broken-here", "--write", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"propose freeze {HERE}: env (confidence 0.50), failed 3/3" in done.stdout
    (line,) = (repo.root / "freeze_ledger.jsonl").read_text("utf-8").splitlines()
    event = json.loads(line)
    assert event["nodeid"] == HERE and event["flake_class"] == "env"
    assert event["env_fingerprint"]["python"] == platform.python_version()
    note = event["note"]
    assert "fails under plain `python -m pytest` in the working tree too, on Python " in note
    bundle = json.loads(
        (repo.root / ".planegate" / "evidence" / f"{event['evidence_hash']}.json").read_text()
    )
    assert [a["outcome"] for a in bundle["attempts"]] == ["failed"] * 3
    (plain,) = bundle["probes"]
    assert plain["probe"] == "plain pytest" and plain["outcome"] == "failed"
    assert "3, 99" in plain["message"]  # pytest's own words on the failure
    repo.commit("freeze the test that fails on this interpreter only")

    repo.branch("honest")
    repo.commit("a comment", {"calc/core.py": "# adds\n" + FILES["calc/core.py"]})
    honest = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert honest.returncode == 0, honest.stdout
    assert HERE in honest.stdout  # in the shadow lane: it runs, and never votes

    repo.branch("bug", "main")
    repo.commit("a bug", {"calc/core.py": "def add(a, b):\n    return a - b\n"})
    bug = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert bug.returncode == 1, bug.stdout
    assert "tests/fix/test_add.py::test_add" in bug.stdout

    again = run_cli("-C", str(repo.root), "sweep", "--commit", "main", "--seed", "3", "-q")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"already frozen: {HERE} (failed every run)" in again.stdout


def test_a_patch_that_freezes_its_own_failure_is_refused(
    main_repo: TestRepo, tmp_path: Path
) -> None:
    """The attack: the patch breaks `add`, then sweeps its own head with --broken-here and
    commits the freezes it proposes, so the failing tests would leave scoring as "fails here
    only". The ledger is main's evidence: the head's appends do not count, and the change to
    it is the patch's."""
    repo = main_repo.copy(tmp_path / "repo")
    repo.branch("bug")
    repo.commit("a bug", {"calc/core.py": "def add(a, b):\n    return a - b\n"})
    done = run_cli("-C", str(repo.root), "sweep", "--seed", "3", "--broken-here", "--write", "-q")
    assert "propose freeze tests/fix/test_add.py::test_add: env" in done.stdout
    repo.commit("freeze what fails here")
    gate = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert gate.returncode == 3, gate.stdout  # the ledger is protected: PG301
    assert "PG301 freeze_ledger.jsonl" in gate.stdout
    assert "PG101 tests/fix/test_add.py:5: tests/fix/test_add.py::test_add failed" in gate.stdout
