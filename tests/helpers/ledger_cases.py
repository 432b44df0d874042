"""Builders and strategies shared by the ledger tests."""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta
from typing import Any

from hypothesis import strategies as st

from planegate.freeze.events import (
    EventErrors,
    FreezeEvent,
    LedgerEvent,
    RenewEvent,
    ThawEvent,
    thaw_runs_required,
)
from planegate.freeze.parse import parse
from planegate.freeze.write import new_freeze_event, render_event
from planegate.vocabulary import FLAKE_CLASSES

PATH = "freeze_ledger.jsonl"


NODE = "tests/test_io.py::test_fetch"


OTHER = "tests/test_io.py::test_store"


COMMIT = "0123456789abcdef0123456789abcdef01234567"


FINGERPRINT = {"python": "3.11.7", "platform": "Linux", "cpu_count": 4, "packages": {}}


def digest(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def freeze_obj(**overrides: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "event": "freeze",
        "nodeid": NODE,
        "flake_class": "network",
        "class_confidence": 0.8,
        "owner": "@io-team",
        "note": "fails when the socket is blocked",
        "frozen_at": "2024-05-01",
        "base_commit": COMMIT,
        "env_fingerprint": FINGERPRINT,
        "runs": 3,
        "failures": 1,
        "mode": "shuffle",
        "failure_signature": "ConnectionRefusedError",
        "evidence_hash": digest("freeze"),
        "test_source_hash": digest("source"),
        "thaw_runs_required": 20,
        "review_by": "2024-06-01",
    }
    obj.update(overrides)
    return {key: value for key, value in obj.items() if value is not None}


def renew_obj(**overrides: Any) -> dict[str, Any]:
    obj = freeze_obj(event="renew", renewed_at="2024-06-02", evidence_hash=digest("renew"))
    for name in ("flake_class", "class_confidence", "frozen_at", "review_by"):
        del obj[name]
    obj.update(overrides)
    return {key: value for key, value in obj.items() if value is not None}


def thaw_obj(**overrides: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "event": "thaw",
        "nodeid": NODE,
        "owner": "@io-team",
        "note": "20 clean runs in shuffle mode",
        "thawed_at": "2024-06-03",
        "base_commit": COMMIT,
        "env_fingerprint": FINGERPRINT,
        "runs": 20,
        "failures": 0,
        "mode": "shuffle",
        "evidence_hash": digest("thaw"),
        "test_source_hash": digest("source"),
    }
    obj.update(overrides)
    return {key: value for key, value in obj.items() if value is not None}


def text_of(*objs: object) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objs)


def as_text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def messages(text: str) -> list[str]:
    return [str(problem) for problem in parse(text, PATH).problems]


NODEIDS = [f"tests/test_pool.py::test_{i}" for i in range(4)]


HASHES = [digest(f"evidence-{i}") for i in range(6)]


NOTE = st.text('ab z"\\\u00e9\u2028\t', min_size=1, max_size=20).filter(str.strip)


DAYS = st.dates(min_value=date(2024, 1, 1), max_value=date(2024, 12, 31))


@st.composite
def failing_evidence(draw: st.DrawFn) -> dict[str, Any]:
    runs = draw(st.integers(min_value=1, max_value=60))
    failures = draw(st.integers(min_value=1, max_value=runs))
    required = thaw_runs_required(runs, failures) + draw(st.integers(0, 5))
    day = draw(DAYS)
    review = draw(st.none() | st.integers(0, 90).map(lambda n: day + timedelta(days=n)))
    return {
        "nodeid": draw(st.sampled_from(NODEIDS)),
        "owner": draw(st.sampled_from(["@a", "@b", "team-c"])),
        "note": draw(NOTE),
        "base_commit": COMMIT,
        "env_fingerprint": {"python": "3.10", "cpu_count": draw(st.integers(1, 64))},
        "runs": runs,
        "failures": failures,
        "mode": draw(st.sampled_from(["scoring", "shuffle", "xdist"])),
        "failure_signature": draw(NOTE),
        "evidence_hash": draw(st.sampled_from(HASHES)),
        "test_source_hash": digest("src"),
        "thaw_runs_required": required,
        "review_by": review,
        "day": day,
    }


@st.composite
def freeze_events(draw: st.DrawFn) -> FreezeEvent:
    fields = draw(failing_evidence())
    day = fields.pop("day")
    return FreezeEvent(
        flake_class=draw(st.sampled_from(FLAKE_CLASSES)),
        class_confidence=draw(st.floats(0, 1)),
        frozen_at=day.isoformat(),
        **fields,
    )


@st.composite
def renew_events(draw: st.DrawFn) -> RenewEvent:
    fields = draw(failing_evidence())
    day = fields.pop("day")
    reclassify = draw(st.booleans())
    return RenewEvent(
        renewed_at=day.isoformat() + "T12:30:00Z",
        flake_class=draw(st.sampled_from(FLAKE_CLASSES)) if reclassify else None,
        class_confidence=draw(st.floats(0, 1)) if reclassify else None,
        **fields,
    )


@st.composite
def thaw_events(draw: st.DrawFn) -> ThawEvent:
    return ThawEvent(
        nodeid=draw(st.sampled_from(NODEIDS)),
        owner="@a",
        note="clean",
        thawed_at=draw(DAYS).isoformat(),
        base_commit=COMMIT,
        env_fingerprint={"python": "3.12"},
        runs=draw(st.integers(0, 120)),
        failures=0,
        mode="shuffle",
        evidence_hash=draw(st.sampled_from(HASHES)),
        test_source_hash=digest("src"),
    )


EVENTS = st.lists(st.one_of(freeze_events(), renew_events(), thaw_events()), max_size=25)


def render_all(events: list[LedgerEvent]) -> str:
    return "".join(render_event(event) + "\n" for event in events)


TARGET = "tests/test_target.py::test_flaky"


LINE_TEXT = st.text('ab{}"\r \u00e9', max_size=12)


UNIQUE = st.lists(st.text("abcdef", min_size=1, max_size=6), min_size=1, max_size=30, unique=True)


def new_freeze(**overrides: Any) -> FreezeEvent | EventErrors:
    fields: dict[str, Any] = {
        "nodeid": NODE,
        "flake_class": "order",
        "class_confidence": 0.9,
        "owner": "@io-team",
        "note": "fails after test_store",
        "frozen_at": "2024-05-01T09:00:00Z",
        "base_commit": COMMIT,
        "env_fingerprint": FINGERPRINT,
        "runs": 10,
        "failures": 0 + 2,
        "mode": "shuffle",
        "failure_signature": "AssertionError: stale cache",
        "evidence_hash": digest("bundle"),
        "test_source_hash": digest("source"),
        "review_by": date(2024, 8, 1),
    }
    fields.update(overrides)
    return new_freeze_event(**fields)
