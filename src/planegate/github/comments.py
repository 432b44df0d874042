"""The sticky PR comment: found by a hidden marker and its author, edited in place, never
duplicated.

The marker names the check (two planegate checks in one repository keep a comment each), and
only a comment written by the identity planegate posts as (`comment-author`, by default the
`GITHUB_TOKEN`'s `github-actions[bot]`) is planegate's: a comment anyone else writes with the
marker, an agent's included, is neither edited nor taken for the verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from github.IssueComment import IssueComment
from github.Repository import Repository

from planegate.github.client import CALL_ERRORS, describe, is_forbidden
from planegate.report.markdown import COMMENT_LIMIT, MARKER, cut_to

CommentMode = Literal["always", "on-failure", "off"]
DEFAULT_AUTHOR = "github-actions[bot]"
DEFAULT_CHECK = "planegate"
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


def marker_for(check_name: str) -> str:
    """The default check keeps the plain marker; another check's names it."""
    if check_name == DEFAULT_CHECK:
        return MARKER
    return f"<!-- planegate:report check={check_name.replace('--', '- -')} -->"


def find_sticky(
    comments: list[IssueComment], marker: str = MARKER, author: str = DEFAULT_AUTHOR
) -> IssueComment | None:
    """The oldest comment by `author` that starts with the marker (a quoted marker later in a
    reply does not count); editing it keeps its place in the conversation."""
    return next(
        (c for c in comments if (c.body or "").lstrip().startswith(marker) and _login(c) == author),
        None,
    )


def _login(comment: IssueComment) -> str | None:
    """The author's login; a deleted account's comment may carry no user."""
    return comment.user.login if comment.user is not None else None


def _marked(body: str, marker: str) -> str:
    body = body.lstrip()
    if body.startswith(marker):
        return body
    return f"{marker}\n{body.removeprefix(MARKER).lstrip()}"


@dataclass(frozen=True)
class Sticky:
    """Which comment is planegate's: its check's marker, written by `author`."""

    check_name: str = DEFAULT_CHECK
    author: str = DEFAULT_AUTHOR


def upsert_comment(
    repo: Repository,
    number: int,
    body: str,
    *,
    mode: CommentMode,
    passed: bool,
    sticky: Sticky = Sticky(),
) -> CommentOutcome:
    if mode == "off":
        return CommentOutcome("skipped", reason="comment: off")
    marker = marker_for(sticky.check_name)
    body = cut_to(_marked(body, marker), COMMENT_LIMIT)
    try:
        issue = repo.get_issue(number)
        existing = find_sticky(list(issue.get_comments()), marker, sticky.author)
        if not wanted(mode, passed, existing is not None):
            return CommentOutcome("skipped", reason="comment: on-failure, and the gate passed")
        if existing is not None:
            existing.edit(body)
            return CommentOutcome("updated", existing.id, existing.html_url)
        created = issue.create_comment(body)
        return CommentOutcome("created", created.id, created.html_url)
    except CALL_ERRORS as error:
        return CommentOutcome("failed", forbidden=is_forbidden(error), error=describe(error))
