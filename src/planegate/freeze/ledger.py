"""The freeze ledger: append-only JSON-lines events, their fold, and the replay/thaw rules.

Everything here is pure except `check_file` (reads one file) and `env_fingerprint` (reads the
interpreter and installed package versions). docs/ledger.md is the reference for the format.

Errors are values: `parse` never raises; every problem names `path:line`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import platform
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar, Union

from planegate import loading, untrusted
from planegate.findings import Finding, Severity, Step

FLAKE_CLASSES = ("timing", "order", "network", "rng", "env")
EVENT_KINDS = ("freeze", "renew", "thaw")
KIND_KEY = "event"
DEFAULT_MAX_FROZEN_FRACTION = 0.05
THAW_RUNS_MIN = 20
THAW_RUNS_MAX = 100
THAW_CONFIDENCE = 0.05
KEY_PACKAGES = ("pytest", "hypothesis", "pytest-xdist", "pytest-randomly", "numpy")

RULE_INVALID = "PG401"
RULE_REWRITTEN = "PG402"
RULE_REPLAY_DUE = "PG403"
RULE_TOO_MANY_FROZEN = "PG404"

JsonObject = dict[str, Any]


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class FreezeEvent:
    """A nodeid leaves scoring for a dated, classified reason, tied to failing evidence.

    Every field is required except `review_by`.
    """

    KIND: ClassVar[str] = "freeze"

    nodeid: str
    flake_class: str
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

    KIND: ClassVar[str] = "renew"

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
    flake_class: str | None = None
    class_confidence: float | None = None


@dataclass(frozen=True)
class ThawEvent:
    """A frozen nodeid returns to scoring on new, clean evidence from a stability window.

    Every field is required.
    """

    KIND: ClassVar[str] = "thaw"

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


@dataclass(frozen=True)
class LedgerParse:
    """The accepted events (with their line numbers) and every problem, in line order."""

    events: tuple[LedgerEvent, ...]
    lines: tuple[int, ...]
    problems: tuple[LedgerProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def state(self) -> dict[str, FreezeState]:
        return fold(self.events, self.lines)


@dataclass(frozen=True)
class FreezeState:
    """What the fold says about one frozen nodeid."""

    nodeid: str
    flake_class: str
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


@dataclass(frozen=True)
class EventErrors:
    """Why an event could not be built; each message is one line."""

    messages: tuple[str, ...]


# --------------------------------------------------------------------------- sizing


def thaw_runs_required(runs: int, failures: int) -> int:
    """Clean runs needed to thaw: clamp(ceil(ln 0.05 / ln(1 - p)), 20, 100).

    p = (failures + 1) / (runs + 2) is the failure rate estimated from the freeze evidence;
    that many clean runs would happen by chance with probability at most 5 %.
    """
    if runs < 0 or failures < 0 or failures > runs:
        raise ValueError(f"need 0 <= failures <= runs, got runs={runs}, failures={failures}")
    rate = (failures + 1) / (runs + 2)
    needed = math.ceil(math.log(THAW_CONFIDENCE) / math.log1p(-rate))
    return max(THAW_RUNS_MIN, min(THAW_RUNS_MAX, needed))


def frozen_fraction_exceeded(
    frozen_count: int, suite_size: int, max_fraction: float = DEFAULT_MAX_FROZEN_FRACTION
) -> bool:
    """True when more than `max_fraction` of the suite is frozen (exactly at the limit is fine)."""
    if not 0.0 <= max_fraction <= 1.0:
        raise ValueError(f"max_fraction must be between 0 and 1, got {max_fraction}")
    if frozen_count < 0 or suite_size < 0:
        raise ValueError("counts must not be negative")
    return frozen_count > Fraction(repr(max_fraction)) * suite_size


# --------------------------------------------------------------------------- field checks


@dataclass(frozen=True)
class _Bad:
    wanted: str


_Conv = Callable[[object], object]
_HEX64 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))"
)


def _text(value: object) -> object:
    return value if isinstance(value, str) and value.strip() else _Bad("a non-empty string")


def _nodeid(value: object) -> object:
    ok = isinstance(value, str) and "::" in value and value == value.strip()
    return value if ok else _Bad("a pytest nodeid (path::name)")


def _flake_class(value: object) -> object:
    return value if value in FLAKE_CLASSES else _Bad(f"one of {', '.join(FLAKE_CLASSES)}")


def _confidence(value: object) -> object:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return float(value) if ok else _Bad("a number from 0 to 1")  # type: ignore[arg-type]


def _count(value: object) -> object:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else _Bad("a whole number >= 0")


def _hex64(value: object) -> object:
    ok = isinstance(value, str) and _HEX64.fullmatch(value) is not None
    return value if ok else _Bad("a sha256 hex digest (64 lowercase hex digits)")


def _commit(value: object) -> object:
    ok = isinstance(value, str) and _COMMIT.fullmatch(value) is not None
    return value if ok else _Bad("a full commit id (40 or 64 lowercase hex digits)")


def _fingerprint(value: object) -> object:
    ok = isinstance(value, dict) and bool(value)
    return dict(value) if ok else _Bad("a non-empty JSON object")  # type: ignore[call-overload]


def _valid_date(text: str) -> date | None:
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _day(value: object) -> object:
    parsed = _valid_date(value) if isinstance(value, str) else None
    return parsed if parsed is not None else _Bad("a date (YYYY-MM-DD)")


def _optional_day(value: object) -> object:
    return None if value is None else _day(value)


def _timestamp(value: object) -> object:
    """A date, or an RFC 3339 date-time with an offset; kept as written."""
    wanted = _Bad("a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:MM:SSZ)")
    if not isinstance(value, str):
        return wanted
    if _valid_date(value) is not None:
        return value
    match = _DATETIME.fullmatch(value)
    if match is None or _valid_date(match[1]) is None:
        return wanted
    hour, minute, second = int(match[2]), int(match[3]), int(match[4])
    offset_ok = match[7] is None or (int(match[7]) < 24 and int(match[8]) < 60)
    if hour > 23 or minute > 59 or second > 60 or not offset_ok:
        return wanted
    return value


def _optional_class(value: object) -> object:
    return None if value is None else _flake_class(value)


def _optional_confidence(value: object) -> object:
    return None if value is None else _confidence(value)


_EVIDENCE: dict[str, _Conv] = {
    "base_commit": _commit,
    "env_fingerprint": _fingerprint,
    "runs": _count,
    "failures": _count,
    "mode": _text,
    "evidence_hash": _hex64,
    "test_source_hash": _hex64,
}

# kind -> field -> (converter, required)
_SPECS: dict[str, dict[str, tuple[_Conv, bool]]] = {
    "freeze": {
        "nodeid": (_nodeid, True),
        "flake_class": (_flake_class, True),
        "class_confidence": (_confidence, True),
        "owner": (_text, True),
        "note": (_text, True),
        "frozen_at": (_timestamp, True),
        **{name: (conv, True) for name, conv in _EVIDENCE.items()},
        "failure_signature": (_text, True),
        "thaw_runs_required": (_count, True),
        "review_by": (_optional_day, False),
    },
    "renew": {
        "nodeid": (_nodeid, True),
        "owner": (_text, True),
        "note": (_text, True),
        "renewed_at": (_timestamp, True),
        **{name: (conv, True) for name, conv in _EVIDENCE.items()},
        "failure_signature": (_text, True),
        "thaw_runs_required": (_count, True),
        "review_by": (_optional_day, False),
        "flake_class": (_optional_class, False),
        "class_confidence": (_optional_confidence, False),
    },
    "thaw": {
        "nodeid": (_nodeid, True),
        "owner": (_text, True),
        "note": (_text, True),
        "thawed_at": (_timestamp, True),
        **{name: (conv, True) for name, conv in _EVIDENCE.items()},
    },
}
_CLASSES: dict[str, type[FreezeEvent] | type[RenewEvent] | type[ThawEvent]] = {
    "freeze": FreezeEvent,
    "renew": RenewEvent,
    "thaw": ThawEvent,
}


def required_fields(kind: str) -> tuple[str, ...]:
    """The fields an event of `kind` must have (besides `event` itself)."""
    return tuple(name for name, (_, required) in _SPECS[kind].items() if required)


def optional_fields(kind: str) -> tuple[str, ...]:
    return tuple(name for name, (_, required) in _SPECS[kind].items() if not required)


def _show(value: object) -> str:
    text = untrusted.one_line(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return text if len(text) <= 40 else text[:37] + "..."


def _event_date(event: LedgerEvent) -> date:
    stamp = {
        "freeze": getattr(event, "frozen_at", ""),
        "renew": getattr(event, "renewed_at", ""),
        "thaw": getattr(event, "thawed_at", ""),
    }[event.KIND]
    parsed = _valid_date(stamp[:10])
    assert parsed is not None  # validated by _timestamp
    return parsed


def _stamp_field(kind: str) -> str:
    return {"freeze": "frozen_at", "renew": "renewed_at", "thaw": "thawed_at"}[kind]


def _semantic_errors(event: LedgerEvent) -> list[str]:
    """Rules between fields of one event."""
    errors: list[str] = []
    if event.failures > event.runs:
        errors.append(f"failures ({event.failures}) exceed runs ({event.runs})")
    if isinstance(event, ThawEvent):
        if event.failures:
            errors.append(
                f"a thaw needs clean evidence, but failures is {event.failures}; "
                "record a renew instead"
            )
        return errors
    if event.failures == 0:
        errors.append(f"a {event.KIND} needs failing evidence, but failures is 0")
    if event.failures <= event.runs:
        least = thaw_runs_required(event.runs, event.failures)
        if event.thaw_runs_required < least:
            plural = "" if event.failures == 1 else "s"
            errors.append(
                f"thaw_runs_required is {event.thaw_runs_required}, but {event.runs} runs with "
                f"{event.failures} failure{plural} need at least {least}"
            )
    if event.review_by is not None and event.review_by < _event_date(event):
        stamp = _stamp_field(event.KIND)
        errors.append(f"review_by {event.review_by.isoformat()} is before {stamp}")
    if isinstance(event, RenewEvent) and (event.flake_class is None) != (
        event.class_confidence is None
    ):
        errors.append("flake_class and class_confidence come together in a renew, or not at all")
    return errors


def event_from_object(obj: object) -> LedgerEvent | EventErrors:
    """Validate one decoded JSON value as an event (no ledger context)."""
    if not isinstance(obj, dict):
        return EventErrors((f"not a JSON object (got {_json_type(obj)})",))
    kind = obj.get(KIND_KEY)
    if KIND_KEY not in obj:
        return EventErrors((f"missing '{KIND_KEY}' (one of {', '.join(EVENT_KINDS)})",))
    if not isinstance(kind, str) or kind not in _SPECS:
        return EventErrors(
            (f"unknown event {_show(kind)} (expected one of {', '.join(EVENT_KINDS)})",)
        )
    spec = _SPECS[kind]
    errors: list[str] = []
    unknown = sorted(set(obj) - set(spec) - {KIND_KEY})
    errors.extend(f"unknown field '{name}' in a {kind} event" for name in unknown)
    missing = [name for name, (_, required) in spec.items() if required and name not in obj]
    if missing:
        noun = "field" if len(missing) == 1 else "fields"
        errors.append(f"{kind} event is missing required {noun}: {', '.join(missing)}")
    values: dict[str, object] = {}
    for name, (conv, _) in spec.items():
        if name not in obj:
            continue
        converted = conv(obj[name])
        if isinstance(converted, _Bad):
            errors.append(f"field '{name}' must be {converted.wanted}, not {_show(obj[name])}")
        else:
            values[name] = converted
    if errors:
        return EventErrors(tuple(errors))
    event = _CLASSES[kind](**values)  # type: ignore[arg-type]
    semantic = _semantic_errors(event)
    return EventErrors(tuple(semantic)) if semantic else event


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


# --------------------------------------------------------------------------- fold


@dataclass
class _Folder:
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
    folder = _Folder()
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


# --------------------------------------------------------------------------- parse


def split_lines(text: str) -> list[str]:
    """The ledger's lines exactly as written: split on "\\n" only (a JSON string may hold
    U+2028 or a bare "\\r"), without the empty piece after a final newline."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _decode_line(raw: str) -> object:
    """The JSON value on a line, or a `_Message` saying why it is not one."""
    try:
        return loading.json_value(loading.utf8_text(raw, loading.LEDGER_LINE), loading.LEDGER_LINE)
    except loading.Problem as problem:
        if problem.reason.startswith("duplicate key"):
            return _Message(problem.reason)
        column = f" (column {problem.column})" if problem.column else ""
        return _Message(f"not JSON: {problem.reason}{column}")


@dataclass(frozen=True)
class _Message:
    text: str


def _owner_of(obj: object) -> str | None:
    if isinstance(obj, dict):
        owner = obj.get("owner")
        if isinstance(owner, str) and owner.strip():
            return owner
    return None


def _nodeid_of(obj: object) -> str | None:
    if isinstance(obj, dict):
        nodeid = obj.get("nodeid")
        if isinstance(nodeid, str) and nodeid:
            return nodeid
    return None


def parse(text: str, path: str) -> LedgerParse:
    """Every event of a ledger, validated in order against the events before it. Never raises."""
    folder = _Folder()
    events: list[LedgerEvent] = []
    numbers: list[int] = []
    problems: list[LedgerProblem] = []
    for number, raw in enumerate(split_lines(text), start=1):

        def problem(message: str, obj: object = None, number: int = number) -> None:
            nodeid = _nodeid_of(obj)
            known = folder.states.get(nodeid) if nodeid else None
            owner = _owner_of(obj) or (known.owner if known else None)
            problems.append(LedgerProblem(path, number, message, RULE_INVALID, owner, nodeid))

        if not raw.strip():
            problem("blank line (the ledger holds one JSON event per line)")
            continue
        decoded = _decode_line(raw)
        if isinstance(decoded, _Message):
            problem(decoded.text)
            continue
        event = event_from_object(decoded)
        if isinstance(event, EventErrors):
            for message in event.messages:
                problem(message, decoded)
            continue
        rejected = folder.apply(event, number)
        if rejected is not None:
            problem(rejected, decoded)
            continue
        events.append(event)
        numbers.append(number)
    return LedgerParse(tuple(events), tuple(numbers), tuple(problems))


def decode(data: bytes, path: str) -> tuple[str, list[LedgerProblem]]:
    """Ledger bytes as text; bytes that are not UTF-8 are a problem on their line."""
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        problem = LedgerProblem(path, line, "not UTF-8 text")
        return data.decode("utf-8", errors="replace"), [problem]


def future_dated(parsed: LedgerParse, path: str, today: date) -> list[LedgerProblem]:
    """Events dated after `today`: a ledger records what has happened."""
    problems = []
    for event, line in zip(parsed.events, parsed.lines, strict=True):
        when = _event_date(event)
        if when > today:
            stamp = _stamp_field(event.KIND)
            message = f"{stamp} {when.isoformat()} is after today ({today.isoformat()})"
            problems.append(
                LedgerProblem(path, line, message, RULE_INVALID, event.owner, event.nodeid)
            )
    return problems


# --------------------------------------------------------------------------- append-only


def _owner_and_nodeid(raw: str | None) -> tuple[str | None, str | None]:
    decoded = _decode_line(raw) if raw is not None else None
    if decoded is None or isinstance(decoded, _Message):
        return None, None
    return _owner_of(decoded), _nodeid_of(decoded)


def _span(first: int, last: int) -> str:
    return f"base line {first}" if first == last else f"base lines {first}-{last}"


def append_only(base_text: str, head_text: str, path: str = "") -> list[LedgerProblem]:
    """Every base line must appear unchanged, in order, at the start of head.

    An edited line is named by its base line number, one problem each; deleted lines are named
    as a range of base line numbers; lines inserted before the end of the base are named by
    their head line number. Appending at the end is always accepted.
    """
    base, head = split_lines(base_text), split_lines(head_text)
    first_diff = next(
        (i for i, (old, new) in enumerate(zip(base, head, strict=False)) if old != new),
        min(len(base), len(head)),
    )
    if first_diff == len(base):
        return []
    return _rewrites(base, head, first_diff, path)


def _rewrites(base: list[str], head: list[str], start: int, path: str) -> list[LedgerProblem]:
    rest_base, rest_head = base[start:], head[start:]
    matcher = difflib.SequenceMatcher(a=rest_base, b=rest_head, autojunk=False)
    problems: list[LedgerProblem] = []

    def add(line: int, message: str, raw: str | None) -> None:
        owner, nodeid = _owner_and_nodeid(raw)
        problems.append(LedgerProblem(path, line, message, RULE_REWRITTEN, owner, nodeid))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        b1, h1 = start + i1, start + j1
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            add(b1 + k + 1, f"base line {b1 + k + 1} was edited", base[b1 + k])
        if i2 - i1 > paired:
            first, last = b1 + paired + 1, start + i2
            verb = "was" if first == last else "were"
            add(first, f"{_span(first, last)} {verb} deleted", base[first - 1])
        if j2 - j1 > paired and start + i2 < len(base):
            first = h1 + paired + 1
            count = j2 - j1 - paired
            noun = "a line was" if count == 1 else f"{count} lines were"
            add(
                first,
                f"{noun} inserted before base line {start + i2 + 1}; append new events at the end",
                None,
            )
    return problems


# --------------------------------------------------------------------------- the gate's step


def _finding(problem: LedgerProblem, rule: str, default_owner: str) -> Finding:
    return Finding(
        rule=rule,
        step=Step.LEDGER,
        severity=Severity.ERROR,
        message=problem.message,
        path=problem.path,
        line=problem.line,
        owner=problem.owner or default_owner,
        plane="freeze",
        nodeid=problem.nodeid,
    )


def check(
    base_text: str | None,
    head_text: str | None,
    path: str,
    today: date,
    *,
    default_owner: str,
    suite_size: int | None = None,
    max_fraction: float = DEFAULT_MAX_FROZEN_FRACTION,
) -> list[Finding]:
    """The gate's ledger step on the head's ledger against the base's (None: no file).

    PG402 for base lines edited, deleted or pushed down; PG401 for invalid head lines; PG403
    for each replay due; PG404 when `suite_size` is given and too much of it is frozen.
    """
    base, head = base_text or "", head_text or ""
    findings = [_finding(p, RULE_REWRITTEN, default_owner) for p in append_only(base, head, path)]
    parsed = parse(head, path)
    invalid = [*parsed.problems, *future_dated(parsed, path, today)]
    findings += [_finding(p, RULE_INVALID, default_owner) for p in invalid]
    state = parsed.state()
    for due in replays_due(state, today):
        message = (
            f"replay due for '{due.nodeid}': review_by {due.review_by.isoformat()} passed "
            f"{due.days_overdue} day{'s' if due.days_overdue != 1 else ''} ago; "
            "thaw it or renew it with new evidence"
        )
        problem = LedgerProblem(path, due.line, message, RULE_REPLAY_DUE, due.owner, due.nodeid)
        findings.append(_finding(problem, RULE_REPLAY_DUE, default_owner))
    if suite_size is not None and frozen_fraction_exceeded(len(state), suite_size, max_fraction):
        message = (
            f"{len(state)} of {suite_size} tests are frozen, more than "
            f"{_percent(max_fraction)} of the suite"
        )
        problem = LedgerProblem(path, None, message, RULE_TOO_MANY_FROZEN)
        findings.append(_finding(problem, RULE_TOO_MANY_FROZEN, default_owner))
    return sorted(findings, key=Finding.sort_key)


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def check_file(path: Path, today: date) -> list[LedgerProblem]:
    """`planegate ledger check`: every validation problem of one ledger file (exit 65 if any).

    A replay due is not a validation problem; use `replays_due(parse(...).state(), today)`.
    """
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [LedgerProblem(name, None, "no such file")]
    except OSError as error:
        return [LedgerProblem(name, None, f"cannot be read: {error.strerror or error}")]
    text, problems = decode(data, name)
    parsed = parse(text, name)
    return sorted(
        [*problems, *parsed.problems, *future_dated(parsed, name, today)],
        key=lambda p: p.line or 0,
    )


# --------------------------------------------------------------------------- writing


def event_to_object(event: LedgerEvent) -> JsonObject:
    """The event as the JSON object of its ledger line; absent optional fields are omitted."""
    obj: JsonObject = {KIND_KEY: event.KIND}
    for name in _SPECS[event.KIND]:
        value = getattr(event, name)
        if value is None:
            continue
        obj[name] = value.isoformat() if isinstance(value, date) else value
    return obj


def render_event(event: LedgerEvent) -> str:
    """One ledger line (no newline): JSON with sorted keys, UTF-8 kept as is."""
    return json.dumps(event_to_object(event), sort_keys=True, ensure_ascii=False)


def append_event(text: str, event: LedgerEvent, path: str) -> str | list[LedgerProblem]:
    """The ledger text with `event` appended, or the problems the new line would have."""
    prefix = text if not text or text.endswith("\n") else text + "\n"
    new_text = prefix + render_event(event) + "\n"
    line = len(split_lines(new_text))
    mine = [p for p in parse(new_text, path).problems if p.line == line]
    return mine if mine else new_text


def _build(kind: str, obj: JsonObject) -> LedgerEvent | EventErrors:
    return event_from_object({KIND_KEY: kind, **{k: v for k, v in obj.items() if v is not None}})


def new_freeze_event(
    *,
    nodeid: str,
    flake_class: str,
    class_confidence: float,
    owner: str,
    note: str,
    frozen_at: str,
    base_commit: str,
    env_fingerprint: Mapping[str, Any],
    runs: int,
    failures: int,
    mode: str,
    failure_signature: str,
    evidence_hash: str,
    test_source_hash: str,
    review_by: date | None = None,
) -> FreezeEvent | EventErrors:
    """A validated freeze event; thaw_runs_required is computed from runs and failures."""
    if not 0 <= failures <= runs:
        return EventErrors((f"failures ({failures}) must be between 0 and runs ({runs})",))
    built = _build(
        "freeze",
        {
            "nodeid": nodeid,
            "flake_class": flake_class,
            "class_confidence": class_confidence,
            "owner": owner,
            "note": note,
            "frozen_at": frozen_at,
            "base_commit": base_commit,
            "env_fingerprint": dict(env_fingerprint),
            "runs": runs,
            "failures": failures,
            "mode": mode,
            "failure_signature": failure_signature,
            "evidence_hash": evidence_hash,
            "test_source_hash": test_source_hash,
            "thaw_runs_required": thaw_runs_required(runs, failures),
            "review_by": review_by.isoformat() if review_by else None,
        },
    )
    return (
        built if isinstance(built, (FreezeEvent, EventErrors)) else EventErrors(("not a freeze",))
    )


def replay_outcome_event(
    state: FreezeState,
    *,
    at: str,
    owner: str,
    note: str,
    base_commit: str,
    env_fingerprint: Mapping[str, Any],
    runs: int,
    failures: int,
    evidence_hash: str,
    test_source_hash: str,
    failure_signature: str = "",
    review_by: date | None = None,
) -> RenewEvent | ThawEvent | EventErrors:
    """What `planegate thaw` appends after replaying `state` in its mode.

    Any failure gives a renew with the new evidence (its thaw_runs_required recomputed from
    it); all clean with at least `state.thaw_runs_required` runs gives a thaw. Fewer clean
    runs than required is an error: a short window proves nothing.
    """
    common: JsonObject = {
        "nodeid": state.nodeid,
        "owner": owner,
        "note": note,
        "base_commit": base_commit,
        "env_fingerprint": dict(env_fingerprint),
        "runs": runs,
        "failures": failures,
        "mode": state.mode,
        "evidence_hash": evidence_hash,
        "test_source_hash": test_source_hash,
    }
    if not 0 <= failures <= runs:
        return EventErrors((f"failures ({failures}) must be between 0 and runs ({runs})",))
    if failures:
        built = _build(
            "renew",
            {
                **common,
                "renewed_at": at,
                "failure_signature": failure_signature or None,
                "thaw_runs_required": thaw_runs_required(runs, failures),
                "review_by": review_by.isoformat() if review_by else None,
            },
        )
    elif runs < state.thaw_runs_required:
        return EventErrors(
            (f"{runs} clean runs is fewer than the {state.thaw_runs_required} a thaw needs",)
        )
    else:
        built = _build("thaw", {**common, "thawed_at": at})
    if isinstance(built, FreezeEvent):
        return EventErrors(("not a replay outcome",))
    return built


def evidence_hash(bundle_bytes: bytes) -> str:
    """The sha256 of an evidence bundle's bytes, as the ledger records it."""
    return hashlib.sha256(bundle_bytes).hexdigest()


def env_fingerprint(packages: Sequence[str] = KEY_PACKAGES) -> JsonObject:
    """Where evidence was measured: Python, platform, CPU count, installed key package versions."""
    versions: dict[str, str] = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count() or 0,
        "packages": dict(sorted(versions.items())),
    }


def frozen_nodeids(text: str | None, path: str) -> dict[str, str]:
    """nodeid -> owner of every nodeid frozen after the fold (invalid lines change nothing)."""
    if not text:
        return {}
    return {nodeid: state.owner for nodeid, state in parse(text, path).state().items()}
