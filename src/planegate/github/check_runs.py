"""The check run: created once, completed `success` or `failure` only, annotations 50 a request.

`neutral` and `skipped` satisfy a required check, so planegate never sends them: a check
that could not decide is a `failure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from github.Repository import Repository

from planegate import untrusted
from planegate.findings import Finding, Severity
from planegate.github.client import CALL_ERRORS, describe, is_forbidden
from planegate.report import Report
from planegate.report.markdown import CHECK_RUN_LIMIT, cut_to, priority
from planegate.rules import RULES

DEFAULT_NAME = "planegate"
PER_REQUEST = 50  # the Checks API refuses more annotations in one request
MAX_ANNOTATIONS = 1_000
TITLE_LIMIT = 255
MESSAGE_LIMIT = 60_000

Conclusion = Literal["success", "failure"]
_LEVEL = {Severity.ERROR: "failure", Severity.WARNING: "warning", Severity.NOTICE: "notice"}


def conclusion_of(report: Report) -> Conclusion:
    return "success" if report.exit_code == 0 else "failure"


def annotation(finding: Finding) -> dict[str, Any]:
    rule = RULES.get(finding.rule)
    line = finding.line or 1
    message = untrusted.clean(finding.message)
    if rule is not None:
        message += f"\n\nFix: {rule.how_to_fix}"
    return {
        "path": finding.path,
        "start_line": line,
        "end_line": line,
        "annotation_level": _LEVEL[finding.severity],
        "title": cut_to(f"{finding.rule} · {untrusted.one_line(finding.owner)}", TITLE_LIMIT),
        "message": cut_to(message, MESSAGE_LIMIT),
    }


def annotations_for(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    """Findings with a file, most severe first (a finding without a file is in the summary)."""
    located = sorted((f for f in findings if f.path), key=priority)
    return [annotation(f) for f in located[:MAX_ANNOTATIONS]]


def batches(items: Sequence[dict[str, Any]], size: int = PER_REQUEST) -> list[list[dict[str, Any]]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)] or [[]]


@dataclass(frozen=True)
class CheckOutcome:
    posted: bool
    forbidden: bool = False
    check_run_id: int | None = None
    html_url: str | None = None
    requests: int = 0
    annotations_posted: int = 0
    error: str | None = None


@dataclass(frozen=True)
class CheckRun:
    """What one check run says; `summary` is cut at GitHub's limit when posted."""

    name: str
    head_sha: str
    conclusion: Conclusion
    title: str
    summary: str
    annotations: Sequence[dict[str, Any]] = ()
    details_url: str | None = None
    external_id: str | None = None


def post_check_run(repo: Repository, check: CheckRun) -> CheckOutcome:
    """Create the completed check run with the first 50 annotations, then add the rest."""
    if check.conclusion not in ("success", "failure"):
        raise ValueError(f"a planegate check run is success or failure, not {check.conclusion!r}")
    summary = cut_to(check.summary, CHECK_RUN_LIMIT - 1)
    groups = batches(check.annotations)
    first: dict[str, Any] = {"title": check.title, "summary": summary}
    if groups[0]:
        first["annotations"] = groups[0]
    extra: dict[str, Any] = {}
    if check.details_url:
        extra["details_url"] = check.details_url
    if check.external_id:
        extra["external_id"] = check.external_id
    try:
        run = repo.create_check_run(
            name=check.name,
            head_sha=check.head_sha,
            status="completed",
            conclusion=check.conclusion,
            output=first,
            **extra,
        )
    except CALL_ERRORS as error:
        return CheckOutcome(posted=False, forbidden=is_forbidden(error), error=describe(error))
    sent, requests = len(groups[0]), 1
    for group in groups[1:]:
        try:
            run.edit(output={"title": check.title, "summary": summary, "annotations": group})
        except CALL_ERRORS as error:
            return CheckOutcome(
                True, False, run.id, run.html_url, requests, sent, f"annotations: {describe(error)}"
            )
        sent, requests = sent + len(group), requests + 1
    return CheckOutcome(True, False, run.id, run.html_url, requests, sent)
