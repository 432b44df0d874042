"""Event files and agent detection."""

from __future__ import annotations

import pytest

from helpers.fake_github import FakeGitHub
from helpers.github_support import BASE, HEAD
from planegate.config.agents import is_agent, matches_any
from planegate.errors import InputDataError, UsageError
from planegate.github.event_payload import parse_event


def _fake() -> FakeGitHub:
    fake = FakeGitHub()
    fake.api_url = "http://127.0.0.1:1"
    fake.add_pull(7, head_sha=HEAD, base_sha=BASE, labels=("agent",), head_repo="fork/demo")
    return fake


@pytest.mark.parametrize("name", ["pull_request", "pull_request_target"])
def test_pull_request_events(name: str) -> None:
    fake = _fake()
    event = parse_event(name, fake.event_payload(7), repository="octo/demo", sha="c" * 40)
    assert event.sha == HEAD and event.repository_id == 4242 and event.default_branch == "main"
    assert event.pull is not None and event.pull_trusted
    assert (event.pull.number, event.pull.base_sha, event.pull.author) == (7, BASE, "coder[bot]")
    assert event.pull.labels == ("agent",) and event.pull.from_fork


def test_push_ignores_the_zero_before_of_a_new_branch() -> None:
    event = parse_event(
        "push", {"before": "0" * 40, "after": HEAD}, repository="octo/demo", sha="c" * 40
    )
    assert event.sha == HEAD and event.before is None and event.pull is None


def test_workflow_dispatch_uses_github_sha() -> None:
    event = parse_event("workflow_dispatch", {}, repository="octo/demo", sha="c" * 40)
    assert event.sha == "c" * 40 and event.pull is None


def test_merge_group_judges_the_queue_head_against_its_base() -> None:
    group = {"head_sha": HEAD, "base_sha": BASE, "head_ref": "refs/heads/gh-readonly-queue/main/x"}
    event = parse_event("merge_group", {"merge_group": group}, repository="octo/demo", sha="c")
    assert (event.sha, event.before, event.pull) == (HEAD, BASE, None)
    with pytest.raises(InputDataError, match=r"base_sha"):
        parse_event("merge_group", {"merge_group": {"head_sha": HEAD}}, repository="o/d", sha="c")


def test_workflow_run_takes_the_uploaded_event_but_does_not_trust_it() -> None:
    fake = _fake()
    payload = {"workflow_run": {"head_sha": HEAD, "pull_requests": []}}
    event = parse_event(
        "workflow_run", payload, repository="octo/demo", sha="c", uploaded=fake.event_payload(7)
    )
    assert event.sha == HEAD and event.pull is not None and event.pull.number == 7
    assert not event.pull_trusted


def test_workflow_run_refuses_an_uploaded_event_for_another_commit() -> None:
    fake = _fake()
    payload = {"workflow_run": {"head_sha": "d" * 40, "pull_requests": []}}
    with pytest.raises(InputDataError, match="the uploaded event file is for"):
        parse_event(
            "workflow_run", payload, repository="octo/demo", sha="c", uploaded=fake.event_payload(7)
        )


def test_unsupported_event_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="'issues' is not supported"):
        parse_event("issues", {}, repository="octo/demo", sha="c")


def test_agent_patterns_take_brackets_literally() -> None:
    assert matches_any("coder[bot]", ["*[bot]"])
    assert not matches_any("robot", ["*[bot]"])
    assert matches_any("Devin-AI", ["devin-ai"])
    assert is_agent("alice", ["Agent"], authors=["*[bot]"], agent_labels=["agent"])
    assert not is_agent("alice", ["bug"], authors=["*[bot]"], agent_labels=["agent"])
