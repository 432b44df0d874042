"""The gate on two commits, in one process: context -> execute -> judge (DESIGN §4)."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from planegate.gate import context
from planegate.gate.alongside import Alongside
from planegate.gate.context import Context, GateOptions
from planegate.gate.digest_check import check_digest
from planegate.gate.execute import execute
from planegate.probes import registry
from planegate.progress import QUIET, Progress, Stopwatch
from planegate.report import Report
from planegate.runner import session
from planegate.steps import hunks
from planegate.steps.hunks_started import GitOnly, StartedAnalysis
from planegate.steps.run_facts import Execution

if TYPE_CHECKING:  # its module is imported only for a patch that changes many test files
    from planegate.analysis.hunks.processes import Workers


def run(options: GateOptions, progress: Progress = QUIET) -> Report:
    """The whole gate in one process: execute, then judge."""
    start, spent = time.perf_counter(), session.children_cpu()
    ctx, ready = build_context(options)
    built = round(time.perf_counter() - start, 3)
    report = execute_and_judge(ctx, progress, ready)[1]
    timings = {"context": built, **report.timings}
    timings["total"] = round(time.perf_counter() - start, 3)
    timings[CHILDREN_CPU] = round(session.children_cpu() - spent, 3)
    return replace(report, timings=timings)


CHILDREN_CPU = "test children's CPU (as each reported it)"


def build_context(options: GateOptions) -> tuple[Context, Workers | None]:
    """The gate's Context and, for a patch that changes many test files, the hunk analysis's
    worker processes, started before the configuration is read so they start up meanwhile."""
    threading.Thread(target=_ahead_of_use, name="ahead", daemon=True).start()
    opened = context.open_commits(options)
    ready = None if opened.commits.conflicts else hunks.ready_workers(opened.changes)
    try:
        return context.build(options, opened), ready
    except BaseException:
        if ready is not None:
            ready.close()
        raise


def _ahead_of_use() -> None:
    """What the gate builds the same way every time before the head's run starts, built on a
    thread of its own while this thread waits on git: the validators of the configuration
    and of main's digest, and the list of installed pytest plugins (each kept once built).
    What fails here fails again where the main thread asks for it, and is reported there."""
    from planegate.config import load
    from planegate.runner import plugins
    from planegate.schemas import validator

    with contextlib.suppress(Exception):
        load.validator()
        validator("digest")
        plugins.points(None)


def start_analysis(ctx: Context, ready: Workers | None = None) -> StartedAnalysis | None:
    """The hunk analysis started (git only: it runs beside what comes before step 5); None on
    a merge conflict, which is reported alone."""
    if ctx.commits.conflicts:
        if ready is not None:
            ready.close()
        return None
    return hunks.start(ctx, ready)


# what only the gate's end needs (the judge, the base's signs, triage), imported on the thread
# that works beside the head's test child
ALONGSIDE = (
    "planegate.gate.judge",
    "planegate.signs.on_main",
    "planegate.freeze.triage",
    *registry.AFTER_THE_RUN,
)


ALONGSIDE_TIMING = "hunks' git-only findings (alongside the head run)"
SOURCE_TIMING = "main's source from the digest, checked (alongside the head run)"


def alongside_the_child(
    ctx: Context, analysis: StartedAnalysis | None
) -> tuple[StartedAnalysis | None, Alongside[GitOnly] | None]:
    """The analysis with the hunks step's git-only findings (the production-code scan, the
    lint) worked out on a thread once the head's test child has started (gate/alongside.py),
    and that work: `execute` arms it just before the head's run (the base's collection or run
    may start a child of theirs earlier, beside the head's preparations)."""
    if analysis is None:
        return None, None
    work = Alongside(hunks.git_only(ctx, analysis), ALONGSIDE, armed=False)
    return replace(analysis, git_only=work.result), work


NO_DIGEST = (
    "none given, so main's tests run on the base here too; `planegate digest` on main "
    "(the action's push job) records that run once and saves it (--digest FILE)"
)


def execute_and_judge(
    ctx: Context, progress: Progress = QUIET, ready: Workers | None = None
) -> tuple[Execution, Report]:
    """The whole gate on a context, with the execution the report was judged from (the action
    reads the failing tests' failure text from it)."""
    progress.step("inventory", f"base {ctx.base.commit[:12]}, head {ctx.commits.head[:12]}")
    watch = Stopwatch()
    with watch.time("hunk analysis started"):
        analysis = start_analysis(ctx, ready)
    with watch.time("digest"):  # first: the digest may say what main's source does
        digest = check_digest(ctx)
    with watch.time("base evidence"):
        _ = ctx.protection  # a refusal of the base's configuration stops the gate here
    if ctx.options.digest is None and ctx.options.digest_file is None:
        progress.step("digest", NO_DIGEST)
    with watch.time("hunks' git-only inputs"):
        analysis, beside = alongside_the_child(ctx, analysis)
    execution = execute(
        ctx,
        progress,
        base_inventory=digest.inventory,
        main=digest.main_run,
        head_starts=None if beside is None else beside.arm,
    )
    from planegate.gate.judge import judge  # imported alongside the child's run (ALONGSIDE)

    report = judge(ctx, execution, digest, analysis)
    if beside is not None:  # its own time, spent while the head's test child ran
        watch.seconds[ALONGSIDE_TIMING] = beside.seconds
    if digest.source_check is not None:  # waited for by the judge (`DigestCheck.findings`)
        watch.seconds[SOURCE_TIMING] = digest.source_check.seconds
    return execution, replace(report, timings={**watch.seconds, **report.timings})
