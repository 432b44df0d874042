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
from planegate.errors import InputDataError, PlanegateError, UsageError
from planegate.findings import Finding
from planegate.github import artifacts, codescanning, commit_people
from planegate.github.client import CALL_ERRORS, ClientSettings, describe, make_github
from planegate.github.event_payload import PullRequest
from planegate.github.inputs import (
    ActionInputs,
    FetchedDigest,
    Job,
    RunnerEnv,
    default_report_path,
    head_of,
    in_actions,
    read_inputs,
    read_runner,
    token_of,
)
from planegate.github.posting import (
    Destination,
    Outcome,
    Posted,
    destination,
    exit_code,
    fallback_commands,
    post,
    write_summary_and_outputs,
)
from planegate.progress import QUIET, Progress
from planegate.repo import digest_format
from planegate.report import Report, StepResult, json_report
from planegate.report.workflow_commands import command

AncestryFor = Callable[[Job], artifacts.Ancestry]


class JudgedMode(Protocol):
    """What the posting job needs of a mode: its judge phase (which never runs the project's
    code) and what the job does around it."""

    name: str
    posts_verdict: bool  # a check run and a comment; the pull request re-read when untrusted
    uses_main_digest: bool  # main's digest artifact fetched and handed to the judge
    writes_report: bool  # the JSON report written (else `report-file` is the report to post)

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report: ...


# ---------------------------------------------------------------- preparing the run


def check_inputs(mode: JudgedMode, inputs: ActionInputs, runner: RunnerEnv) -> None:
    """Refuse, before anything is posted, the inputs the mode cannot run with."""
    head_of(inputs, runner.event)
    if not mode.writes_report and inputs.report_file is None:
        raise UsageError(
            f"mode `{mode.name}` needs the `report-file` input (a `--format json` report)"
        )


def report_path(mode: JudgedMode, inputs: ActionInputs, runner: RunnerEnv) -> str:
    """Where the JSON report is written: `report-file` when the mode writes one, else the
    default path (for a mode that reads `report-file` instead)."""
    written = inputs.report_file if mode.writes_report else None
    return written or default_report_path(inputs, runner)


def reread_pull(repo: Repository, inputs: ActionInputs, runner: RunnerEnv) -> Job:
    """The job, with a pull request named by an uploaded file (or workflow_run's short list)
    re-read from the API; the file came from the pull request's own run and is not trusted."""
    pull_of_event = runner.event.pull
    if pull_of_event is None:
        return Job(inputs, runner, None)
    head = head_of(inputs, runner.event)
    pull = repo.get_pull(pull_of_event.number)
    if pull.head.sha != head:
        raise InputDataError(
            f"pull request #{pull.number} is at {pull.head.sha[:12]}, but the run tested "
            f"{head[:12]}",
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
    login = commit_people.verified_login(repo, inputs.agent_authors or ())
    return Job(inputs, runner, facts, reread=True, commit_login=login)


def fetch_main_digest(
    repo: Repository, job: Job, token: str, ancestry: artifacts.Ancestry
) -> artifacts.DigestFetch:
    event = job.runner.event
    if job.base is None or event.repository_id is None or not event.default_branch:
        return artifacts.DigestFetch(None, "no base commit or repository facts: recomputed")
    try:
        base = ancestry.resolve(job.base)
    except PlanegateError as error:
        return artifacts.DigestFetch(
            None, "recomputed: the base commit is unknown", problem=error.message
        )
    request = artifacts.DigestRequest(
        token=token,
        repository_id=event.repository_id,
        default_branch=event.default_branch,
        base=base,
        name=job.inputs.digest_artifact,
    )
    try:
        return artifacts.fetch_digest(repo, request, ancestry, verify=job.inputs.ca_bundle or True)
    except PlanegateError as error:  # git itself failed: the artifact cannot be checked
        return artifacts.DigestFetch(
            None, f"recomputed at the base tip {base[:12]}", problem=error.message
        )


def accepted(fetch: artifacts.DigestFetch, inputs: ActionInputs) -> FetchedDigest | None:
    """The fetched artifact's bytes, when it was accepted."""
    if fetch.data is None:
        return None
    return FetchedDigest(fetch.data, fetch.source or f"artifact {inputs.digest_artifact}")


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


def _write_reports(mode: JudgedMode, dest: Destination, report: Report) -> None:
    if mode.writes_report:
        Path(dest.report_path).write_text(json_report.render(report), encoding="utf-8")


def _failure(error: BaseException) -> Outcome:
    if isinstance(error, PlanegateError):
        hint = f" ({error.hint})" if error.hint else ""
        return Outcome(None, f"{error.message}{hint}", error.exit_code)
    return Outcome(None, f"{type(error).__name__}: {error}", exitcodes.INTERNAL)


def _job(repo: Repository | None, mode: JudgedMode, inputs: ActionInputs, runner: RunnerEnv) -> Job:
    """The job, its pull request re-read from the API when the event's copy is untrusted."""
    if repo is None:
        return Job(inputs, runner, runner.event.pull)
    if not mode.posts_verdict or runner.event.pull_trusted:
        login = commit_people.verified_login(repo, inputs.agent_authors or ())
        return Job(inputs, runner, runner.event.pull, commit_login=login)
    return reread_pull(repo, inputs, runner)


def _main_digest(
    repo: Repository | None,
    mode: JudgedMode,
    job: Job,
    token: str | None,
    ancestry: AncestryFor | None,
) -> artifacts.DigestFetch | None:
    """Main's digest artifact, when the mode uses one and it can be fetched."""
    if repo is None or not mode.uses_main_digest or ancestry is None or token is None:
        return None
    return fetch_main_digest(repo, job, token, ancestry(job))


def _outcome(
    mode: JudgedMode,
    job: Job,
    fetch: artifacts.DigestFetch | None,
    environ: Mapping[str, str],
    progress: Progress,
) -> Outcome:
    digest = None if fetch is None else accepted(fetch, job.inputs)
    report = mode.judge(job, digest, environ, progress)
    return Outcome(with_findings(report, () if fetch is None else fetch.findings()))


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
    dest: Destination,
    outcome: Outcome,
    stream: TextIO,
) -> int:
    if not mode.posts_verdict:
        posted = Posted(notes=(f"{mode.name} mode: no check run or comment",))
    else:
        posted = post(repo, dest, outcome)
    if dest.upload_sarif and outcome.report is not None:
        posted = codescanning.upload(repo, dest, outcome.report, posted)
    if posted.read_only or repo is None:
        fallback_commands(outcome, stream)
    for problem in write_summary_and_outputs(env, dest, outcome, posted):
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
        runner = read_runner(environ)
        inputs = read_inputs(environ)
        mode = modes[inputs.mode_key]
        check_inputs(mode, inputs, runner)
        token = token_of(environ)
        if not mode.uses_main_digest or not token:
            return exitcodes.PASS
        repo = _client(inputs, runner, token, None)
        job = _job(repo, mode, inputs, runner)
        fetch = fetch_main_digest(repo, job, token, ancestry(job))
    except Exception as error:  # the judge fetches again and fails closed if it must
        problem = describe(error) if isinstance(error, CALL_ERRORS) else str(error)
        stream.write(
            command("warning", f"main's digest not fetched: {problem}", {"title": "planegate"})
            + "\n"
        )
        return exitcodes.PASS
    digest = accepted(fetch, inputs)
    if digest is None:
        print(f"planegate: no digest for phase 1: {fetch.source}", file=sys.stderr)
        return exitcodes.PASS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / digest_format.FILE_NAME).write_bytes(digest.data)
    (folder / digest_format.SOURCE_NAME).write_text(digest.source, "utf-8")
    print(f"planegate: main's digest for phase 1: {digest.source}", file=sys.stderr)
    return exitcodes.PASS


def _client(
    inputs: ActionInputs, runner: RunnerEnv, token: str, settings: ClientSettings | None
) -> Repository:
    client = make_github(runner.api_url, token, settings, verify=inputs.ca_bundle or True)
    return client.get_repo(runner.repository)


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
        runner = read_runner(env)
        inputs = read_inputs(env)
        mode = modes[inputs.mode_key]
        check_inputs(mode, inputs, runner)
    except PlanegateError as error:
        stream.write(command("error", error.message, {"title": "planegate"}) + "\n")
        return error.exit_code
    dest = destination(inputs, runner, report_path(mode, inputs, runner))
    token = token_of(env)
    repo = _client(inputs, runner, token, settings) if token else None
    try:
        job = _job(repo, mode, inputs, runner)
        fetch = _main_digest(repo, mode, job, token, ancestry)
        outcome = _outcome(mode, job, fetch, env, progress)
        if outcome.report is not None:
            _write_reports(mode, dest, outcome.report)
    except Exception as error:  # fail closed: no crash ever reads as a verdict
        outcome = _fail_closed(env, error)
    return _publish(env, repo, mode, dest, outcome, stream)
