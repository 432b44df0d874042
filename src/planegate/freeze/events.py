"""The freeze ledger's records: its three kinds of event, a problem at a line, a thaw's size.

docs/ledger.md is the reference for the format.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar, Literal, Union, get_args

from planegate.config import defaults
from planegate.vocabulary import FlakeClass

EventKind = Literal["freeze", "renew", "thaw"]
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)
KIND_KEY = "event"
# The field that dates an event of each kind.
STAMP_FIELDS: dict[EventKind, str] = {
    "freeze": "frozen_at",
    "renew": "renewed_at",
    "thaw": "thawed_at",
}

RULE_INVALID = "PG401"
RULE_REWRITTEN = "PG402"
RULE_REPLAY_DUE = "PG403"
RULE_TOO_MANY_FROZEN = "PG404"

JsonObject = dict[str, Any]

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class FreezeEvent:
    """A nodeid leaves scoring for a dated, classified reason, tied to failing evidence.

    Every field is required except `review_by`.
    """

    KIND: ClassVar[EventKind] = "freeze"

    nodeid: str
    flake_class: FlakeClass
    class_confidence: float
    owner: str
    note: str
    frozen_at: str
    base_commit: str
    env_fingerprint: JsonObject = field(hash=False)
    runs: int
    failures: int
    mode: str
    failure_signature: str
    evidence_hash: str
    test_source_hash: str
    thaw_runs_required: int
    review_by: date | None = None


@dataclass(frozen=True)
class RenewEvent:
    """A frozen nodeid stays frozen: new failing evidence, optionally a new class or date.

    Every field is required except `review_by`, `flake_class` and `class_confidence` (the last
    two come together or not at all).
    """

    KIND: ClassVar[EventKind] = "renew"

    nodeid: str
    owner: str
    note: str
    renewed_at: str
    base_commit: str
    env_fingerprint: JsonObject = field(hash=False)
    runs: int
    failures: int
    mode: str
    failure_signature: str
    evidence_hash: str
    test_source_hash: str
    thaw_runs_required: int
    review_by: date | None = None
    flake_class: FlakeClass | None = None
    class_confidence: float | None = None


@dataclass(frozen=True)
class ThawEvent:
    """A frozen nodeid returns to scoring on new, clean evidence from a stability window.

    Every field is required.
    """

    KIND: ClassVar[EventKind] = "thaw"

    nodeid: str
    owner: str
    note: str
    thawed_at: str
    base_commit: str
    env_fingerprint: JsonObject = field(hash=False)
    runs: int
    failures: int
    mode: str
    evidence_hash: str
    test_source_hash: str


LedgerEvent = Union[FreezeEvent, RenewEvent, ThawEvent]  # noqa: UP007 (runtime alias on 3.10)


@dataclass(frozen=True)
class EventErrors:
    """Why an event could not be built; each message is one line."""

    messages: tuple[str, ...]


@dataclass(frozen=True)
class LedgerProblem:
    """One thing wrong with a ledger, at a line (None: the file as a whole)."""

    path: str
    line: int | None
    message: str
    rule: str = RULE_INVALID
    owner: str | None = None
    nodeid: str | None = None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def valid_date(text: str) -> date | None:
    """The date `text` writes as YYYY-MM-DD, or None."""
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def event_date(event: LedgerEvent) -> date:
    """The day an event happened (its stamp field, which validation has checked)."""
    parsed = valid_date(getattr(event, STAMP_FIELDS[event.KIND])[:10])
    assert parsed is not None  # validated as a date or a date-time
    return parsed


def thaw_runs_required(runs: int, failures: int) -> int:
    """Clean runs needed to thaw: clamp(ceil(ln 0.05 / ln(1 - p)), 20, 100).

    p = (failures + 1) / (runs + 2) is the failure rate estimated from the freeze evidence;
    that many clean runs would happen by chance with probability at most 5 %.
    """
    if runs < 0 or failures < 0 or failures > runs:
        raise ValueError(f"need 0 <= failures <= runs, got runs={runs}, failures={failures}")
    rate = (failures + 1) / (runs + 2)
    needed = math.ceil(math.log(defaults.THAW_CONFIDENCE) / math.log1p(-rate))
    return max(defaults.THAW_RUNS_MIN, min(defaults.THAW_RUNS_MAX, needed))
