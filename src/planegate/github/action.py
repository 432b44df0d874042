"""`planegate action`: read the action's inputs and the runner's environment, run, post.

The gate itself is passed in as `evaluate` (the CLI provides it). This module holds the
token and talks to GitHub; it never imports or runs the code of the repository under test,
and the token is not part of the options `evaluate` receives.

Fails closed: whatever goes wrong before a verdict, the check run is completed as
`failure` and the exit code is not 0.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TextIO

from github.Repository import Repository

from planegate import exitcodes
from planegate.errors import InputDataError, PlanegateError, UsageError
from planegate.findings import Finding
from planegate.github import artifacts, checks, comments, summary
from planegate.github.client import CALL_ERRORS, ClientSettings, describe, make_github
from planegate.github.event import Event, PullRequest, is_agent, load_json, parse_event
from planegate.report import Report, StepResult, json_report, sarif
from planegate.report.json_load import load_report
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

Mode = Literal["gate", "digest", "sweep", "report"]
MODES: tuple[Mode, ...] = ("gate", "digest", "sweep", "report")
REPORT_NAME = "planegate-report.json"


class Ancestry(Protocol):
    """Git facts the artifact choice needs (planegate.repo.git.GitRepo has this shape)."""

    def merge_base(self, base: str, head: str) -> str: ...

    def is_ancestor(self, ancestor: str, descendant: str) -> bool: ...


@dataclass(frozen=True)
class ActionOptions:
    """Everything `evaluate` needs, from INPUT_* and GITHUB_*. Holds no token."""

    mode: Mode
    repository: str
    event_name: str
    sha: str  # the commit the check run is on: the pull request's head, or the pushed commit
    head: str
    base: str | None
    pull_number: int | None = None
    author: str | None = None
    labels: tuple[str, ...] = ()
    from_fork: bool = False
    agent: bool | None = None  # None: the gate decides from planegate.yml's `agents`
    agent_authors: tuple[str, ...] | None = None  # inputs overriding planegate.yml's `agents`
    agent_labels: tuple[str, ...] | None = None
    config: str | None = None
    digest_artifact: str = artifacts.DEFAULT_NAME
    digest_file: str | None = None  # main's digest, when an artifact was accepted
    digest_source: str | None = None
    comment: comments.CommentMode = "always"
    annotations: bool = True
    mention_owners: bool = False
    check_name: str = checks.DEFAULT_NAME
    report_file: str | None = None  # `report` mode: the JSON report to post
    report_path: str = REPORT_NAME  # where the JSON report is written
    sarif_path: str | None = None
    working_directory: str = "."
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str | None = None
    repository_id: int | None = None
    default_branch: str | None = None


# ---------------------------------------------------------------- reading the environment


def _input(environ: Mapping[str, str], name: str) -> str | None:
    """INPUT_DIGEST-ARTIFACT as the runner spells it, or INPUT_DIGEST_ARTIFACT."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = environ.get(key)
        if value is not None and value.strip() != "":
            return value.strip()
    return None


def _flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    value = _input(environ, name)
    if value is None:
        return default
    if value.lower() in ("true", "yes", "on", "1"):
        return True
    if value.lower() in ("false", "no", "off", "0"):
        return False
    raise UsageError(f"input {name}: expected true or false, got {value!r}")


def _choice(environ: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = (_input(environ, name) or default).lower()
    if value not in allowed:
        raise UsageError(f"input {name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _patterns(environ: Mapping[str, str], name: str) -> tuple[str, ...] | None:
    value = _input(environ, name)
    if value is None:
        return None
    return tuple(p.strip() for p in value.replace("\n", ",").split(",") if p.strip())


def read_event(environ: Mapping[str, str]) -> Event:
    name = environ.get("GITHUB_EVENT_NAME") or ""
    repository = environ.get("GITHUB_REPOSITORY") or ""
    if not name or not repository:
        raise UsageError(
            "GITHUB_EVENT_NAME and GITHUB_REPOSITORY are not set",
            "`planegate action` runs inside GitHub Actions; use `planegate gate` elsewhere",
        )
    path = environ.get("GITHUB_EVENT_PATH")
    payload = load_json(path) if path else {}
    uploaded_path = _input(environ, "event-file")
    uploaded = load_json(uploaded_path) if uploaded_path else None
    return parse_event(
        name, payload, repository=repository, sha=environ.get("GITHUB_SHA") or "", uploaded=uploaded
    )


def read_options(environ: Mapping[str, str], event: Event) -> ActionOptions:
    mode = _choice(environ, "mode", MODES, "gate")
    pull = event.pull
    head = _input(environ, "head") or (pull.head_sha if pull else event.sha)
    base = _input(environ, "base") or (pull.base_sha if pull else event.before)
    if not head:
        raise UsageError("no head commit: GITHUB_SHA is not set and no `head` input was given")
    # like GitHub's own `working-directory`: relative to the workspace
    checkout = environ.get("GITHUB_WORKSPACE") or "."
    workspace = str(Path(checkout) / (_input(environ, "working-directory") or "."))
    report_file = _input(environ, "report-file")
    # the composite action gives the judge a writable PLANEGATE_OUT and a read-only workspace
    out = environ.get("PLANEGATE_OUT")
    default_report = str(Path(out or workspace) / REPORT_NAME)
    written = report_file if mode != "report" else None
    report_path = _input(environ, "report-path") or written or default_report
    if mode == "report" and report_file is None:
        raise UsageError("mode `report` needs the `report-file` input (a `--format json` report)")
    options = ActionOptions(
        mode=mode,  # type: ignore[arg-type]  # checked by _choice
        repository=event.repository,
        event_name=event.name,
        sha=head,
        head=head,
        base=base,
        pull_number=pull.number if pull else None,
        author=pull.author if pull else None,
        labels=pull.labels if pull else (),
        from_fork=pull.from_fork if pull else False,
        agent_authors=_patterns(environ, "agent-authors"),
        agent_labels=_patterns(environ, "agent-labels"),
        config=_input(environ, "config"),
        digest_artifact=_input(environ, "digest-artifact") or artifacts.DEFAULT_NAME,
        comment=_choice(environ, "comment", comments.COMMENT_MODES, "always"),  # type: ignore[arg-type]
        annotations=_flag(environ, "annotations", True),
        mention_owners=_flag(environ, "mention-owners", False),
        check_name=_input(environ, "check-name") or checks.DEFAULT_NAME,
        report_file=report_file,
        report_path=report_path,
        sarif_path=_input(environ, "sarif-file"),
        working_directory=workspace,
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
        run_id=environ.get("GITHUB_RUN_ID"),
        repository_id=event.repository_id,
        default_branch=event.default_branch,
    )
    return with_agent(options)


def with_agent(options: ActionOptions) -> ActionOptions:
    """Decide `agent` when the inputs name agent authors or labels; else leave it to the gate."""
    if options.author is None or (options.agent_authors is None and options.agent_labels is None):
        return options
    agent = is_agent(
        options.author,
        options.labels,
        authors=options.agent_authors or (),
        agent_labels=options.agent_labels or (),
    )
    return dataclasses.replace(options, agent=agent)


def _token(environ: Mapping[str, str]) -> str | None:
    return _input(environ, "token") or environ.get("GITHUB_TOKEN") or None


# ---------------------------------------------------------------- preparing the run


def refresh_pull(repo: Repository, options: ActionOptions) -> ActionOptions:
    """Re-read a pull request named by an uploaded file (or workflow_run's short list) from
    the API; the file came from the pull request's own run and is not trusted."""
    if options.pull_number is None:
        return options
    pull = repo.get_pull(options.pull_number)
    if pull.head.sha != options.head:
        raise InputDataError(
            f"pull request #{pull.number} is at {pull.head.sha[:12]}, but the run tested "
            f"{options.head[:12]}",
            "the pull request moved on or the uploaded event file names another one",
        )
    facts = PullRequest(
        number=pull.number,
        head_sha=pull.head.sha,
        base_sha=pull.base.sha,
        base_ref=pull.base.ref,
        head_ref=pull.head.ref,
        author=pull.user.login,
        labels=tuple(label.name for label in pull.labels),
        head_repository=pull.head.repo.full_name if pull.head.repo else None,
        base_repository=pull.base.repo.full_name,
    )
    refreshed = dataclasses.replace(
        options,
        base=facts.base_sha,
        author=facts.author,
        labels=facts.labels,
        from_fork=facts.from_fork,
    )
    return with_agent(refreshed)


def fetch_main_digest(
    repo: Repository, options: ActionOptions, token: str, ancestry: Ancestry
) -> tuple[ActionOptions, artifacts.DigestFetch]:
    if options.base is None or options.repository_id is None or not options.default_branch:
        fetch = artifacts.DigestFetch(None, "no base commit or repository facts: recomputed")
        return dataclasses.replace(options, digest_source=fetch.source), fetch
    try:
        merge_base = ancestry.merge_base(options.base, options.head)
    except PlanegateError as error:
        fetch = artifacts.DigestFetch(
            None, "recomputed: the merge base is unknown", problem=error.message
        )
        return dataclasses.replace(options, digest_source=fetch.source), fetch

    def is_ancestor(sha: str) -> bool:
        try:
            return ancestry.is_ancestor(sha, merge_base)
        except PlanegateError:
            return False  # a commit this clone does not have is not a usable ancestor

    fetch = artifacts.fetch_digest(
        repo,
        token=token,
        repository_id=options.repository_id,
        default_branch=options.default_branch,
        merge_base=merge_base,
        is_ancestor=is_ancestor,
        name=options.digest_artifact,
    )
    digest_file = None
    if fetch.data is not None:
        folder = Path(tempfile.mkdtemp(prefix="planegate-digest-"))
        digest_file = str(folder / artifacts.DIGEST_MEMBER)
        Path(digest_file).write_bytes(fetch.data)
    return dataclasses.replace(options, digest_file=digest_file, digest_source=fetch.source), fetch


def with_findings(report: Report, findings: tuple[Finding, ...]) -> Report:
    """Add the artifact findings to their step, unless the gate reported those rules itself."""
    present = {f.rule for f in report.findings}
    new = tuple(f for f in findings if f.rule not in present)
    if not new:
        return report
    steps = list(report.steps)
    for index, result in enumerate(steps):
        mine = tuple(f for f in new if f.step is result.step)
        if mine:
            steps[index] = dataclasses.replace(result, findings=result.findings + mine)
    placed = {f for result in steps for f in result.findings}
    steps += [StepResult(f.step, (f,)) for f in new if f not in placed]
    return dataclasses.replace(report, steps=tuple(steps))


# ---------------------------------------------------------------- posting


@dataclass(frozen=True)
class Posted:
    """What reached GitHub. `failed` lists posting failures that were not a read-only token."""

    check: checks.CheckOutcome | None = None
    comment: comments.CommentOutcome | None = None
    read_only: bool = False
    failed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


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


def post(repo: Repository | None, options: ActionOptions, outcome: Outcome) -> Posted:
    if repo is None:
        return Posted(read_only=True, notes=("no token: nothing was posted to GitHub",))
    ctx = _context(options)
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
    check = checks.post_check_run(
        repo,
        name=options.check_name,
        head_sha=options.sha,
        conclusion=conclusion,
        title=title,
        summary=summary_text,
        annotations=checks.annotations_for(located),
        details_url=_details_url(options),
        external_id=options.run_id,
    )
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


# ---------------------------------------------------------------- the entry point


def _evaluate(options: ActionOptions, evaluate: Callable[[ActionOptions], Report]) -> Outcome:
    if options.mode == "report":
        assert options.report_file is not None
        try:
            text = Path(options.report_file).read_bytes()
        except OSError as error:
            raise InputDataError(f"{options.report_file}: {error.strerror}") from None
        report = load_report(text, options.report_file)
        if report.head != options.head:
            raise InputDataError(
                f"{options.report_file} is a report on {report.head[:12]}, "
                f"not on {options.head[:12]}"
            )
        return Outcome(report)
    return Outcome(evaluate(options))


def _write_reports(options: ActionOptions, report: Report) -> None:
    if options.mode != "report":
        Path(options.report_path).write_text(json_report.render(report), encoding="utf-8")
    if options.sarif_path:
        Path(options.sarif_path).write_text(sarif.render(report), encoding="utf-8")


def _failure(error: BaseException) -> Outcome:
    if isinstance(error, PlanegateError):
        hint = f" ({error.hint})" if error.hint else ""
        return Outcome(None, f"{error.message}{hint}", error.exit_code)
    return Outcome(None, f"{type(error).__name__}: {error}", exitcodes.INTERNAL)


def run_action(
    environ: Mapping[str, str] | None = None,
    *,
    evaluate: Callable[[ActionOptions], Report],
    ancestry: Callable[[ActionOptions], Ancestry] | None = None,
    settings: ClientSettings | None = None,
    out: TextIO | None = None,
) -> int:
    """Run one mode of the action and post the result; returns the process exit code."""
    env = os.environ if environ is None else environ
    stream = out or sys.stdout
    try:
        event = read_event(env)
        options = read_options(env, event)
    except PlanegateError as error:
        stream.write(command("error", error.message, {"title": "planegate"}) + "\n")
        return error.exit_code
    token = _token(env)
    repo = (
        make_github(options.api_url, token, settings).get_repo(options.repository)
        if token
        else None
    )
    extra: tuple[Finding, ...] = ()
    try:
        if repo is not None and options.mode == "gate":
            if not event.pull_trusted:
                options = refresh_pull(repo, options)
            if ancestry is not None and token is not None:
                options, fetch = fetch_main_digest(repo, options, token, ancestry(options))
                extra = fetch.findings()
        outcome = _evaluate(options, evaluate)
        if outcome.report is not None:
            report = with_findings(outcome.report, extra)
            _write_reports(options, report)
            outcome = Outcome(report)
    except CALL_ERRORS as error:
        outcome = Outcome(None, f"GitHub: {describe(error)}", exitcodes.UNAVAILABLE)
    except Exception as error:  # fail closed: no crash ever reads as a verdict
        if env.get("PLANEGATE_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        print(
            f"planegate: internal error: {type(error).__name__}: {error} "
            "(set PLANEGATE_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        outcome = _failure(error)
    if options.mode in ("digest", "sweep"):
        posted = Posted(notes=(f"{options.mode} mode: no check run or comment",))
    else:
        posted = post(repo, options, outcome)
    if posted.read_only or repo is None:
        fallback_commands(outcome, stream)
    for problem in write_summary_and_outputs(env, options, outcome, posted):
        stream.write(command("warning", problem, {"title": "planegate"}) + "\n")
    for problem in posted.failed:
        stream.write(
            command("warning", f"posting failed: {problem}", {"title": "planegate"}) + "\n"
        )
    return exit_code(outcome, posted)
