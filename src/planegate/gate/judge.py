"""The judge: every step's findings from git and the execution's results; runs no project code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from planegate.errors import InternalError
from planegate.gate import merge
from planegate.gate.context import Context
from planegate.gate.digest_check import DigestCheck
from planegate.junit.trust import trust_line
from planegate.progress import Stopwatch
from planegate.report import Report, StepResult, mains_own
from planegate.report.locate import place_failures
from planegate.steps import evidence, hunks, inventory, ledger, new_tests, planes
from planegate.steps.hunks_started import StartedAnalysis
from planegate.steps.run_facts import Execution, RunFacts, StepCheck

# DESIGN §4's order: the exit code is that of the first step that failed
STEPS: tuple[StepCheck, ...] = (
    inventory.check,
    evidence.check,
    ledger.check,
    hunks.check,
    planes.check,
)


def judge(
    ctx: Context,
    execution: Execution,
    digest: DigestCheck,
    analysis: StartedAnalysis | None = None,
) -> Report:
    """The report on an execution; `analysis` is the hunk analysis when the caller started it
    (it reads git only, so it can run beside the execution)."""
    if ctx.commits.conflicts:
        return merge.conflict_report(ctx, digest.source)
    if execution.base_inventory is None:
        raise InternalError("no inventory of the base: neither a digest nor a collection")
    run = RunFacts.of(execution, digest_findings=digest.findings)
    watch = Stopwatch()
    if analysis is None:
        with watch.time("hunk analysis started"):
            analysis = hunks.start(ctx)  # it runs beside steps 2 to 4
    run = replace(run, hunk_analysis=analysis)
    steps = tuple(_timed(watch, check, ctx, run) for check in STEPS)
    report = Report(
        base=ctx.commits.base_tip,
        head=ctx.commits.head,
        merge_base=ctx.commits.merge_base,
        agent=ctx.agent,
        digest_source=digest.source,
        steps=steps,
        shadow=execution.shadow,
        probes=execution.answers.records,
        merged=ctx.commits.merged,
        base_broken=base_broken(steps),
        timings={**execution.timings, **watch.seconds},
        unsandboxed=execution.head_run.unsandboxed,
        new_tests=new_tests.results(ctx.new_tests, execution.new_tests),
        classify=new_tests.rows_to_add(
            ctx.new_tests, execution.new_tests, new_tests.sources_of(ctx.head, ctx.new_tests)
        ),
        trust=trust_line(ctx.cfg.runner),
    )
    # every output (terminal, JSON, annotations) names the failing test's line, not its file
    return place_failures(mains_own.quiet(report), _failure_text(execution), ctx.base.read)


def _failure_text(execution: Execution) -> Callable[[str], str]:
    def text(nodeid: str) -> str:
        return execution.head_run.outcome_of(nodeid).message

    return text


def _timed(watch: Stopwatch, check: StepCheck, ctx: Context, run: RunFacts) -> StepResult:
    with watch.time("step " + check.__module__.rsplit(".", 1)[-1]):
        return check(ctx, run)


def base_broken(steps: tuple[StepResult, ...]) -> tuple[str, ...]:
    """Scoring tests that failed on the base as on the head (PG111): exit 6 if nothing else."""
    return tuple(
        f.nodeid for result in steps for f in result.findings if f.rule == "PG111" and f.nodeid
    )
