"""`report` mode: what the judge re-verifies from git before it posts a report it did not make.

The report comes from a pull request's own run (recipe B in docs/recipes.md), whose workflow
the pull request could edit, so it is untrusted. Before anything is posted:

- the report's head must be the pull request's head (the event, and the API re-read);
- the report's base and head must be commits of this checkout, its merge base must be the
  one git computes, and its base must be the pull request's base or an ancestor of it;
- the steps git can decide without running code are recomputed at the merge base with the
  base's configuration and replace the report's: evidence (protected paths, the fixture
  manifest), ledger (validity, append-only, replays due) and test hunks.

What needs the tests to run stays as reported, and the report says so in a note: the
inventory and planes steps, the digest comparison (PG303, PG306, PG307) and the frozen share
of the suite (PG404).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date
from pathlib import Path

from planegate.errors import InputDataError, PlanegateError
from planegate.findings import Finding, Step
from planegate.gate import context
from planegate.gate.context import Context, GateOptions
from planegate.github import commit_people
from planegate.github.inputs import FetchedDigest, Job, agent_of
from planegate.modes.base import no_run_phase
from planegate.progress import Progress
from planegate.report import Report, StepResult
from planegate.report.json_load import load_report
from planegate.runner.session import RunResult
from planegate.steps import evidence, hunks, ledger
from planegate.steps.run_facts import Commits, RunFacts, StepCheck


class ReportMode:
    """No run phase: the report was made by the pull request's own run."""

    name = "report"
    posts_verdict = True
    uses_main_digest = False
    writes_report = False

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        raise no_run_phase(self.name)

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        return recheck(read_report(job), job)


REPORT = ReportMode()


def read_report(job: Job) -> Report:
    """The `report-file` input's report, which must be on the pull request's head."""
    assert job.inputs.report_file is not None
    try:
        text = Path(job.inputs.report_file).read_bytes()
    except OSError as error:
        raise InputDataError(f"{job.inputs.report_file}: {error.strerror}") from None
    report = load_report(text, job.inputs.report_file)
    if report.head != job.head:
        raise InputDataError(
            f"{job.inputs.report_file} is a report on {report.head[:12]}, not on {job.head[:12]}"
        )
    return report


# What the recomputation produces; a report's other findings of these steps are kept.
RECOMPUTED_RULES = {
    Step.EVIDENCE: {"PG301", "PG302", "PG304", "PG305"},
    Step.LEDGER: {"PG401", "PG402", "PG403"},
}
RECOMPUTED: dict[Step, StepCheck] = {
    Step.EVIDENCE: evidence.check,
    Step.LEDGER: ledger.check,
    Step.HUNKS: hunks.check,
}
# No run in the posting job: no digest findings, and no suite to measure the frozen share by.
NO_RUN = RunFacts(
    commits=Commits("", "", ""),
    head_run=RunResult(
        collected=(),
        selected=(),
        outcomes={},
        collect_errors=(),
        closed=False,
        exit_status=None,
        timed_out=False,
        output="",
    ),
    base_inventory={},
)


def check_commits(report: Report, job: Job, ctx: Context) -> None:
    where = f"{job.inputs.report_file}"
    if report.head != job.head:
        raise InputDataError(f"{where} is a report on {report.head[:12]}, not on {job.head[:12]}")
    if ctx.commits.merge_base != report.merge_base:
        raise InputDataError(
            f"{where} names the merge base {report.merge_base[:12]}, but git computes "
            f"{ctx.commits.merge_base[:12]} for {report.base[:12]}..{report.head[:12]}"
        )
    base = job.base
    known = bool(base) and ctx.repo.has_commit(base or "")
    if base and base != report.base and not (known and ctx.repo.is_ancestor(report.base, base)):
        raise InputDataError(
            f"{where} was made against {report.base[:12]}, which is not the pull "
            f"request's base {base[:12]} nor an ancestor of it"
        )


def recheck_context(report: Report, job: Job, today: date) -> Context:
    """The gate's context for the report's commits, built as the judge phase builds it: from
    git once, the agent decision from the inputs or else the base's planegate.yml."""
    opts = GateOptions(
        root=Path(job.working_directory),
        base=report.base,
        head=report.head,
        config_path=job.inputs.config,
        author=job.author or "the patch author",
        today=today,
        people=job.commit_login or commit_people.nobody,  # never the names commits claim
    )
    try:
        ctx = context.build(opts)
    except PlanegateError as error:
        raise InputDataError(
            f"the report's commits cannot be re-verified in this checkout: {error.message}",
            "check out the pull request's head with fetch-depth: 0 before posting its report",
        ) from None
    return ctx.with_agent(agent_of(job, ctx.cfg))


def _recomputed(ctx: Context) -> dict[Step, StepResult]:
    """The gate's own step checks, on git's facts alone (the parts that need the suite's
    inventory or the digest stay as reported)."""
    results = {step: check(ctx, NO_RUN) for step, check in RECOMPUTED.items()}
    # the ledger's note would say the run did not finish: there was none here (PG404 is kept)
    results[Step.LEDGER] = dataclasses.replace(results[Step.LEDGER], notes=())
    return results


def _merge(reported: StepResult, mine: StepResult) -> StepResult:
    recomputed = RECOMPUTED_RULES.get(reported.step)
    kept: tuple[Finding, ...] = ()
    if recomputed is not None:
        kept = tuple(f for f in reported.findings if f.rule not in recomputed)
    note = "recomputed from git by the posting job"
    return StepResult(reported.step, mine.findings + kept, (note, *mine.notes))


def recheck(report: Report, job: Job, today: date | None = None) -> Report:
    """The report with its commits verified and its git-only steps recomputed."""
    ctx = recheck_context(report, job, today or date.today())
    check_commits(report, job, ctx)
    mine = _recomputed(ctx)
    steps = []
    for result in report.steps:
        if result.step in mine:
            steps.append(_merge(result, mine.pop(result.step)))
        else:
            steps.append(dataclasses.replace(result, notes=(*result.notes, _AS_REPORTED)))
    steps += [_merge(StepResult(step), result) for step, result in mine.items()]
    notes = (
        *report.notes,
        "posted from a report the pull request's own run made: evidence, ledger and test "
        "hunks were recomputed from git; inventory and planes are as that run reported them",
    )
    return dataclasses.replace(report, agent=ctx.agent, steps=tuple(steps), notes=notes)


_AS_REPORTED = "as reported by the pull request's run (not re-verified)"
