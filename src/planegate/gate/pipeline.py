"""The gate on two commits, in one process: context -> execute -> judge (DESIGN §4)."""

from __future__ import annotations

import time
from dataclasses import replace

from planegate.gate import context
from planegate.gate.context import Context, GateOptions
from planegate.gate.digest_check import check_digest
from planegate.gate.execute import Execution, execute
from planegate.gate.judge import judge
from planegate.progress import QUIET, Progress, Stopwatch
from planegate.report import Report


def run(options: GateOptions, progress: Progress = QUIET) -> Report:
    """The whole gate in one process: execute, then judge."""
    start = time.perf_counter()
    ctx = context.build(options)
    built = round(time.perf_counter() - start, 3)
    report = run_in(ctx, progress)
    timings = {"context": built, **report.timings}
    timings["total"] = round(time.perf_counter() - start, 3)
    return replace(report, timings=timings)


def run_in(ctx: Context, progress: Progress = QUIET) -> Report:
    """The whole gate on a context already built from git."""
    return execute_and_judge(ctx, progress)[1]


def execute_and_judge(ctx: Context, progress: Progress = QUIET) -> tuple[Execution, Report]:
    """The whole gate on a context, with the execution the report was judged from (the action
    reads the failing tests' failure text from it)."""
    progress.step("inventory", f"base {ctx.base.commit[:12]}, head {ctx.commits.head[:12]}")
    watch = Stopwatch()
    with watch.time("digest"):
        digest = check_digest(ctx)
    execution = execute(
        ctx,
        progress,
        collect_base=digest.inventory is None,
        base_inventory=digest.inventory,
        main=digest.main_run,
    )
    report = judge(ctx, execution, digest)
    return execution, replace(report, timings={**watch.seconds, **report.timings})
