"""`planegate action`: read the action's inputs and the runner's environment, run, post.

The modes are passed in (`modes/registry.py`, by the CLI): this module asks the one the `mode`
input names for its verdict (`JudgedMode.judge`). It holds the token and talks to GitHub; it
never imports or runs the code of the repository under test, and the token is not part of the
options a mode receives.

Fails closed: whatever goes wrong before a verdict, the check run is completed as
`failure` and the exit code is not 0.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, TextIO

from github.Repository import Repository

from planegate import exitcodes
from planegate.errors import InputDataError, PlanegateError
from planegate.findings import Finding
from planegate.github import artifacts, codescanning
from planegate.github.client import CALL_ERRORS, ClientSettings, describe, make_github
from planegate.github.event import Event, PullRequest
from planegate.github.inputs import (
    ActionOptions,
    in_actions,
    read_event,
    read_options,
    token_of,
    with_agent,
)
from planegate.github.posting import (
    Outcome,
    Posted,
    exit_code,
    fallback_commands,
    post,
    write_summary_and_outputs,
)
from planegate.progress import QUIET, Progress
from planegate.repo import digest_format
from planegate.report import Report, StepResult, json_report
from planegate.report.workflow_commands import command

AncestryFor = Callable[[ActionOptions], artifacts.Ancestry]


class JudgedMode(Protocol):
    """What the posting job needs of a mode: its judge phase (which never runs the project's
    code) and what the job does around it."""

    name: str
    posts_verdict: bool  # a check run and a comment; the pull request re-read when untrusted
    uses_main_digest: bool  # main's digest artifact fetched and handed to the judge
    writes_report: bool  # the JSON report written to `report_path`

    def judge(
        self, options: ActionOptions, environ: Mapping[str, str], progress: Progress
    ) -> Report: ...


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


def _recomputed(
    options: ActionOptions, source: str, problem: str | None = None
) -> tuple[ActionOptions, artifacts.DigestFetch]:
    fetch = artifacts.DigestFetch(None, source, problem=problem)
    return dataclasses.replace(options, digest_source=fetch.source), fetch


def fetch_main_digest(
    repo: Repository, options: ActionOptions, token: str, ancestry: artifacts.Ancestry
) -> tuple[ActionOptions, artifacts.DigestFetch]:
    if options.base is None or options.repository_id is None or not options.default_branch:
        return _recomputed(options, "no base commit or repository facts: recomputed")
    try:
        base = ancestry.resolve(options.base)
    except PlanegateError as error:
        return _recomputed(options, "recomputed: the base commit is unknown", error.message)
    request = artifacts.DigestRequest(
        token=token,
        repository_id=options.repository_id,
        default_branch=options.default_branch,
        base=base,
        name=options.digest_artifact,
    )
    try:
        fetch = artifacts.fetch_digest(repo, request, ancestry, verify=options.ca_bundle or True)
    except PlanegateError as error:  # git itself failed: the artifact cannot be checked
        return _recomputed(options, f"recomputed at the base tip {base[:12]}", error.message)
    return dataclasses.replace(options, digest=fetch.data, digest_source=fetch.source), fetch


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


# ---------------------------------------------------------------- evaluating


def _write_reports(mode: JudgedMode, options: ActionOptions, report: Report) -> None:
    if mode.writes_report:
        Path(options.report_path).write_text(json_report.render(report), encoding="utf-8")


def _failure(error: BaseException) -> Outcome:
    if isinstance(error, PlanegateError):
        hint = f" ({error.hint})" if error.hint else ""
        return Outcome(None, f"{error.message}{hint}", error.exit_code)
    return Outcome(None, f"{type(error).__name__}: {error}", exitcodes.INTERNAL)


def _gate_inputs(
    repo: Repository | None,
    event: Event,
    mode: JudgedMode,
    options: ActionOptions,
    token: str | None,
    ancestry: AncestryFor | None,
) -> tuple[ActionOptions, tuple[Finding, ...]]:
    """The pull request re-read when untrusted, and main's digest artifact when one fits."""
    if repo is None or not mode.posts_verdict:
        return options, ()
    if not event.pull_trusted:
        options = refresh_pull(repo, options)
    if not mode.uses_main_digest or ancestry is None or token is None:
        return options, ()
    options, fetch = fetch_main_digest(repo, options, token, ancestry(options))
    return options, fetch.findings()


def _outcome(
    mode: JudgedMode,
    options: ActionOptions,
    environ: Mapping[str, str],
    extra: tuple[Finding, ...],
    progress: Progress,
) -> Outcome:
    report = with_findings(mode.judge(options, environ, progress), extra)
    _write_reports(mode, options, report)
    return Outcome(report)


def _fail_closed(env: Mapping[str, str], error: Exception) -> Outcome:
    if isinstance(error, CALL_ERRORS):
        return Outcome(None, f"GitHub: {describe(error)}", exitcodes.UNAVAILABLE)
    if isinstance(error, PlanegateError):
        hint = f" ({error.hint})" if error.hint else ""
        print(f"planegate: {error.message}{hint}", file=sys.stderr)
    else:
        _internal(env, error)
    return _failure(error)


def _internal(env: Mapping[str, str], error: Exception) -> None:
    if env.get("PLANEGATE_DEBUG"):
        traceback.print_exc(file=sys.stderr)
    print(
        f"planegate: internal error: {type(error).__name__}: {error} "
        "(set PLANEGATE_DEBUG=1 for the traceback)",
        file=sys.stderr,
    )


def _publish(
    env: Mapping[str, str],
    repo: Repository | None,
    mode: JudgedMode,
    options: ActionOptions,
    outcome: Outcome,
    stream: TextIO,
) -> int:
    if not mode.posts_verdict:
        posted = Posted(notes=(f"{mode.name} mode: no check run or comment",))
    else:
        posted = post(repo, options, outcome)
    if options.sarif == "upload" and outcome.report is not None:
        posted = codescanning.upload(repo, options, outcome.report, posted)
    if posted.read_only or repo is None:
        fallback_commands(outcome, stream)
    for problem in write_summary_and_outputs(env, options, outcome, posted):
        stream.write(command("warning", problem, {"title": "planegate"}) + "\n")
    for problem in posted.failed:
        stream.write(
            command("warning", f"posting failed: {problem}", {"title": "planegate"}) + "\n"
        )
    for problem in posted.warnings:
        stream.write(command("warning", problem, {"title": "planegate"}) + "\n")
    return exit_code(outcome, posted)


# ---------------------------------------------------------------- the entry point


def fetch_phase(
    environ: Mapping[str, str],
    folder: Path,
    *,
    modes: Mapping[str, JudgedMode],
    ancestry: AncestryFor,
    out: TextIO | None = None,
) -> int:
    """Before phase 1: main's digest artifact into `folder` (read-only for phase 1), with a
    line saying where it came from. Posts nothing and never fails the job: without a digest,
    phase 1 runs the base itself and the judge says why."""
    stream = out or sys.stdout
    try:
        event = read_event(environ)
        options = read_options(environ, event)
        token = token_of(environ)
        mode = modes[options.mode]
        if not mode.uses_main_digest or not token:
            return exitcodes.PASS
        client = make_github(options.api_url, token, None, verify=options.ca_bundle or True)
        options, _ = _gate_inputs(
            client.get_repo(options.repository), event, mode, options, token, ancestry
        )
    except Exception as error:  # the judge fetches again and fails closed if it must
        problem = describe(error) if isinstance(error, CALL_ERRORS) else str(error)
        stream.write(
            command("warning", f"main's digest not fetched: {problem}", {"title": "planegate"})
            + "\n"
        )
        return exitcodes.PASS
    if options.digest is None:
        print(f"planegate: no digest for phase 1: {options.digest_source}", file=sys.stderr)
        return exitcodes.PASS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / digest_format.FILE_NAME).write_bytes(options.digest)
    (folder / digest_format.SOURCE_NAME).write_text(
        options.digest_source or "main's digest artifact", "utf-8"
    )
    print(f"planegate: main's digest for phase 1: {options.digest_source}", file=sys.stderr)
    return exitcodes.PASS


def run_action(
    environ: Mapping[str, str] | None = None,
    *,
    modes: Mapping[str, JudgedMode],
    ancestry: AncestryFor | None = None,
    settings: ClientSettings | None = None,
    out: TextIO | None = None,
    progress: Progress = QUIET,
) -> int:
    """Run one mode of the action and post the result; returns the process exit code."""
    env = os.environ if environ is None else environ
    stream = out or sys.stdout
    if not in_actions(env):
        print(
            "planegate: `planegate action` runs inside GitHub Actions (GITHUB_ACTIONS is not "
            "true) (use `planegate gate --base main` elsewhere)",
            file=sys.stderr,
        )
        return exitcodes.USAGE
    try:
        event = read_event(env)
        options = read_options(env, event)
    except PlanegateError as error:
        stream.write(command("error", error.message, {"title": "planegate"}) + "\n")
        return error.exit_code
    mode = modes[options.mode]
    token = token_of(env)
    repo = (
        make_github(options.api_url, token, settings, verify=options.ca_bundle or True).get_repo(
            options.repository
        )
        if token
        else None
    )
    try:
        options, extra = _gate_inputs(repo, event, mode, options, token, ancestry)
        outcome = _outcome(mode, options, env, extra, progress)
    except Exception as error:  # fail closed: no crash ever reads as a verdict
        outcome = _fail_closed(env, error)
    return _publish(env, repo, mode, options, outcome, stream)
