"""`run_action` end to end: real PyGithub and requests against the fake GitHub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.action_support import HONEST, Seen, check_runs, run_with
from helpers.fake_github import FakeGitHub, running
from helpers.github_support import BASE, HEAD, finding, read_outputs, report_of
from planegate.config.load import parse as parse_config
from planegate.errors import ConfigError
from planegate.findings import Severity
from planegate.github.inputs import agent_of
from planegate.report.markdown import INTERNAL_ERROR_TITLE, MARKER

CHEAT = report_of([finding(n) for n in (3, 8)] + [finding(9, severity=Severity.WARNING)])


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        fake.add_pull(7, head_sha=HEAD, base_sha=BASE)
        yield fake


def test_a_cheat_gets_a_failing_check_with_annotations_a_comment_summary_and_outputs(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    code, out = run_with(gh, tmp_path, Seen(CHEAT))

    assert code == 3
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure" and run["head_sha"] == HEAD and run["name"] == "planegate"
    assert run["output"]["title"] == "planegate: fail — evidence (exit 3)"
    assert run["details_url"] == "https://github.com/octo/demo/actions/runs/777"
    assert [a["annotation_level"] for a in gh.annotations[run["id"]]] == [
        "failure",
        "failure",
        "warning",
    ]
    (comment,) = gh.comments_on(7)
    assert comment["body"].startswith(MARKER) and "PG301" in comment["body"]
    summary = (tmp_path / "summary.md").read_text()
    assert "## planegate: ❌ fail" in summary
    outputs = read_outputs(tmp_path / "output.txt")
    assert outputs == {
        "verdict": "fail",
        "exit-code": "3",
        "findings": "3",
        "report-path": str(tmp_path / "planegate-report.json"),
        "check-run-url": run["html_url"],
        "comment-url": comment["html_url"],
        "sarif-id": "",
    }
    written = json.loads(Path(outputs["report-path"]).read_text())
    assert written["exit_code"] == 3 and len(written["steps"][1]["findings"]) == 3
    assert out == ""


def test_an_honest_patch_gets_a_green_check_and_exit_0(gh: FakeGitHub, tmp_path: Path) -> None:
    code, _ = run_with(gh, tmp_path, Seen(HONEST))
    assert code == 0
    (run,) = check_runs(gh)
    assert run["conclusion"] == "success"
    assert read_outputs(tmp_path / "output.txt")["verdict"] == "pass"


def test_two_runs_leave_one_comment(gh: FakeGitHub, tmp_path: Path) -> None:
    run_with(gh, tmp_path, Seen(CHEAT))
    run_with(gh, tmp_path, Seen(HONEST))
    (comment,) = gh.comments_on(7)
    assert "## planegate: ✅ pass" in comment["body"]


def test_the_token_never_reaches_evaluate(gh: FakeGitHub, tmp_path: Path) -> None:
    seen = Seen(HONEST)
    run_with(gh, tmp_path, seen, agent_authors="*[bot]", comment="on-failure")
    (job,) = seen.jobs
    assert "ghs_test_token" not in repr(job)
    assert job.pull is not None and job.pull.number == 7
    assert job.head == HEAD and job.base == BASE
    assert job.author == "coder[bot]" and job.agent is True
    assert job.inputs.comment == "on-failure"


def test_fork_403_falls_back_to_workflow_commands_and_says_so(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 403)
    gh.fail("POST", "/repos/octo/demo/issues/7/comments", 403)
    event = gh.event_payload(7)
    event["pull_request"] = gh.add_pull(7, head_sha=HEAD, base_sha=BASE, head_repo="fork/demo")
    code, out = run_with(gh, tmp_path, Seen(CHEAT), (event, "pull_request"))

    assert code == 3
    assert gh.check_runs == {} and gh.comments_on(7) == []
    lines = out.splitlines()
    assert lines[0].startswith("::error file=tests/test_money.py,line=3,title=PG301 · @octo/qa::")
    assert any(line.startswith("::warning file=tests/test_money.py,line=9,") for line in lines)
    assert "::error title=planegate::planegate: fail — evidence (exit 3)" in lines
    summary = (tmp_path / "summary.md").read_text()
    assert "The token cannot write to this repository" in summary
    assert "## planegate: ❌ fail" in summary
    assert read_outputs(tmp_path / "output.txt")["exit-code"] == "3"


def test_fork_403_on_a_pass_still_exits_0(gh: FakeGitHub, tmp_path: Path) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 403)
    gh.fail("POST", "/repos/octo/demo/issues/7/comments", 403)
    code, _ = run_with(gh, tmp_path, Seen(HONEST))
    assert code == 0


def test_an_internal_error_still_completes_the_check_as_failure(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    code, _ = run_with(gh, tmp_path, Seen(RuntimeError("boom")))

    assert code == 70
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == INTERNAL_ERROR_TITLE
    assert "RuntimeError: boom" in run["output"]["summary"]
    (comment,) = gh.comments_on(7)
    assert INTERNAL_ERROR_TITLE in comment["body"]
    outputs = read_outputs(tmp_path / "output.txt")
    assert outputs["verdict"] == "error" and outputs["exit-code"] == "70"


def test_a_planegate_error_keeps_its_exit_code_and_fails_the_check(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    code, _ = run_with(gh, tmp_path, Seen(ConfigError("planegate.yml:3 planes: unknown key")))
    assert code == 78
    (run,) = check_runs(gh)
    assert run["conclusion"] == "failure"
    assert "planegate.yml:3" in run["output"]["summary"]


def test_a_pass_that_cannot_be_posted_exits_69(gh: FakeGitHub, tmp_path: Path) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 502, times=10)
    code, out = run_with(gh, tmp_path, Seen(HONEST))
    assert code == 69
    assert "::warning title=planegate::posting failed: check run" in out
    assert "Posting failed" in (tmp_path / "summary.md").read_text()


def test_a_failure_that_cannot_be_posted_keeps_the_verdicts_code(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 502, times=10)
    code, _ = run_with(gh, tmp_path, Seen(CHEAT))
    assert code == 3


def test_502_twice_then_201_posts_one_checkrun_with(gh: FakeGitHub, tmp_path: Path) -> None:
    gh.fail("POST", "/repos/octo/demo/check-runs", 502, times=2)
    code, _ = run_with(gh, tmp_path, Seen(CHEAT))
    assert code == 3 and len(gh.check_runs) == 1


def test_workflow_run_rereads_the_uploaded_pull_request_from_the_api(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    uploaded = gh.event_payload(7)
    uploaded["pull_request"]["user"]["login"] = "a-human"  # the fork's run wrote this file
    uploaded["pull_request"]["base"]["sha"] = "e" * 40
    (tmp_path / "pr-event.json").write_text(json.dumps(uploaded))
    event = {
        "action": "completed",
        "workflow_run": {"head_sha": HEAD, "pull_requests": [], "event": "pull_request"},
        "repository": gh.repository(),
    }
    seen = Seen(CHEAT)
    code, _ = run_with(
        gh,
        tmp_path,
        seen,
        (event, "workflow_run"),
        event_file=str(tmp_path / "pr-event.json"),
        agent_authors="*[bot]",
    )

    assert code == 3
    (job,) = seen.jobs
    assert job.author == "coder[bot]" and job.agent is True and job.base == BASE
    assert len(gh.requests_to("GET", r"/pulls/7$")) == 1
    (run,) = check_runs(gh)
    assert run["head_sha"] == HEAD


def test_enterprise_server_api_prefix(tmp_path: Path) -> None:
    with running(prefix="/api/v3") as gh:
        gh.add_pull(7, head_sha=HEAD, base_sha=BASE)
        code, _ = run_with(gh, tmp_path, Seen(CHEAT))
        assert code == 3 and len(gh.check_runs) == 1
        assert all(r.path.startswith("/repos/") for r in gh.log)


def test_bad_inputs_are_a_usage_error(gh: FakeGitHub, tmp_path: Path) -> None:
    code, out = run_with(gh, tmp_path, Seen(HONEST), annotations="maybe")
    assert code == 64
    assert out.startswith("::error title=planegate::input annotations: expected true or false")
    assert gh.log == []


def test_push_event_posts_on_the_pushed_commit_without_a_comment(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    event = {"before": BASE, "after": HEAD, "repository": gh.repository()}
    seen = Seen(HONEST)
    code, _ = run_with(gh, tmp_path, seen, (event, "push"))
    assert code == 0
    assert seen.jobs[0].base == BASE and seen.jobs[0].pull is None
    (run,) = check_runs(gh)
    assert run["head_sha"] == HEAD and gh.comments == {}


def test_merge_group_posts_on_the_queue_commit_and_judges_it_as_a_persons(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    group = {"head_sha": HEAD, "base_sha": BASE, "head_ref": "refs/heads/gh-readonly-queue/main/x"}
    event = {"merge_group": group, "repository": gh.repository()}
    seen = Seen(HONEST)
    code, _ = run_with(gh, tmp_path, seen, (event, "merge_group"))
    assert code == 0
    (job,) = seen.jobs
    assert (job.head, job.base, job.pull) == (HEAD, BASE, None)
    config = (
        'version: 1\nowner: "@o"\nplanes:\n  property: {owner: "@o", paths: ["p/"]}\n'
        '  fixture: {owner: "@o", paths: ["f/"]}\nagents: {authors: ["*"]}\n'
    )
    assert agent_of(job, parse_config(config, "planegate.yml")) is False
    (run,) = check_runs(gh)
    assert (run["head_sha"], run["conclusion"]) == (HEAD, "success") and gh.comments == {}
