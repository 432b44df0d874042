"""The sticky PR comment against the fake GitHub."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import BASE, FAST, HEAD
from planegate.github import comments
from planegate.github.client import make_github
from planegate.report.markdown import MARKER


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with running() as fake:
        fake.add_pull(7, head_sha=HEAD, base_sha=BASE)
        yield fake


def _upsert(
    gh: FakeGitHub, body: str, mode: comments.CommentMode = "always", passed: bool = False
) -> comments.CommentOutcome:
    repo = make_github(gh.api_url, "ghs_test_token", FAST).get_repo("octo/demo")
    return comments.upsert_comment(repo, 7, body, mode=mode, passed=passed)


def test_two_runs_leave_one_comment_edited_in_place(gh: FakeGitHub) -> None:
    first = _upsert(gh, f"{MARKER}\nfirst run")
    second = _upsert(gh, f"{MARKER}\nsecond run")

    assert first.action == "created" and second.action == "updated"
    assert first.comment_id == second.comment_id
    (only,) = gh.comments_on(7)
    assert only["body"] == f"{MARKER}\nsecond run"
    assert len(gh.requests_to("POST", r"/issues/7/comments$")) == 1
    assert len(gh.requests_to("PATCH", r"/issues/comments/\d+$")) == 1


def test_other_comments_quoting_the_marker_are_not_taken(gh: FakeGitHub) -> None:
    gh._create_comment(7, {"body": f"> as the bot said:\n> {MARKER}"})
    outcome = _upsert(gh, "report")

    assert outcome.action == "created"
    bodies = sorted(c["body"] for c in gh.comments_on(7))
    assert bodies == sorted([f"> as the bot said:\n> {MARKER}", f"{MARKER}\nreport"])


def test_a_marked_comment_by_someone_else_is_never_taken(gh: FakeGitHub) -> None:
    forged = gh._create_comment(7, {"body": f"{MARKER}\nall green"}, login="coder[bot]")
    outcome = _upsert(gh, f"{MARKER}\nreport")

    assert outcome.action == "created" and outcome.comment_id != forged["id"]
    assert gh.comments[forged["id"]]["body"] == f"{MARKER}\nall green"
    again = _upsert(gh, f"{MARKER}\nsecond report")
    assert (again.action, again.comment_id) == ("updated", outcome.comment_id)


def test_a_marked_comment_of_a_deleted_account_is_skipped_not_a_crash(gh: FakeGitHub) -> None:
    ghost = gh._create_comment(7, {"body": f"{MARKER}\nold"})
    gh.comments[ghost["id"]]["user"] = None
    outcome = _upsert(gh, f"{MARKER}\nreport")
    assert outcome.action == "created" and outcome.comment_id != ghost["id"]


def test_two_checks_keep_a_comment_each(gh: FakeGitHub) -> None:
    repo = make_github(gh.api_url, "ghs_test_token", FAST).get_repo("octo/demo")
    for check in ("planegate", "planegate-docs", "planegate", "planegate-docs"):
        sticky = comments.Sticky(check_name=check)
        comments.upsert_comment(
            repo, 7, f"{MARKER}\n{check}", mode="always", passed=False, sticky=sticky
        )
    bodies = sorted(c["body"] for c in gh.comments_on(7))
    assert bodies == [
        f"{MARKER}\nplanegate",
        "<!-- planegate:report check=planegate-docs -->\nplanegate-docs",
    ]


def test_sticky_comment_is_found_past_the_first_page(gh: FakeGitHub) -> None:
    for n in range(35):
        gh._create_comment(7, {"body": f"chatter {n}"})
    created = gh._create_comment(7, {"body": f"{MARKER}\nold report"})
    outcome = _upsert(gh, f"{MARKER}\nnew report")

    assert outcome.action == "updated" and outcome.comment_id == created["id"]
    assert len(gh.requests_to("GET", r"/issues/7/comments$")) == 2


def test_on_failure_mode_skips_a_pass_but_updates_a_stale_failure(gh: FakeGitHub) -> None:
    skipped = _upsert(gh, "all good", mode="on-failure", passed=True)
    assert skipped.action == "skipped" and gh.comments_on(7) == []

    _upsert(gh, "failed", mode="on-failure", passed=False)
    updated = _upsert(gh, "all good now", mode="on-failure", passed=True)
    assert updated.action == "updated"
    assert [c["body"] for c in gh.comments_on(7)] == [f"{MARKER}\nall good now"]


def test_off_mode_sends_nothing(gh: FakeGitHub) -> None:
    outcome = _upsert(gh, "report", mode="off")
    assert outcome.action == "skipped"
    assert gh.log == []


def test_forbidden_comment_is_a_value(gh: FakeGitHub) -> None:
    gh.fail("POST", "/repos/octo/demo/issues/7/comments", 403)
    outcome = _upsert(gh, "report")
    assert outcome.action == "failed" and outcome.forbidden and not outcome.ok
