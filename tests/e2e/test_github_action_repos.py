"""The action's phases on real repositories against the fake GitHub: main's digest artifact
reaches the evaluation, and report mode re-verifies a report's commits."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.action_support import HONEST, Seen, check_runs, run_with
from helpers.fake_github import FakeGitHub, running
from helpers.github_support import BASE, HEAD, finding, report_of
from helpers.repo_helper import TestRepo
from planegate.findings import Finding, Step
from planegate.repo.git import GitRepo
from planegate.report import Report, json_report
from planegate.report.markdown import INTERNAL_ERROR_TITLE


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        fake.add_pull(7, head_sha=HEAD, base_sha=BASE)
        yield fake


@pytest.fixture
def clone(tmp_path: Path, gh: FakeGitHub) -> GitRepo:
    """A real clone whose main is pull request 8's base, and the pull request's head."""
    repo = TestRepo(tmp_path / "clone")
    base = repo.commit("main", {"a.txt": "1\n"})
    repo.branch("patch")
    head = repo.commit("patch", {"a.txt": "2\n"})
    gh.add_pull(8, head_sha=head, base_sha=base)
    return GitRepo(repo.root)


GATED = "version: 1\nplanes:\n  property: {}\n  fixture:\n    paths: ['tests/']\n"


@pytest.fixture
def gated(tmp_path: Path, gh: FakeGitHub) -> tuple[TestRepo, str, str]:
    """A real clone with a planegate.yml; pull request 9 changes production code only."""
    repo = TestRepo(tmp_path / "gated")
    base = repo.commit(
        "main",
        {
            "planegate.yml": GATED,
            "shop.py": "PRICE = 1\n",
            "tests/test_shop.py": "def test_price():\n    assert 1 == 1\n",
        },
    )
    repo.branch("patch")
    head = repo.commit("patch", {"shop.py": "PRICE = 2\n"})
    gh.add_pull(9, head_sha=head, base_sha=base)
    return repo, base, head


def _report_mode(
    gh: FakeGitHub, tmp_path: Path, gated: tuple[TestRepo, str, str], report: Report
) -> tuple[int, str]:
    repo, _, _ = gated
    report_file = tmp_path / "from-gate.json"
    report_file.write_text(json_report.render(report))
    seen = Seen(RuntimeError("evaluate must not run in report mode"))
    code, out = run_with(
        gh,
        tmp_path,
        seen,
        (gh.event_payload(9), "pull_request"),
        mode="report",
        report_file=str(report_file),
        working_directory=str(repo.root),
    )
    assert seen.jobs == []
    return code, out


def _on(gated: tuple[TestRepo, str, str], findings: list[Finding]) -> Report:
    _, base, head = gated
    return dataclasses.replace(report_of(findings), base=base, head=head, merge_base=base)


def test_report_mode_posts_an_existing_json_report(
    gh: FakeGitHub, tmp_path: Path, gated: tuple[TestRepo, str, str]
) -> None:
    failed = finding(4, rule="PG101", step=Step.PLANES, path="tests/test_shop.py")
    code, _ = _report_mode(gh, tmp_path, gated, _on(gated, [failed]))

    assert code == 1
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure" and len(gh.annotations[run["id"]]) == 1
    (comment,) = gh.comments_on(9)
    assert "recomputed from git" in comment["body"]
    assert "as reported by the pull request's run" in comment["body"]


def test_report_mode_recomputes_the_evidence_a_forged_pass_hid(
    gh: FakeGitHub, tmp_path: Path, gated: tuple[TestRepo, str, str]
) -> None:
    repo, base, _ = gated
    cheat = repo.commit("weaken", {"tests/test_shop.py": "def test_price():\n    pass\n"})
    gh.add_pull(9, head_sha=cheat, base_sha=base)
    forged = dataclasses.replace(report_of([]), base=base, head=cheat, merge_base=base)
    code, _ = _report_mode(gh, tmp_path, gated, forged)

    assert code == 3
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure"
    titles = {a["title"].split(" ")[0] for a in gh.annotations[run["id"]]}
    assert "PG301" in titles


def test_report_mode_refuses_a_report_on_another_commit(
    gh: FakeGitHub, tmp_path: Path, gated: tuple[TestRepo, str, str]
) -> None:
    other = dataclasses.replace(_on(gated, []), head="f" * 40)
    code, _ = _report_mode(gh, tmp_path, gated, other)

    assert code == 65
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure" and run["output"]["title"] == INTERNAL_ERROR_TITLE


def test_report_mode_refuses_a_merge_base_git_does_not_compute(
    gh: FakeGitHub, tmp_path: Path, gated: tuple[TestRepo, str, str]
) -> None:
    _, _, head = gated
    lying = dataclasses.replace(_on(gated, []), merge_base=head)
    code, _ = _report_mode(gh, tmp_path, gated, lying)
    assert code == 65
    (run,) = check_runs(gh)
    assert "git computes" in run["output"]["summary"]


def test_main_digest_artifact_reaches_evaluate(
    gh: FakeGitHub, tmp_path: Path, clone: GitRepo
) -> None:
    gh.add_artifact(head_sha=clone.resolve("main"), payload=b'{"root": "r"}')
    seen = Seen(HONEST)
    code, _ = run_with(gh, tmp_path, seen, (gh.event_payload(8), "pull_request"), git=clone)

    assert code == 0
    (digest,) = seen.digests
    assert digest is not None
    assert digest.data == b'{"root": "r"}'  # in memory: no temporary file
    assert "(the base tip)" in digest.source


def test_a_pull_request_artifact_is_refused_with_a_finding(
    gh: FakeGitHub, tmp_path: Path, clone: GitRepo
) -> None:
    gh.add_artifact(head_sha=clone.resolve("main"), payload=b"forged", event="pull_request")
    seen = Seen(HONEST)
    code, _ = run_with(gh, tmp_path, seen, (gh.event_payload(8), "pull_request"), git=clone)

    assert code == 0  # a refusal is a warning; the gate recomputes at the base tip
    assert seen.digests[0] is None
    written = json.loads((tmp_path / "planegate-report.json").read_text())
    rules = [f["rule"] for step in written["steps"] for f in step["findings"]]
    assert rules == ["PG306", "PG307"]
    (comment,) = gh.comments_on(8)
    assert "PG306" in comment["body"] and "pull_request run" in comment["body"]
