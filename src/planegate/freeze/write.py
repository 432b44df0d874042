"""Writing the freeze ledger: new events, their lines, and the evidence they record.

`env_fingerprint` reads the interpreter and installed package versions; the rest is pure.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Mapping, Sequence
from datetime import date
from importlib import metadata
from typing import Any

from planegate.freeze.events import (
    KIND_KEY,
    EventErrors,
    FreezeEvent,
    JsonObject,
    LedgerEvent,
    LedgerProblem,
    RenewEvent,
    ThawEvent,
    thaw_runs_required,
)
from planegate.freeze.fold import FreezeState
from planegate.freeze.parse import parse, split_lines
from planegate.freeze.validate import event_from_object, field_names

# The packages whose versions an environment fingerprint records.
KEY_PACKAGES = ("pytest", "hypothesis", "pytest-xdist", "pytest-randomly", "numpy")


def event_to_object(event: LedgerEvent) -> JsonObject:
    """The event as the JSON object of its ledger line; absent optional fields are omitted."""
    obj: JsonObject = {KIND_KEY: event.KIND}
    for name in field_names(event.KIND):
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


def new_freeze_event(  # noqa: PLR0913 - keyword-only fields of one event
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


def replay_outcome_event(  # noqa: PLR0913 - keyword-only fields of one event
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
