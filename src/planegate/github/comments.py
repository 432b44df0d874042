"""The sticky PR comment: found by a hidden marker and edited in place, never duplicated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from github.IssueComment import IssueComment
from github.Repository import Repository

from planegate.github.client import CALL_ERRORS, describe, is_forbidden
from planegate.report.markdown import COMMENT_LIMIT, MARKER, cut_to

CommentMode = Literal["always", "on-failure", "off"]
COMMENT_MODES: tuple[CommentMode, ...] = ("always", "on-failure", "off")


@dataclass(frozen=True)
class CommentOutcome:
    action: Literal["created", "updated", "skipped", "failed"]
    comment_id: int | None = None
    html_url: str | None = None
    forbidden: bool = False
    error: str | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.action != "failed"


def wanted(mode: CommentMode, passed: bool, existing: bool) -> bool:
    """`on-failure` still updates an existing comment on a pass, so a stale failure report
    never stays on the pull request."""
    if mode == "off":
        return False
    return mode == "always" or not passed or existing


def find_sticky(comments: list[IssueComment]) -> IssueComment | None:
    """The oldest comment that starts with the marker (a quoted marker later in a reply does
    not count); editing it keeps its place in the conversation."""
    return next((c for c in comments if (c.body or "").lstrip().startswith(MARKER)), None)


def upsert_comment(
    repo: Repository, number: int, body: str, *, mode: CommentMode, passed: bool
) -> CommentOutcome:
    if mode == "off":
        return CommentOutcome("skipped", reason="comment: off")
    if not body.lstrip().startswith(MARKER):
        body = f"{MARKER}\n{body}"
    body = cut_to(body, COMMENT_LIMIT)
    try:
        issue = repo.get_issue(number)
        existing = find_sticky(list(issue.get_comments()))
        if not wanted(mode, passed, existing is not None):
            return CommentOutcome("skipped", reason="comment: on-failure, and the gate passed")
        if existing is not None:
            existing.edit(body)
            return CommentOutcome("updated", existing.id, existing.html_url)
        created = issue.create_comment(body)
        return CommentOutcome("created", created.id, created.html_url)
    except CALL_ERRORS as error:
        return CommentOutcome("failed", forbidden=is_forbidden(error), error=describe(error))
