"""The shards' executions folded into the one execution an unsharded run would have given
(pure: shards/merge.py checks the shards first).

A nodeid of the base inventory is taken from the shard it was assigned to, whatever another
shard's file says about it; a nodeid only the head collects ran in every shard, and its worst
outcome counts. The run closed only if every shard's run closed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.fixture.wire import ProbeResult
from planegate.runner import inotify, session
from planegate.runner.rerun import Rerun
from planegate.signs.compare import MainsSigns
from planegate.signs.unseen import hook_counts
from planegate.steps.run_facts import Commits, Execution

T = TypeVar("T")


@dataclass(frozen=True)
class Part:
    """One shard's execution, its label (`2/3`) and the nodeids it was assigned."""

    label: str
    execution: Execution
    assigned: frozenset[str]


def _once(items: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(items))


def combine(
    commits: Commits, parts: Sequence[Part], inventory: Mapping[str, list[str]] | None
) -> Execution:
    owner = {n: part.label for part in parts for n in part.assigned}
    return Execution(
        commits=commits,
        head_run=combine_runs(parts, owner),
        base_inventory=inventory,
        shadow=_once(s for p in parts for s in p.execution.shadow),
        probed=ProbeResult(
            _once(n for p in parts for n in p.execution.probed.probed),
            _once(s for p in parts for s in p.execution.probed.survivors),
            as_on_main=_once(s for p in parts for s in p.execution.probed.as_on_main),
        ),
        overlay_notes=_once(n for p in parts for n in p.execution.overlay_notes),
        triage={k: v for p in parts for k, v in p.execution.triage.items() if _mine(k, p, owner)},
        on_base=_on_base(commits.base_tip, parts),
        timings=_timings(parts),
        answers=_answers(parts),
        mains_signs=_mains_signs(parts),
        new_tests=next((p.execution.new_tests for p in parts if p.execution.new_tests), None),
    )


def _mains_signs(parts: Sequence[Part]) -> MainsSigns:
    """What each shard's base sessions showed, together: a survivor or a read is main's when
    the shard that saw it on the head saw it on the base too."""
    signs = [p.execution.mains_signs for p in parts]
    reads: dict[str, tuple[str, ...]] = {}
    for sign in signs:
        for key, files in sign.prod_reads.items():
            reads[key] = _once((*reads.get(key, ()), *files))
    return MainsSigns(
        survivors=_once(n for s in signs for n in s.survivors),
        caught=_once(n for s in signs for n in s.caught),
        prod_reads=reads,
        harness=_once(t for s in signs for t in s.harness),
        traced=any(s.traced for s in signs),
        problems=_once(p for s in signs for p in s.problems),
        recorded=any(s.recorded for s in signs),
        launches=_once(x for s in signs for x in s.launches),
        unseen=next((s.unseen for s in signs if s.unseen is not None), None),
    )


def _mine(nodeid: str, part: Part, owner: Mapping[str, str]) -> bool:
    """A base nodeid belongs to its shard; one only the head collects, to every shard."""
    return owner.get(nodeid, part.label) == part.label


def _worse(old: session.Outcome | None, new: session.Outcome) -> session.Outcome:
    return new if old is None or (old.passed and not new.passed) else old


def combine_runs(parts: Sequence[Part], owner: Mapping[str, str]) -> session.RunResult:
    runs = [(p, p.execution.head_run) for p in parts]
    outcomes: dict[str, session.Outcome] = {}
    for part, run in runs:
        for nodeid, outcome in run.outcomes.items():
            if _mine(nodeid, part, owner):
                outcomes[nodeid] = _worse(outcomes.get(nodeid), outcome)
    statuses = [run.exit_status for _, run in runs]
    output = "".join(f"--- shard {p.label} ---\n{run.output}\n" for p, run in runs)
    return session.RunResult(
        collected=_once(n for _, run in runs for n in run.collected),
        selected=_once(n for p, run in runs for n in run.selected if _mine(n, p, owner)),
        outcomes=outcomes,
        collect_errors=_once(e for _, run in runs for e in run.collect_errors),
        closed=all(run.closed for _, run in runs),
        exit_status=None if None in statuses else max((s for s in statuses if s), default=0),
        timed_out=any(run.timed_out for _, run in runs),
        output=output[-session.MAX_OUTPUT :],
        canary_problem=next(
            (f"shard {p.label}: {run.canary_problem}" for p, run in runs if run.canary_problem),
            None,
        ),
        stray_lines=sum(run.stray_lines for _, run in runs),
        notes=_once(n for _, run in runs for n in run.notes),
        unfinished=_once(n for _, run in runs for n in run.unfinished),
        examples={k: v for p, run in runs for k, v in run.examples.items() if _mine(k, p, owner)},
        tampering=_once(t for _, run in runs for t in run.tampering),
        extra=_extra([run.extra for _, run in runs]),
        opened=_opened([run.opened for _, run in runs]),
        reads={k: v for p, run in runs for k, v in run.reads.items() if _mine(k, p, owner)},
        unsandboxed=any(run.unsandboxed for _, run in runs),
    )


def _opened(found: Sequence[inotify.Opens | None]) -> inotify.Opens | None:
    """The kernel's opens of locked files, summed over the shards (each watched its own run);
    None when a shard's run was not watched."""
    if not found or any(opens is None for opens in found):
        return None
    counts: Counter[str] = Counter()
    for opens in found:
        counts.update(opens.counts if opens is not None else {})
    return inotify.Opens(
        dict(sorted(counts.items())),
        any(opens is not None and opens.overflow for opens in found),
        next((opens.unavailable for opens in found if opens is not None and opens.unavailable), ""),
    )


def _hook_opens(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The `opens` records of the shards' test sessions (the locked files' opens each audit
    hook saw), their counts summed; None unless every shard sent one of the right shape."""
    counts: Counter[str] = Counter()
    for extra in records:
        found = hook_counts(extra.get("opens"))
        if found is None:
            return None
        counts.update(found)
    return {"counts": dict(sorted(counts.items()))}


def _extra(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The child's extra records by kind: their mappings (the `imports` record's modules)
    united, any other value the first shard's; the `opens` counts summed."""
    merged: dict[str, dict[str, Any]] = {}
    for extra in records:
        for kind, record in extra.items():
            into = merged.setdefault(kind, {})
            for key, value in record.items():
                if isinstance(value, dict) and isinstance(into.get(key, {}), dict):
                    into[key] = {**value, **into.get(key, {})}
                else:
                    into.setdefault(key, value)
    if "opens" in merged:
        opens = _hook_opens(records)
        if opens is None:
            del merged["opens"]
        else:
            merged["opens"] = opens
    return dict(merged)


def _on_base(commit: str, parts: Sequence[Part]) -> Rerun | None:
    reruns = [p.execution.on_base for p in parts if p.execution.on_base is not None]
    if not reruns:
        return None
    return Rerun(
        commit=commit,
        runs=max(r.runs for r in reruns),
        outcomes={k: v for r in reruns for k, v in r.outcomes.items()},
        failures={k: v for r in reruns for k, v in r.failures.items()},
        collected=_once(n for r in reruns for n in r.collected),
        closed=all(r.closed for r in reruns),
        problem="; ".join(_once(r.problem for r in reruns if r.problem)),
        refused=next((r.refused for r in reruns if r.refused), ""),
    )


def _answers(parts: Sequence[Part]) -> AnswerProbes:
    found = [p.execution.answers for p in parts]
    return AnswerProbes(
        flipped=_once(n for a in found for n in a.flipped),
        failures=_once(f for a in found for f in a.failures),
        unprobed=_once(u for a in found for u in a.unprobed),
        not_applicable=_once(u for a in found for u in a.not_applicable),
        records=tuple(r for a in found for r in a.records),
        tampering=_once(t for a in found for t in a.tampering),
    )


def _timings(parts: Sequence[Part]) -> dict[str, float]:
    """Each part's seconds in its slowest shard (the shards run side by side)."""
    slowest: dict[str, float] = {}
    for part in parts:
        for key, seconds in part.execution.timings.items():
            slowest[key] = max(slowest.get(key, 0.0), seconds)
    return slowest
