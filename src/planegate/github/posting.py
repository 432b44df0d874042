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
from planegate.github import check_runs, comments, summary
from planegate.github.inputs import ActionInputs, RunnerEnv, head_of
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

    check: check_runs.CheckOutcome | None = None
    comment: comments.CommentOutcome | None = None
    read_only: bool = False
    failed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    sarif_id: str | None = None
    warnings: tuple[str, ...] = ()  # problems that leave the verdict's exit code alone


@dataclass(frozen=True)
class Destination:
    """Where a verdict is posted, built once from the inputs and the runner's environment."""

    repository: str
    sha: str  # the commit the check run is on: the pull request's head, or the pushed commit
    pull_number: int | None
    ref: str | None  # the full ref code scanning files the SARIF under
    check_name: str
    annotations: bool
    comment: comments.CommentMode
    comment_author: str  # the login planegate's comments are written by
    mention_owners: bool
    report_path: str  # where the JSON report is (or would be) written
    upload_sarif: bool  # the report also goes to code scanning
    server_url: str
    run_id: str | None


def destination(inputs: ActionInputs, runner: RunnerEnv, report_path: str) -> Destination:
    pull = runner.event.pull
    return Destination(
        repository=runner.repository,
        sha=head_of(inputs, runner.event),
        pull_number=pull.number if pull else None,
        ref=f"refs/pull/{pull.number}/head" if pull else runner.ref,
        check_name=inputs.check_name,
        annotations=inputs.annotations,
        comment=inputs.comment,
        comment_author=inputs.comment_author,
        mention_owners=inputs.mention_owners,
        report_path=report_path,
        upload_sarif=inputs.sarif == "upload",
        server_url=runner.server_url,
        run_id=runner.run_id,
    )


def _context(dest: Destination, *, for_summary: bool = False) -> MarkdownContext:
    if for_summary:
        where = f"`{dest.report_path}`"
    elif dest.run_id:
        run = f"{dest.server_url}/{dest.repository}/actions/runs/{dest.run_id}"
        where = f"[the job summary]({run}) and `{Path(dest.report_path).name}`"
    else:
        where = f"the job summary and `{Path(dest.report_path).name}`"
    return MarkdownContext(
        server_url=dest.server_url,
        repository=dest.repository,
        head_sha=dest.sha,
        mention_owners=dest.mention_owners,
        full_report=where,
    )


def _details_url(dest: Destination) -> str | None:
    if not dest.run_id:
        return None
    return f"{dest.server_url}/{dest.repository}/actions/runs/{dest.run_id}"


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
    dest: Destination, outcome: Outcome, ctx: MarkdownContext
) -> tuple[check_runs.CheckRun, str]:
    report = outcome.report
    if report is None:
        title = INTERNAL_ERROR_TITLE
        summary_text = render_internal_error(outcome.error or "", ctx, limit=CHECK_RUN_LIMIT - 1)
        comment_text = (
            MARKER
            + "\n"
            + render_internal_error(outcome.error or "", ctx, limit=COMMENT_LIMIT - 40)
        )
        conclusion: check_runs.Conclusion = "failure"
        located: list[Finding] = []
    else:
        title = check_title(report)
        summary_text = render_check_summary(report, ctx)
        comment_text = render_comment(report, ctx)
        conclusion = check_runs.conclusion_of(report)
        located = list(report.findings) if dest.annotations else []
    check = check_runs.CheckRun(
        name=dest.check_name,
        head_sha=dest.sha,
        conclusion=conclusion,
        title=title,
        summary=summary_text,
        annotations=check_runs.annotations_for(located),
        details_url=_details_url(dest),
        external_id=dest.run_id,
    )
    return check, comment_text


def post(repo: Repository | None, dest: Destination, outcome: Outcome) -> Posted:
    if repo is None:
        return Posted(read_only=True, notes=("no token: nothing was posted to GitHub",))
    check_run, comment_text = _check_and_comment(dest, outcome, _context(dest))
    check = check_runs.post_check_run(repo, check_run)
    failed: list[str] = []
    if not check.posted and not check.forbidden:
        failed.append(f"check run: {check.error}")
    elif check.posted and check.error:
        failed.append(f"check run {check.error}")
    comment = None
    if dest.pull_number is not None:
        passed = outcome.exit_code == exitcodes.PASS
        comment = comments.upsert_comment(
            repo,
            dest.pull_number,
            comment_text,
            mode=dest.comment,
            passed=passed,
            sticky=comments.Sticky(dest.check_name, dest.comment_author),
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
    environ: Mapping[str, str], dest: Destination, outcome: Outcome, posted: Posted
) -> list[str]:
    preface = _summary_preface(posted)
    if outcome.report is not None:
        text = render_job_summary(outcome.report, _context(dest, for_summary=True), preface)
        verdict, count = outcome.report.verdict, len(outcome.report.findings)
    else:
        body = render_internal_error(
            outcome.error or "", _context(dest, for_summary=True), limit=8_000
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
                "report-path": dest.report_path if outcome.report is not None else "",
                "check-run-url": (posted.check.html_url if posted.check else None) or "",
                "comment-url": (posted.comment.html_url if posted.comment else None) or "",
                "sarif-id": posted.sarif_id or "",
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
