"""Tests a patch adds are its claims: they run apart and never vote, they are unclassified
(PG207, exit 2) with the rows that would classify them, a person's commit adding those rows
(and nothing else) classifies them, and so does an `admit` folder declared on main. Real git
repositories, the real CLI, whole gates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers.attack_helper import BUG, COMMUTES, errors
from helpers.fake_github import running
from helpers.github_support import action_env, run_action
from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

AGENT = ("coder[bot]", "41898282+coder[bot]@users.noreply.github.com")
PERSON = ("Alice Maintainer", "alice@example.com")
MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"
CORE = str(PROJECT["calc/core.py"]) + "\n\n" + MEAN
NEW_TEST = "from calc.core import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"
ADMIT = '    admit: ["tests/regressions/"]\n'


def _config(admit: bool) -> str:
    config = str(PROJECT["planegate.yml"])
    if admit:
        config = config.replace(
            '    paths: ["tests/fix/"]\n', '    paths: ["tests/fix/"]\n' + ADMIT
        )
    return config


def _main_files(admit: bool) -> dict[str, str | bytes]:
    files = {**PROJECT, "planegate.yml": _config(admit)}
    if admit:  # a regression test already on main, in the admit folder
        files["tests/regressions/test_old.py"] = (
            "from calc.core import add\n\n\ndef test_add_small():\n    assert add(1, 1) == 2\n"
        )
    files["tests/fixtures.lock.json"] = manifest_for(files)
    return files


_TEMPLATES: dict[bool, Path] = {}


@pytest.fixture
def repo(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    return _copy(tmp_path, tmp_path_factory, admit=False)


@pytest.fixture
def admitting(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    return _copy(tmp_path, tmp_path_factory, admit=True)


def _copy(tmp_path: Path, factory: pytest.TempPathFactory, *, admit: bool) -> TestRepo:
    if admit not in _TEMPLATES:
        template = TestRepo(factory.mktemp("template") / "project")
        template.commit("main", _main_files(admit))
        _TEMPLATES[admit] = template.root
    shutil.copytree(_TEMPLATES[admit], tmp_path / "project", symlinks=True)
    copy = TestRepo(tmp_path / "project", init=False)
    copy.branch("patch")
    return copy


def commit_as(repo: TestRepo, who: tuple[str, str], message: str, files: dict[str, str]) -> str:
    """A commit whose author and committer are `who` (the suite's environment names its own
    identity in GIT_AUTHOR_* and GIT_COMMITTER_*, which git prefers to any -c option)."""
    repo.write(files)
    repo.git("add", "--all")
    name, email = who
    identity = {
        f"GIT_{role}_{key}": value
        for role in ("AUTHOR", "COMMITTER")
        for key, value in (("NAME", name), ("EMAIL", email))
    }
    subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=repo.root,
        env={**os.environ, **identity},
        check=True,
        capture_output=True,
    )
    return repo.git("rev-parse", "HEAD")


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    argv = ["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


def with_rows(repo: TestRepo, entries: str, plane: str = "fixture") -> str:
    """planegate.yml with `entries` added to the plane's nodeids."""
    config = (repo.root / "planegate.yml").read_text("utf-8")
    anchor = '    paths: ["tests/fix/"]\n' if plane == "fixture" else '    paths: ["tests/prop/"]\n'
    return config.replace(anchor, anchor + f"    nodeids: [{entries}]\n")


def test_an_honest_test_adding_patch_stops_with_the_rows_then_a_persons_commit_passes(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        repo,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/fix/test_mean.py": NEW_TEST},
    )
    code, report = gate(repo, capsys)
    assert code == 2, errors(report)
    (unclassified,) = findings(report, "PG207")
    assert unclassified["path"] == "tests/fix/test_mean.py"
    assert "tests/fix/test_mean.py::test_mean" in unclassified["message"]
    assert "PG301" not in errors(report)  # a test the patch adds is its claim, not evidence
    assert report["new_tests"] == [
        {
            "nodeid": "tests/fix/test_mean.py::test_mean",
            "outcome": "passed",
            "plane": "unclassified",
        }
    ]
    assert report["classify"] == [
        "planes:",
        "  fixture:",
        "    nodeids:",
        '      - "tests/fix/test_mean.py"',
    ]
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert planes["notes"][0] == "2/2 expected nodeids passed"  # the claim never votes

    commit_as(
        repo,
        PERSON,
        "classify test_mean",
        {"planegate.yml": with_rows(repo, "tests/fix/test_mean.py")},
    )
    code, report = gate(repo, capsys)
    assert code == 0, errors(report)
    assert report["new_tests"][0]["plane"] == "fixture"
    assert report["classify"] == []
    inventory = next(s for s in report["steps"] if s["step"] == "inventory")
    assert any("accepted from the head" in note and "Alice" in note for note in inventory["notes"])


def test_the_same_rows_committed_by_the_agent_stay_refused(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        repo,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/fix/test_mean.py": NEW_TEST},
    )
    rows = with_rows(repo, "tests/fix/test_mean.py")
    commit_as(repo, AGENT, "classify test_mean", {"planegate.yml": rows})
    code, report = gate(repo, capsys)
    assert code == 2
    assert {"PG207", "PG301"} <= errors(report)
    (refused,) = findings(report, "PG301")
    assert refused["path"] == "planegate.yml"
    assert "is by an agent (coder[bot]" in refused["message"]


def test_a_persons_commit_that_changes_more_than_rows_stays_refused(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        repo,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/fix/test_mean.py": NEW_TEST},
    )
    rows = with_rows(repo, "tests/fix/test_mean.py").replace("triage_runs: 0", "triage_runs: 1")
    commit_as(repo, PERSON, "classify and more", {"planegate.yml": rows})
    code, report = gate(repo, capsys)
    assert code == 2
    (refused,) = findings(report, "PG301")
    assert "changes more than the planes' nodeids" in refused["message"]


def test_rows_for_a_test_main_already_has_are_not_a_classification(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        repo,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/fix/test_mean.py": NEW_TEST},
    )
    rows = with_rows(repo, '"tests/fix/test_mean.py", "tests/prop/test_add_props.py"')
    commit_as(repo, PERSON, "classify, and move main's property test", {"planegate.yml": rows})
    code, report = gate(repo, capsys)
    assert code == 2
    (refused,) = findings(report, "PG301")
    assert "tests/prop/test_add_props.py is not in a test file the patch adds" in refused["message"]


def test_an_added_test_under_an_admit_folder_joins_its_plane(
    admitting: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        admitting,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/regressions/test_mean.py": NEW_TEST},
    )
    code, report = gate(admitting, capsys)
    assert code == 0, errors(report)
    assert report["new_tests"] == [
        {
            "nodeid": "tests/regressions/test_mean.py::test_mean",
            "outcome": "passed",
            "plane": "fixture",
        }
    ]


def test_a_modified_test_under_an_admit_folder_is_still_protected(
    admitting: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    weakened = (
        "from calc.core import add\n\n\ndef test_add_small():\n    assert add(1, 1) is not None\n"
    )
    commit_as(admitting, AGENT, "loosen", {"tests/regressions/test_old.py": weakened})
    code, report = gate(admitting, capsys)
    assert code == 3
    (changed,) = findings(report, "PG301")
    assert changed["path"] == "tests/regressions/test_old.py" and "modified" in changed["message"]


# A test file the patch adds whose import-time code reaches for main's evidence: it makes the
# buggy `add` right in place (its code object), and rebinds `add` in main's test module.
REACH = """\
import sys

import calc.core


def _right(a, b):
    return a + b


calc.core.add.__code__ = _right.__code__
for _name, _module in list(sys.modules.items()):
    if _name.endswith("test_add_props"):
        _module.add = _right


def test_claim():
    assert calc.core.add(2, 2) == 4
"""


def test_a_new_test_reaching_for_mains_tests_at_import_cannot_change_their_verdict(
    admitting: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_as(
        admitting,
        AGENT,
        "a bug, and a test that hides it",
        {"calc/core.py": BUG, "tests/regressions/test_zz_reach.py": REACH},
    )
    code, report = gate(admitting, capsys)
    assert code == 1, errors(report)
    failed = {f["nodeid"] for f in findings(report, "PG101")}
    assert COMMUTES in failed
    # the claim ran, apart: in its own session its trick works, and it still does not vote
    assert report["new_tests"] == [
        {
            "nodeid": "tests/regressions/test_zz_reach.py::test_claim",
            "outcome": "passed",
            "plane": "fixture",
        }
    ]


def test_a_claim_that_fails_is_reported_and_does_not_vote(
    admitting: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = "def test_claim():\n    assert 1 == 2\n"
    commit_as(admitting, AGENT, "a failing claim", {"tests/regressions/test_claim.py": failing})
    code, report = gate(admitting, capsys)
    assert code == 0, errors(report)
    (warned,) = findings(report, "PG208")
    assert warned["severity"] == "warning"
    assert warned["nodeid"] == "tests/regressions/test_claim.py::test_claim"


# ---------------------------------------------------------------- the action: GitHub's word
@pytest.mark.parametrize(
    ("author", "committer", "verified", "code"),
    [
        ("alice", "alice", True, 0),  # signed by Alice's key, GitHub verified it
        ("alice", "web-flow", True, 0),  # made by Alice on github.com
        ("alice", "alice", False, 2),  # the name Alice, claimed by an unsigned commit
        ("alice", "coder[bot]", True, 2),  # the agent signed a commit naming Alice as author
    ],
)
def test_in_the_action_only_a_commit_github_verified_as_a_persons_classifies(
    repo: TestRepo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    author: str,
    committer: str,
    verified: bool,
    code: int,
) -> None:
    commit_as(
        repo,
        AGENT,
        "mean, and its test",
        {"calc/core.py": CORE, "tests/fix/test_mean.py": NEW_TEST},
    )
    rows = with_rows(repo, "tests/fix/test_mean.py")
    classified = commit_as(repo, PERSON, "classify test_mean", {"planegate.yml": rows})
    base = repo.git("rev-parse", "main")
    with running() as gh:
        gh.add_pull(1, head_sha=classified, base_sha=base, author="coder[bot]")
        gh.add_commit(classified, author=author, committer=committer, verified=verified)
        env = action_env(
            tmp_path, gh.api_url, gh.event_payload(1), working_directory=str(repo.root)
        )
        env["GITHUB_SHA"] = classified
        assert run_action(monkeypatch, env) == code
        assert gh.requests_to("GET", rf"/commits/{classified}$")
        (comment,) = gh.comments_on(1)
        (check,) = gh.check_runs.values()
    rows_block = "### Rows that would classify the tests the patch adds"
    if code == 0:
        assert check["conclusion"] == "success" and rows_block not in comment["body"]
    else:
        assert check["conclusion"] == "failure"
        for text in (comment["body"], check["output"]["summary"]):
            assert rows_block in text and '      - "tests/fix/test_mean.py"' in text
        assert "PG207" in comment["body"] and "not taken from the head" in comment["body"]


def test_a_new_file_that_does_not_import_is_still_unclassified(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = "import calc.nowhere\n\n\ndef test_x():\n    pass\n"
    commit_as(repo, AGENT, "a test that cannot import", {"tests/fix/test_broken.py": broken})
    code, report = gate(repo, capsys)
    assert code == 2
    (unclassified,) = findings(report, "PG207")
    assert unclassified["path"] == "tests/fix/test_broken.py"
    (error,) = findings(report, "PG208")
    assert error["path"] == "tests/fix/test_broken.py" and "calc.nowhere" in error["message"]
    assert '      - "tests/fix/test_broken.py"' in report["classify"]
