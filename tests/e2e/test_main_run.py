"""Main's run in the digest: `planegate digest` runs main's scoring tests once and records the
ones that did not pass; a gate at the digest's commit, in the same environment, reads the
base's outcomes from it instead of running the base (the tests a patch flips, and "skipped on
main too"), and runs the base itself when the digest cannot vouch for them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from helpers.answers_support import Project, assert_caught, assert_honest, probe
from helpers.fair_project import BROKEN, PREFIX, fair_repo, honest_patch
from helpers.fair_project import CONFIG as FAIR_CONFIG
from helpers.label_project import FILES, HONEST, LABEL_3, TRICKS
from helpers.repo_helper import TestRepo, run_cli
from planegate.gate import main_run

SKIPPED = (PREFIX + "test_needs_python_4", PREFIX + "test_needs_a_tool")


@pytest.fixture
def repo(tmp_path: Path) -> TestRepo:
    """A base that skips, xfails and fails some of its scoring tests."""
    return fair_repo(tmp_path / "repo")


def digest_of(repo: TestRepo, out: Path, *args: str) -> dict[str, Any]:
    done = run_cli("-C", str(repo.root), "digest", "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return data


def gate(repo: TestRepo, digest: Path) -> tuple[int, dict[str, Any], str]:
    done = run_cli(
        "-C", str(repo.root), "gate", "--base", "main", "--digest", str(digest), "--format", "json"
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_the_digest_records_mains_tests_that_did_not_pass(repo: TestRepo, tmp_path: Path) -> None:
    data = digest_of(repo, tmp_path / "digest.json")
    run = data["run"]
    assert run["environment"] == main_run.fingerprint()
    assert sorted(run["not_passed"]) == sorted([BROKEN, PREFIX + "test_known_bug", *SKIPPED]), run[
        "not_passed"
    ]
    assert run["not_passed"][BROKEN] == {"outcome": "failed", "message": ""}  # no failure text
    assert "needs Python 4" in run["not_passed"][SKIPPED[0]]["message"]
    assert run["not_passed"][PREFIX + "test_known_bug"]["outcome"] == "xfailed"
    assert list(run["file_seconds"]) == ["tests/fix/test_calc.py"]
    collect_only = digest_of(repo, tmp_path / "collected.json", "--collect-only")
    assert "run" not in collect_only
    assert collect_only["inventory"] == data["inventory"]


def test_a_gate_with_mains_run_reruns_only_what_main_did_not_explain(
    repo: TestRepo, tmp_path: Path
) -> None:
    digest = tmp_path / "digest.json"
    digest_of(repo, digest)
    honest_patch(repo)
    code, report, progress = gate(repo, digest)
    assert code == 6, report
    notes = "\n".join(report["steps"][4]["notes"])
    assert f"{SKIPPED[0]} skipped on main too: Skipped: needs Python 4" in notes
    assert f"{PREFIX}test_known_bug xfailed on main too" in notes
    assert [f["nodeid"] for s in report["steps"] for f in s["findings"]] == [BROKEN]
    # the skips and the xfail are main's by the digest; only the failing test runs on the base
    assert "rerunning 1 tests that did not pass on the patch" in progress, progress
    # a log that is not a terminal: tests done of total with the time spent, per tenth
    counts = re.findall(r"planegate: planes: (\d+)/(\d+) tests, \d+ s elapsed", progress)
    assert counts and counts[-1][0] == counts[-1][1], progress
    assert "planegate: base: 1/1 tests" in progress, progress
    base = probe(report, "base run")
    assert base["detail"].startswith("main's run in the digest: 4 scoring tests did not pass")
    assert base["tests"] == 0


def test_a_run_from_another_environment_is_not_used(repo: TestRepo, tmp_path: Path) -> None:
    digest = tmp_path / "digest.json"
    data = digest_of(repo, digest)
    data["run"]["environment"]["python"] = "0.0.1"
    digest.write_text(json.dumps(data), "utf-8")
    honest_patch(repo)
    code, report, progress = gate(repo, digest)
    assert code == 6, report
    assert "main's run was in another environment (python 0.0.1, here " in report["digest_source"]
    assert "rerunning 4 tests that did not pass on the patch" in progress, progress


def test_the_tests_main_fails_are_flipped_by_the_digest_and_probed(tmp_path: Path) -> None:
    project = Project(tmp_path, FILES)
    recorded = json.loads(project.digest.read_text("utf-8"))["run"]["not_passed"]
    assert recorded[LABEL_3]["outcome"] == "failed"
    project.branch("case-blind", {"calc/core.py": TRICKS["case-blind"]})
    project.branch("honest", {"calc/core.py": HONEST["honest"]})
    code, report = project.gate("case-blind")
    assert probe(report, "base run")["detail"].startswith("main's run in the digest")
    assert_caught(report, code, "PG123", LABEL_3, "strict comparisons")
    code, report = project.gate("honest")
    assert_honest(report, code, flipped=2)


SLOW_TESTS = """\
import pytest

from calc.core import add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.slow
def test_add_many():
    assert sum(add(i, 1) for i in range(10)) == 55
"""


def test_tests_the_bases_options_deselect_are_mains_by_the_digest(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit(
        "main",
        {
            "planegate.yml": FAIR_CONFIG,
            "pytest.ini": '[pytest]\ntestpaths = tests\naddopts = -m "not slow"\n'
            "markers =\n    slow: a long test\n",
            "calc/__init__.py": "",
            "calc/core.py": "FAST = True\n\n\ndef add(a, b):\n    return a + b\n",
            "tests/fix/test_calc.py": SLOW_TESTS,
        },
    )
    digest = tmp_path / "digest.json"
    slow = "tests/fix/test_calc.py::test_add_many"
    assert digest_of(repo, digest)["run"]["not_passed"] == {
        slow: {"outcome": "deselected", "message": ""}
    }
    honest_patch(repo)
    code, report, progress = gate(repo, digest)
    assert code == 0, report
    assert f"{slow} deselected on main too" in "\n".join(report["steps"][4]["notes"])
    assert "rerunning" not in progress, progress  # the base ran nothing: the digest said it
    assert probe(report, "base run")["tests"] == 0
