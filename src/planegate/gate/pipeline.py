"""The gate on two commits, in one process: context -> execute -> judge (DESIGN §4)."""

from __future__ import annotations

from planegate.gate import context
from planegate.gate.context import Context, GateOptions
from planegate.gate.digest_check import check_digest
from planegate.gate.execute import Execution, execute
from planegate.gate.judge import judge
from planegate.progress import QUIET, Progress
from planegate.report import Report


def run(options: GateOptions, progress: Progress = QUIET) -> Report:
    """The whole gate in one process: execute, then judge."""
    return run_in(context.build(options), progress)


def run_in(ctx: Context, progress: Progress = QUIET) -> Report:
    """The whole gate on a context already built from git."""
    return execute_and_judge(ctx, progress)[1]


def execute_and_judge(ctx: Context, progress: Progress = QUIET) -> tuple[Execution, Report]:
    """The whole gate on a context, with the execution the report was judged from (the action
    reads the failing tests' failure text from it)."""
    progress.step("inventory", f"base {ctx.base.commit[:12]}, head {ctx.commits.head[:12]}")
    digest = check_digest(ctx)
    execution = execute(ctx, progress, collect_base=digest.inventory is None)
    return execution, judge(ctx, execution, digest)
