"""A fork's pull request end to end (recipe B of docs/recipes.md), on the fake GitHub server.

The pull request's run has no token: it gates, writes the report and keeps its event file.
A `workflow_run` job then posts that report with `mode: report` and `event-file`: one check
run, one sticky comment and, when asked, the SARIF in code scanning.
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import action_env, demo_shop, read_outputs, run_action

FORK = "fork/demo"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path_factory.mktemp("forks") / "shop"
    yield root, demo_shop(root, ("honest-fix", "rewritten-golden"))


def pull_request_run(
    gh: FakeGitHub, tmp: Path, root: Path, head: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, Path]:
    """The fork's `pull_request` run: no token, the report and the event file as artifacts."""
    run_dir = tmp / "pr-run"
    run_dir.mkdir()
    env = action_env(run_dir, gh.api_url, gh.event_payload(1), working_directory=str(root))
    del env["GITHUB_TOKEN"]
    env |= {"GITHUB_SHA": head, "INPUT_COMMENT": "off"}
    artifact = tmp / "artifact"
    artifact.mkdir()
    env["INPUT_REPORT-FILE"] = str(artifact / "planegate-report.json")
    code = run_action(monkeypatch, env)
    shutil.copy(env["GITHUB_EVENT_PATH"], artifact / "event.json")
    return code, artifact


def follow_up_run(
    gh: FakeGitHub,
    tmp: Path,
    root: Path,
    shas: dict[str, str],
    head: str,
    artifact: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, Path]:
    """The trusted `workflow_run` job: main's workflow file, the token, `mode: report`."""
    run_dir = tmp / "post-run"
    run_dir.mkdir()
    event: dict[str, Any] = {
        "action": "completed",
        "workflow_run": {
            "head_sha": head,
            "event": "pull_request",
            "pull_requests": [],  # always empty for a fork
            "head_repository": {"full_name": FORK},
        },
        "repository": gh.repository(),
    }
    env = action_env(
        run_dir,
        gh.api_url,
        event,
        name="workflow_run",
        mode="report",
        sarif="upload",
        working_directory=str(root),
    )
    env |= {
        "GITHUB_SHA": shas["main"],
        "GITHUB_REF": "refs/heads/main",
        "INPUT_REPORT-FILE": str(artifact / "planegate-report.json"),
        "INPUT_EVENT-FILE": str(artifact / "event.json"),
    }
    return run_action(monkeypatch, env), run_dir


def sarif_results(upload: dict[str, Any]) -> list[dict[str, Any]]:
    log = json.loads(gzip.decompress(base64.b64decode(upload["sarif"])))
    results: list[dict[str, Any]] = log["runs"][0]["results"]
    return results


@pytest.mark.parametrize(
    ("patch", "exit_code", "conclusion"),
    [("rewritten-golden", 3, "failure"), ("honest-fix", 0, "success")],
)
def test_a_fork_is_gated_without_a_token_and_posted_by_the_workflow_run(
    shop: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    patch: str,
    exit_code: int,
    conclusion: str,
) -> None:
    root, shas = shop
    head = shas[patch]
    with running() as gh:
        gh.add_pull(1, head_sha=head, base_sha=shas["main"], head_repo=FORK)

        code, artifact = pull_request_run(gh, tmp_path, root, head, monkeypatch)
        assert code == exit_code
        assert gh.log == []  # no token: the pull request's run never talks to GitHub
        assert json.loads((artifact / "planegate-report.json").read_text())["head"] == head

        code, run_dir = follow_up_run(gh, tmp_path, root, shas, head, artifact, monkeypatch)

        assert code == exit_code
        (check,) = gh.check_runs.values()
        assert (check["head_sha"], check["conclusion"]) == (head, conclusion)
        (comment,) = gh.comments_on(1)
        assert comment["body"].startswith("<!-- planegate:report -->")
        assert "recomputed from git" in comment["body"]
        (upload,) = gh.sarifs
        assert (upload["commit_sha"], upload["ref"]) == (head, "refs/pull/1/head")
        rules = {result["ruleId"] for result in sarif_results(upload)}
        assert ("PG301" in rules) is (exit_code == 3)
        outputs = read_outputs(run_dir / "output.txt")
        assert outputs["check-run-url"] == check["html_url"]
        assert outputs["comment-url"] == comment["html_url"]
        assert outputs["sarif-id"] == upload["id"]
        log = json.loads(gzip.decompress(base64.b64decode(upload["sarif"])))
        assert log["runs"][0]["automationDetails"] == {"id": "planegate/"}
        assert len(gh.requests_to("GET", r"/pulls/1$")) == 1  # the event file is re-read


def test_a_forged_pass_for_a_cheat_still_fails(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork edits its own workflow to upload a passing report: the golden file it
    rewrote is found again from git by the posting job."""
    root, shas = shop
    head = shas["rewritten-golden"]
    with running() as gh:
        gh.add_pull(1, head_sha=head, base_sha=shas["main"], head_repo=FORK)
        code, artifact = pull_request_run(gh, tmp_path, root, head, monkeypatch)
        assert code == 3
        report_path = artifact / "planegate-report.json"
        report = json.loads(report_path.read_text())
        for step in report["steps"]:
            step["findings"], step["status"] = [], "pass"
        report |= {"verdict": "pass", "exit_code": 0, "failed_step": None}
        report_path.write_text(json.dumps(report))

        code, _ = follow_up_run(gh, tmp_path, root, shas, head, artifact, monkeypatch)

        assert code == 3
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
        titles = {a["title"].split(" ")[0] for a in gh.annotations[check["id"]]}
        assert "PG301" in titles
