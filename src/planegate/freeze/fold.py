"""The fold of the freeze ledger: which nodeids are frozen after its events, and what is due.

Deterministic and total: an event the ledger rules reject changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from planegate.config import defaults
from planegate.freeze.events import FreezeEvent, LedgerEvent, RenewEvent, ThawEvent
from planegate.vocabulary import FlakeClass


@dataclass(frozen=True)
class FreezeState:
    """What the fold says about one frozen nodeid."""

    nodeid: str
    flake_class: FlakeClass
    class_confidence: float
    owner: str
    note: str
    frozen_at: str
    review_by: date | None
    base_commit: str
    mode: str
    runs: int
    failures: int
    evidence_hash: str
    test_source_hash: str
    thaw_runs_required: int
    freeze_line: int
    line: int
    renewals: int = 0


@dataclass(frozen=True)
class ReplayDue:
    """A freeze whose review_by date has passed: it must be replayed (thaw or renew)."""

    nodeid: str
    owner: str
    review_by: date
    line: int
    days_overdue: int


@dataclass
class Folder:
    """The one state machine behind `fold` and `parse`: it accepts or rejects each event."""

    states: dict[str, FreezeState] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # evidence hash -> first line

    def apply(self, event: LedgerEvent, line: int) -> str | None:
        current = self.states.get(event.nodeid)
        if isinstance(event, FreezeEvent):
            if current is not None:
                return (
                    f"duplicate freeze of '{event.nodeid}', frozen since line "
                    f"{current.freeze_line}; append a renew instead"
                )
            self.states[event.nodeid] = _frozen(event, line)
        else:
            if current is None:
                return f"{event.KIND} of '{event.nodeid}', which is not frozen"
            earlier = self.seen.get(event.evidence_hash)
            if earlier is not None:
                return (
                    f"{event.KIND} of '{event.nodeid}' brings no new evidence: its "
                    f"evidence_hash already appears on line {earlier}"
                )
            if isinstance(event, ThawEvent):
                if event.runs < current.thaw_runs_required:
                    return (
                        f"thaw of '{event.nodeid}' has {event.runs} clean runs; the freeze needs "
                        f"at least {current.thaw_runs_required} (line {current.line})"
                    )
                del self.states[event.nodeid]
            else:
                self.states[event.nodeid] = _renewed(current, event, line)
        self.seen.setdefault(event.evidence_hash, line)
        return None


def _frozen(event: FreezeEvent, line: int) -> FreezeState:
    return FreezeState(
        nodeid=event.nodeid,
        flake_class=event.flake_class,
        class_confidence=event.class_confidence,
        owner=event.owner,
        note=event.note,
        frozen_at=event.frozen_at,
        review_by=event.review_by,
        base_commit=event.base_commit,
        mode=event.mode,
        runs=event.runs,
        failures=event.failures,
        evidence_hash=event.evidence_hash,
        test_source_hash=event.test_source_hash,
        thaw_runs_required=event.thaw_runs_required,
        freeze_line=line,
        line=line,
    )


def _renewed(state: FreezeState, event: RenewEvent, line: int) -> FreezeState:
    return FreezeState(
        nodeid=state.nodeid,
        flake_class=event.flake_class or state.flake_class,
        class_confidence=(
            event.class_confidence if event.class_confidence is not None else state.class_confidence
        ),
        owner=event.owner,
        note=event.note,
        frozen_at=state.frozen_at,
        review_by=event.review_by,
        base_commit=event.base_commit,
        mode=event.mode,
        runs=event.runs,
        failures=event.failures,
        evidence_hash=event.evidence_hash,
        test_source_hash=event.test_source_hash,
        thaw_runs_required=event.thaw_runs_required,
        freeze_line=state.freeze_line,
        line=line,
        renewals=state.renewals + 1,
    )


def fold(
    events: Iterable[LedgerEvent], lines: Iterable[int] | None = None
) -> dict[str, FreezeState]:
    """The frozen nodeids after `events`, in order. Deterministic and total.

    Events the ledger rules reject (renew/thaw of a nodeid not frozen, a duplicate freeze, a
    renew or thaw whose evidence_hash is not new, a thaw with too few clean runs) change
    nothing. `lines` gives each event's ledger line (default 1, 2, 3, ...).
    """
    folder = Folder()
    numbers = iter(lines) if lines is not None else None
    for index, event in enumerate(events, start=1):
        line = next(numbers, index) if numbers is not None else index
        folder.apply(event, line)
    return dict(sorted(folder.states.items()))


def replays_due(state: Mapping[str, FreezeState], today: date) -> list[ReplayDue]:
    """Freezes whose review_by date is before `today`. A due replay never thaws anything."""
    due = [
        ReplayDue(
            nodeid=entry.nodeid,
            owner=entry.owner,
            review_by=entry.review_by,
            line=entry.line,
            days_overdue=(today - entry.review_by).days,
        )
        for entry in state.values()
        if entry.review_by is not None and entry.review_by < today
    ]
    return sorted(due, key=lambda item: (item.line, item.nodeid))


def frozen_fraction_exceeded(
    frozen_count: int, suite_size: int, max_fraction: float = defaults.MAX_FROZEN_FRACTION
) -> bool:
    """True when more than `max_fraction` of the suite is frozen (exactly at the limit is fine)."""
    if not 0.0 <= max_fraction <= 1.0:
        raise ValueError(f"max_fraction must be between 0 and 1, got {max_fraction}")
    if frozen_count < 0 or suite_size < 0:
        raise ValueError("counts must not be negative")
    return frozen_count > Fraction(repr(max_fraction)) * suite_size
