"""Validating one freeze ledger event: each field's type, then the rules between fields.

Errors are values: `event_from_object` never raises; each message is one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from planegate import untrusted
from planegate.freeze.events import (
    EVENT_KINDS,
    KIND_KEY,
    STAMP_FIELDS,
    EventErrors,
    FreezeEvent,
    LedgerEvent,
    RenewEvent,
    ThawEvent,
    event_date,
    thaw_runs_required,
    valid_date,
)
from planegate.vocabulary import FLAKE_CLASSES


@dataclass(frozen=True)
class _Bad:
    wanted: str


_Conv = Callable[[object], object]
_HEX64 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
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


def _day(value: object) -> object:
    parsed = valid_date(value) if isinstance(value, str) else None
    return parsed if parsed is not None else _Bad("a date (YYYY-MM-DD)")


def _optional_day(value: object) -> object:
    return None if value is None else _day(value)


def _timestamp(value: object) -> object:
    """A date, or an RFC 3339 date-time with an offset; kept as written."""
    wanted = _Bad("a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:MM:SSZ)")
    if not isinstance(value, str):
        return wanted
    if valid_date(value) is not None:
        return value
    match = _DATETIME.fullmatch(value)
    if match is None or valid_date(match[1]) is None:
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


def field_names(kind: str) -> tuple[str, ...]:
    """Every field of an event of `kind`, in the order the format lists them."""
    return tuple(_SPECS[kind])


def _show(value: object) -> str:
    text = untrusted.one_line(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return text if len(text) <= 40 else text[:37] + "..."


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
    if event.review_by is not None and event.review_by < event_date(event):
        stamp = STAMP_FIELDS[event.KIND]
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
