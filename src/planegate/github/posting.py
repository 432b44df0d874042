"""Posting a result: the check run, the sticky comment, the job summary and step outputs,
and `::error` workflow commands when the token cannot write."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from github.Repository import Repository

from planegate import exitcodes
from planegate.findings import Finding
from planegate.github import checks, comments, summary
from planegate.github.inputs import ActionOptions
from planegate.report import Report
from planegate.report.markdown import (
    CHECK_RUN_LIMIT,
    COMMENT_LIMIT,
    INTERNAL_ERROR_TITLE,
    MARKER,
    MarkdownContext,
    check_title,
    priority,
    render_check_summary,
    render_comment,
    render_internal_error,
    render_job_summary,
)
from planegate.report.workflow_commands import command, finding_commands


@dataclass(frozen=True)
class Posted:
    """What reached GitHub. `failed` lists posting failures that were not a read-only token."""

    check: checks.CheckOutcome | None = None
    comment: comments.CommentOutcome | None = None
    read_only: bool = False
    failed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    sarif_id: str | None = None
    warnings: tuple[str, ...] = ()  # problems that leave the verdict's exit code alone


def _context(options: ActionOptions, *, for_summary: bool = False) -> MarkdownContext:
    if for_summary:
        where = f"`{options.report_path}`"
    elif options.run_id:
        run = f"{options.server_url}/{options.repository}/actions/runs/{options.run_id}"
        where = f"[the job summary]({run}) and `{Path(options.report_path).name}`"
    else:
        where = f"the job summary and `{Path(options.report_path).name}`"
    return MarkdownContext(
        server_url=options.server_url,
        repository=options.repository,
        head_sha=options.head,
        mention_owners=options.mention_owners,
        full_report=where,
    )


def _details_url(options: ActionOptions) -> str | None:
    if not options.run_id:
        return None
    return f"{options.server_url}/{options.repository}/actions/runs/{options.run_id}"


@dataclass(frozen=True)
class Outcome:
    """A verdict, or the failure that prevented one."""

    report: Report | None
    error: str | None = None
    error_code: int = exitcodes.INTERNAL

    @property
    def exit_code(self) -> int:
        return self.report.exit_code if self.report is not None else self.error_code


def _check_and_comment(
    options: ActionOptions, outcome: Outcome, ctx: MarkdownContext
) -> tuple[checks.CheckRun, str]:
    report = outcome.report
    if report is None:
        title = INTERNAL_ERROR_TITLE
        summary_text = render_internal_error(outcome.error or "", ctx, limit=CHECK_RUN_LIMIT - 1)
        comment_text = (
            MARKER
            + "\n"
            + render_internal_error(outcome.error or "", ctx, limit=COMMENT_LIMIT - 40)
        )
        conclusion: checks.Conclusion = "failure"
        located: list[Finding] = []
    else:
        title = check_title(report)
        summary_text = render_check_summary(report, ctx)
        comment_text = render_comment(report, ctx)
        conclusion = checks.conclusion_of(report)
        located = list(report.findings) if options.annotations else []
    check = checks.CheckRun(
        name=options.check_name,
        head_sha=options.sha,
        conclusion=conclusion,
        title=title,
        summary=summary_text,
        annotations=checks.annotations_for(located),
        details_url=_details_url(options),
        external_id=options.run_id,
    )
    return check, comment_text


def post(repo: Repository | None, options: ActionOptions, outcome: Outcome) -> Posted:
    if repo is None:
        return Posted(read_only=True, notes=("no token: nothing was posted to GitHub",))
    check_run, comment_text = _check_and_comment(options, outcome, _context(options))
    check = checks.post_check_run(repo, check_run)
    failed: list[str] = []
    if not check.posted and not check.forbidden:
        failed.append(f"check run: {check.error}")
    elif check.posted and check.error:
        failed.append(f"check run {check.error}")
    comment = None
    if options.pull_number is not None:
        passed = outcome.exit_code == exitcodes.PASS
        comment = comments.upsert_comment(
            repo, options.pull_number, comment_text, mode=options.comment, passed=passed
        )
        if not comment.ok and not comment.forbidden:
            failed.append(f"comment: {comment.error}")
    read_only = check.forbidden or bool(comment and comment.forbidden)
    return Posted(check, comment, read_only, tuple(failed))


def fallback_commands(outcome: Outcome, out: TextIO) -> None:
    """The token cannot write (a fork's pull request): annotate through the log instead."""
    if outcome.report is None:
        out.write(
            command("error", f"{INTERNAL_ERROR_TITLE}: {outcome.error}", {"title": "planegate"})
            + "\n"
        )
        return
    for line in finding_commands(sorted(outcome.report.findings, key=priority)):
        out.write(line + "\n")
    if outcome.report.exit_code != exitcodes.PASS:
        out.write(command("error", check_title(outcome.report), {"title": "planegate"}) + "\n")


def _summary_preface(posted: Posted) -> list[str]:
    lines: list[str] = []
    if posted.read_only:
        lines += [
            "> [!WARNING]",
            "> The token cannot write to this repository (a fork's pull request or a read-only "
            "token), so no check run or comment was posted: the findings are annotations from "
            "`::error` workflow commands in this job's log, and this summary is the report.",
            "",
        ]
    for problem in posted.failed:
        lines += [f"> [!CAUTION]\n> Posting failed: {problem}", ""]
    for problem in posted.warnings:
        lines += [f"> [!WARNING]\n> {problem}", ""]
    lines += [f"> {note}" for note in posted.notes]
    return lines


def write_summary_and_outputs(
    environ: Mapping[str, str], options: ActionOptions, outcome: Outcome, posted: Posted
) -> list[str]:
    preface = _summary_preface(posted)
    if outcome.report is not None:
        text = render_job_summary(outcome.report, _context(options, for_summary=True), preface)
        verdict, count = outcome.report.verdict, len(outcome.report.findings)
    else:
        body = render_internal_error(
            outcome.error or "", _context(options, for_summary=True), limit=8_000
        )
        text = "\n".join(preface) + "\n" + body
        verdict, count = "error", 0
    problems = [
        summary.write_job_summary(environ.get("GITHUB_STEP_SUMMARY"), text),
        summary.write_outputs(
            environ.get("GITHUB_OUTPUT"),
            {
                "verdict": verdict,
                "exit-code": str(outcome.exit_code),
                "findings": str(count),
                "report-path": options.report_path if outcome.report is not None else "",
                "check-run-url": (posted.check.html_url if posted.check else None) or "",
                "comment-url": (posted.comment.html_url if posted.comment else None) or "",
            },
        ),
    ]
    return [p for p in problems if p]


def exit_code(outcome: Outcome, posted: Posted) -> int:
    """The verdict's code; a pass that did not reach GitHub is 69 so the job shows it."""
    code = outcome.exit_code
    if code == exitcodes.PASS and posted.failed:
        return exitcodes.UNAVAILABLE
    return code
