"""`gate --shard K/N`: one shard's slice of the scoring tests run against the patch, and the
evidence the merge needs (shards/merge.py). docs/runner.md#sharding says what runs where.

Every shard builds the whole context from git and collects the head's whole suite (pytest
deselects the other shards' nodeids), so its own report judges its slice with every step;
the slice comes from the base inventory (main's digest, else the base's collection), so the
same inventory always gives the same slice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from planegate import __version__
from planegate.config.planemap import file_of
from planegate.errors import UsageError
from planegate.gate import context, junit_gate
from planegate.gate.context import Context, GateOptions
from planegate.gate.digest_check import DigestCheck, check_digest
from planegate.gate.execute import Within, collect_inventory, execute
from planegate.gate.judge import judge
from planegate.junit import filters
from planegate.progress import QUIET, Progress
from planegate.report import Report, json_report
from planegate.shards.evidence_file import Evidence, config_of, sliceable, sliced
from planegate.shards.slicing import Shard, slice_of
from planegate.steps.run_facts import Execution


def run(options: GateOptions, shard: Shard, progress: Progress = QUIET) -> tuple[Evidence, Report]:
    """The shard's evidence, and its own report of its slice."""
    start = time.perf_counter()
    ctx = context.build(options)
    refuse_unfiltered(ctx)
    digest = check_digest(ctx)
    inventory, source = _inventory(ctx, digest, progress)
    nodeids = sliceable(inventory)
    assigned = slice_of(nodeids, shard.index, shard.total, durations(digest, nodeids))
    refuse_long_filter(ctx, set(nodeids) - set(assigned))
    progress.step("planes", f"shard {shard}: {len(assigned)} of {len(nodeids)} nodeids")
    within = Within(frozenset(assigned), frozenset(nodeids) - set(assigned), shard.index == 1)
    execution = execute(
        ctx,
        progress,
        base_inventory=inventory,
        main=digest.main_run,
        within=within,
    )
    report = judge(ctx, own_view(execution, within), digest)
    report = replace(report, notes=(*report.notes, _note(shard, assigned, nodeids)))
    timings = {**report.timings, "total": round(time.perf_counter() - start, 3)}
    report = replace(report, timings=timings)
    evidence = Evidence(
        shard=shard,
        version=__version__,
        commits=ctx.commits,
        config=config_of(ctx),
        inventory=sliced(nodeids, source),
        assigned=assigned,
        exit_code=report.exit_code,
        report=json_report.to_dict(report),
        execution=execution,
        timings=timings,
    )
    return evidence, report


# the longest command `sh -c` takes: Linux's limit on one argument (MAX_ARG_STRLEN, 128 KiB),
# with room for the environment's own
MAX_COMMAND_BYTES = 120_000


def refuse_unfiltered(ctx: Context) -> None:
    """A `runner: junit` suite is sharded through the runner's own filter only: without one,
    a shard would run the whole suite."""
    section = ctx.cfg.junit
    if ctx.cfg.runner != "junit" or section is None:
        return
    if section.filter == "none" or filters.PLACEHOLDER not in section.command:
        raise UsageError(
            "--shard: runner: junit shards through the runner's own filter: set junit.filter "
            "and put {deselect} in junit.command",
            'see docs/configuration.md, "runner: junit"',
        )


def refuse_long_filter(ctx: Context, elsewhere: set[str]) -> None:
    """The filter names every id the other shards run; a command too long for `sh -c` is
    refused rather than left to fail in the run."""
    section = ctx.cfg.junit
    if ctx.cfg.runner != "junit" or section is None:
        return
    text = filters.command(section.command, section.filter, set(ctx.frozen) | elsewhere)[0]
    if len(text.encode()) > MAX_COMMAND_BYTES:
        raise UsageError(
            f"--shard: junit.filter {section.filter} names {len(elsewhere)} tests of the other "
            f"shards: the command would be {len(text.encode())} bytes, over "
            f"{MAX_COMMAND_BYTES}",
            "gate it with fewer shards, or without --shard",
        )


def durations(digest: DigestCheck, nodeids: tuple[str, ...]) -> dict[str, float] | None:
    """Each nodeid's share of its file's seconds in main's run (None without one): slices
    balanced by time rather than by count."""
    if digest.main_run is None or not digest.main_run.file_seconds:
        return None
    counts = Counter(file_of(n) for n in nodeids)
    seconds = digest.main_run.file_seconds
    return {n: seconds.get(file_of(n), 0.0) / counts[file_of(n)] for n in nodeids}


def _note(shard: Shard, assigned: tuple[str, ...], nodeids: tuple[str, ...]) -> str:
    return (
        f"shard {shard}: this report judges {len(assigned)} of the {len(nodeids)} nodeids; "
        "the verdict is `planegate gate --merge` over every shard's evidence"
    )


def _inventory(
    ctx: Context, digest: DigestCheck, progress: Progress
) -> tuple[Mapping[str, list[str]], str]:
    """The base inventory the slices are cut from: the digest's when it vouches for one,
    else the base's collection (none when the patch does not merge: nothing runs)."""
    if digest.inventory is not None:
        return digest.inventory, "digest"
    if ctx.commits.conflicts:
        return {}, "none: the patch does not merge onto the base tip"
    if ctx.cfg.runner == "junit":
        return junit_gate.base_inventory(ctx, progress), "the base's run at its tip"
    found = collect_inventory(ctx.repo, ctx.base.commit, ctx.base_ini, ctx.plane_map, progress)
    return found, "collected at the base tip"


def own_view(execution: Execution, within: Within) -> Execution:
    """The execution as its shard's report judges it: the other shards' nodeids are neither
    expected nor collected here."""
    inventory = {
        plane: [n for n in ids if n not in within.elsewhere]
        for plane, ids in (execution.base_inventory or {}).items()
    }
    return replace(execution, head_run=within.own(execution.head_run), base_inventory=inventory)
