"""The sweep's result as the action's run phase writes it (`sweep.json`) and its judge reads
it back (`wire.SWEEP`, schemas/sweep.schema.json): written after project code ran, so read as
untrusted data."""

from __future__ import annotations

from dataclasses import dataclass

from planegate import wire
from planegate.freeze import ledger
from planegate.freeze.sweep_run import SweepOutcome


@dataclass(frozen=True)
class SweepResult:
    """What the judge takes from a sweep: its commit, its proposals as ledger lines, the
    nodeids that failed every run, and why nothing was proposed (None: nothing stopped it)."""

    commit: str
    proposals: tuple[str, ...]
    base_broken: tuple[str, ...]
    trouble: str | None


def of_outcome(outcome: SweepOutcome) -> SweepResult:
    return SweepResult(
        commit=outcome.commit,
        proposals=tuple(ledger.render_event(p.event) for p in outcome.proposals),
        base_broken=tuple(outcome.base_broken),
        trouble=outcome.trouble,
    )


def to_json(result: SweepResult) -> str:
    """The result's text (no newline at the end, as the run phase always wrote it)."""
    return wire.SWEEP.dump(
        {
            "schema": wire.SWEEP.name,
            "commit": result.commit,
            "proposals": list(result.proposals),
            "base_broken": list(result.base_broken),
            "trouble": result.trouble,
        }
    ).rstrip("\n")


def from_json(text: str | bytes, source: str) -> SweepResult:
    """Raises InputDataError (exit 65) naming `source` on bad bytes, JSON or shape."""
    data = wire.SWEEP.load(text, source)
    return SweepResult(
        commit=data["commit"],
        proposals=tuple(data["proposals"]),
        base_broken=tuple(data["base_broken"]),
        trouble=data["trouble"],
    )
