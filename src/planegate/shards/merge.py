"""`gate --merge EVIDENCE...`: the shards' evidence checked against git and against each
other, folded into one execution, and judged once; no project code runs here.

The merge builds its own context from git (commits, configuration, protected paths, the
patch's diff) and recomputes every step from it; from the shards it takes only what running
tests produced. Evidence that does not fit is bad input data (exit 65) naming the file: a
shard missing or given twice, shards of other commits, configuration, planegate version or
inventory, a nodeid of the inventory in no shard or in two.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from planegate import __version__
from planegate.errors import InputDataError
from planegate.gate import context, pipeline
from planegate.gate.context import Context, GateOptions
from planegate.gate.digest_check import DigestCheck, check_digest
from planegate.gate.judge import judge
from planegate.progress import QUIET, Progress
from planegate.report import Report
from planegate.shards.combine import Part, combine
from planegate.shards.evidence_file import Evidence, config_of, sliceable, sliced
from planegate.steps.run_facts import Execution

SHOWN = 3


@dataclass(frozen=True)
class Named:
    """An evidence file and the name its errors give (its path)."""

    name: str
    evidence: Evidence


def run(options: GateOptions, files: Sequence[Named], progress: Progress = QUIET) -> Report:
    start = time.perf_counter()
    ctx = context.build(options)
    analysis = pipeline.start_analysis(ctx)  # it runs while the shards are merged
    digest = check_digest(ctx)
    progress.step("planes", f"merging the evidence of {len(files)} shards")
    execution = merged_execution(ctx, files, digest)
    report = judge(ctx, execution, digest, analysis)
    total = round(time.perf_counter() - start, 3)
    shards = {f"shard {f.evidence.shard}": f.evidence.timings.get("total", 0.0) for f in files}
    note = f"merged {len(files)} shards: " + ", ".join(
        f"{f.evidence.shard} ({len(f.evidence.assigned)} nodeids, exit {f.evidence.exit_code})"
        for f in sorted(files, key=lambda f: f.evidence.shard)
    )
    timings = {**report.timings, **shards, "merge": total}
    return replace(report, notes=(*report.notes, note), timings=timings)


def merged_execution(ctx: Context, files: Sequence[Named], digest: DigestCheck) -> Execution:
    """The one execution the shards add up to; raises InputDataError when they do not."""
    ordered = check_shards(files)
    for named in ordered:
        check_against_git(ctx, named)
    parts = [
        Part(str(n.evidence.shard), n.evidence.execution, frozenset(n.evidence.assigned))
        for n in ordered
    ]
    if ctx.commits.conflicts:
        return combine(ctx.commits, parts, None)
    inventory = digest.inventory or shards_inventory(ordered)
    check_coverage(ordered, sliceable(inventory))
    return combine(ctx.commits, parts, inventory)


def check_shards(files: Sequence[Named]) -> list[Named]:
    """Every K of 1..N exactly once, all of the same N; sorted by K."""
    if not files:
        raise InputDataError("--merge: no evidence files")
    first = files[0]
    by_index: dict[int, Named] = {}
    for named in files:
        shard = named.evidence.shard
        if shard.total != first.evidence.shard.total:
            raise InputDataError(
                f"{named.name}: shard {shard}, but {first.name} is shard "
                f"{first.evidence.shard}: every shard must split into the same N"
            )
        if shard.index in by_index:
            raise InputDataError(
                f"{named.name}: shard {shard} is given twice (also {by_index[shard.index].name})"
            )
        by_index[shard.index] = named
    total = first.evidence.shard.total
    missing = [str(k) for k in range(1, total + 1) if k not in by_index]
    if missing:
        raise InputDataError(
            f"--merge: shard {', '.join(f'{k}/{total}' for k in missing)} missing: "
            f"got {', '.join(str(by_index[k].evidence.shard) for k in sorted(by_index))}",
            "pass every shard's evidence file; a shard that failed to write one must rerun",
        )
    return [by_index[k] for k in sorted(by_index)]


def check_against_git(ctx: Context, named: Named) -> None:
    """The shard ran what the merge recomputed from git: the same commits, the same
    configuration at the base tip, and the same planegate."""
    evidence = named.evidence
    if evidence.commits != ctx.commits:
        theirs, ours = evidence.commits, ctx.commits
        raise InputDataError(
            f"{named.name}: evidence of head {theirs.head[:12]} on base {theirs.base_tip[:12]} "
            f"(merged tree {theirs.merged[:12] or 'none'}), not of head {ours.head[:12]} on "
            f"base {ours.base_tip[:12]} (merged tree {ours.merged[:12] or 'none'})",
            "merge the evidence of the shards of this run only",
        )
    if evidence.config != config_of(ctx):
        path, sha = evidence.config
        raise InputDataError(
            f"{named.name}: made with the configuration {path} (sha256 {sha[:12]}), not "
            f"{ctx.cfg.path} at the base tip"
        )
    if evidence.version != __version__:
        raise InputDataError(
            f"{named.name}: made by planegate {evidence.version}, this is {__version__}",
            "run the shards and the merge with the same planegate",
        )


def shards_inventory(ordered: Sequence[Named]) -> Mapping[str, list[str]]:
    """The base inventory the shards collected (no digest vouches for one): all the same."""
    first = ordered[0]
    inventory = first.evidence.execution.base_inventory or {}
    for named in ordered[1:]:
        other = named.evidence.execution.base_inventory or {}
        if sliceable(other) != sliceable(inventory):
            raise InputDataError(
                f"{named.name}: its base inventory differs from {first.name}'s",
                "the base's collection is not deterministic; publish main's digest",
            )
    return inventory


def check_coverage(ordered: Sequence[Named], nodeids: Sequence[str]) -> None:
    """Each shard sliced this inventory, and each of its nodeids is in exactly one shard."""
    expected = sliced(nodeids, "")
    owner: dict[str, Named] = {}
    for named in ordered:
        evidence = named.evidence
        if (evidence.inventory.count, evidence.inventory.sha256) != (
            expected.count,
            expected.sha256,
        ):
            raise InputDataError(
                f"{named.name}: shard {evidence.shard} sliced another inventory "
                f"({evidence.inventory.count} nodeids, {evidence.inventory.source}) than the "
                f"base's ({expected.count} nodeids)"
            )
        for nodeid in evidence.assigned:
            if nodeid in owner:
                raise InputDataError(
                    f"{named.name}: {nodeid} is assigned to shard {evidence.shard} and to "
                    f"shard {owner[nodeid].evidence.shard} ({owner[nodeid].name})"
                )
            owner[nodeid] = named
    known = set(nodeids)
    unknown = [n for n in owner if n not in known]
    if unknown:
        raise InputDataError(
            f"{owner[unknown[0]].name}: {len(unknown)} assigned nodeids are not in the base "
            f"inventory, first {unknown[0]}"
        )
    missing = [n for n in nodeids if n not in owner]
    if missing:
        raise InputDataError(
            f"--merge: {len(missing)} nodeids of the base inventory are in no shard: "
            + ", ".join(missing[:SHOWN])
            + (" ..." if len(missing) > SHOWN else "")
        )
