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
from datetime import date
from pathlib import Path

from planegate.errors import InputDataError, PlanegateError
from planegate.findings import Finding, Step
from planegate.freeze import ledger
from planegate.gate import pipeline as gate
from planegate.github.event import is_agent
from planegate.github.inputs import ActionOptions
from planegate.report import Report, StepResult

# What the recomputation produces; a report's other findings of these steps are kept.
RECOMPUTED_RULES = {
    Step.EVIDENCE: {"PG301", "PG302", "PG304", "PG305"},
    Step.LEDGER: {"PG401", "PG402", "PG403"},
}
RECOMPUTED_STEPS = (Step.EVIDENCE, Step.LEDGER, Step.HUNKS)


def check_commits(report: Report, options: ActionOptions, ctx: gate.Context) -> None:
    where = f"{options.report_file}"
    if report.head != options.head:
        raise InputDataError(
            f"{where} is a report on {report.head[:12]}, not on {options.head[:12]}"
        )
    if ctx.commits.merge_base != report.merge_base:
        raise InputDataError(
            f"{where} names the merge base {report.merge_base[:12]}, but git computes "
            f"{ctx.commits.merge_base[:12]} for {report.base[:12]}..{report.head[:12]}"
        )
    base = options.base
    known = bool(base) and ctx.repo.has_commit(base or "")
    if base and base != report.base and not (known and ctx.repo.is_ancestor(report.base, base)):
        raise InputDataError(
            f"{where} was made against {report.base[:12]}, which is not the pull "
            f"request's base {base[:12]} nor an ancestor of it"
        )


def _context(report: Report, options: ActionOptions) -> gate.Context:
    opts = gate.GateOptions(
        root=Path(options.working_directory),
        base=report.base,
        head=report.head,
        config_path=options.config,
    )
    try:
        return gate.context(opts)
    except PlanegateError as error:
        raise InputDataError(
            f"the report's commits cannot be re-verified in this checkout: {error.message}",
            "check out the pull request's head with fetch-depth: 0 before posting its report",
        ) from None


def _agent(options: ActionOptions, ctx: gate.Context) -> bool:
    if options.agent is not None:
        return options.agent
    if options.author is None:
        return True
    return is_agent(
        options.author,
        options.labels,
        authors=ctx.cfg.agent_authors,
        agent_labels=ctx.cfg.agent_labels,
    )


def _recomputed(
    ctx: gate.Context, options: ActionOptions, agent: bool, today: date
) -> dict[Step, StepResult]:
    opts = gate.GateOptions(
        root=Path(options.working_directory),
        base=ctx.commits.base_tip,
        head=ctx.commits.head,
        config_path=options.config,
        agent=agent,
        author=options.author or "the patch author",
        today=today,
    )
    cfg, who = ctx.cfg, ctx.who
    # the gate's own step functions, without the parts that need the suite's inventory
    evidence_step = gate._evidence_step(
        cfg, who, ctx.protection, ctx.repo, ctx.base, ctx.head, opts, []
    )
    hunks_step = gate._hunks_step(cfg, who, ctx.repo, ctx.base, ctx.head, ctx.plane_map, opts)
    head_ledger = ctx.head.read(cfg.ledger)
    ledger_findings = ledger.check(
        ctx.ledger_base,
        None if head_ledger is None else head_ledger.decode("utf-8", "replace"),
        cfg.ledger,
        today,
        default_owner=who.of_plane("freeze", cfg.ledger),
    )
    ledger_step = StepResult(Step.LEDGER, tuple(ledger_findings))
    return {Step.EVIDENCE: evidence_step, Step.LEDGER: ledger_step, Step.HUNKS: hunks_step}


def _merge(reported: StepResult, mine: StepResult) -> StepResult:
    recomputed = RECOMPUTED_RULES.get(reported.step)
    kept: tuple[Finding, ...] = ()
    if recomputed is not None:
        kept = tuple(f for f in reported.findings if f.rule not in recomputed)
    note = "recomputed from git by the posting job"
    return StepResult(reported.step, mine.findings + kept, (note, *mine.notes))


def recheck(report: Report, options: ActionOptions, today: date | None = None) -> Report:
    """The report with its commits verified and its git-only steps recomputed."""
    ctx = _context(report, options)
    check_commits(report, options, ctx)
    agent = _agent(options, ctx)
    mine = _recomputed(ctx, options, agent, today or date.today())
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
    return dataclasses.replace(report, agent=agent, steps=tuple(steps), notes=notes)


_AS_REPORTED = "as reported by the pull request's run (not re-verified)"
