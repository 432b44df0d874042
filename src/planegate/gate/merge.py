"""The patch as the gate judges it: merged onto the base's tip. A merge that conflicts is a
finding of its own (PG108: rebase), never a pass, and no project code runs for it."""

from __future__ import annotations

from planegate.findings import Finding, Severity, Step
from planegate.gate.context import Context
from planegate.report import Report, StepResult
from planegate.runner.session import RunResult

SHOWN = 10


def conflict_finding(ctx: Context) -> Finding:
    paths = ctx.commits.conflicts
    listed = ", ".join(paths[:SHOWN]) + (
        f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    )
    return Finding(
        "PG108",
        Step.PLANES,
        Severity.ERROR,
        f"the head {ctx.commits.head[:12]} does not merge onto the base tip "
        f"{ctx.commits.base_tip[:12]}: {listed} conflict; main's evidence cannot run against "
        "the patch until it is rebased",
        path=paths[0] if paths else None,
        owner=ctx.author,
    )


def conflict_report(ctx: Context, digest_source: str) -> Report:
    """Every step says it was not judged; the planes step holds the conflict."""
    note = "not judged: the patch does not merge onto the base tip (PG108)"
    steps = tuple(
        StepResult(step, (conflict_finding(ctx),) if step is Step.PLANES else (), (note,))
        for step in Step
    )
    return Report(
        base=ctx.commits.base_tip,
        head=ctx.commits.head,
        merge_base=ctx.commits.merge_base,
        agent=ctx.agent,
        digest_source=digest_source,
        steps=steps,
        merged="",
    )


def unmerged_run() -> RunResult:
    """The run that did not happen: nothing collected, nothing closed."""
    return RunResult(
        collected=(),
        selected=(),
        outcomes={},
        collect_errors=(),
        closed=False,
        exit_status=None,
        timed_out=False,
        output="",
        notes=("not run: the patch does not merge onto the base tip",),
    )
