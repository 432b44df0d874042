"""Evidence bundles and ledger events on disk: what a sweep, a freeze and a thaw leave behind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from planegate import loading
from planegate.config.planemap import file_of
from planegate.errors import InputDataError
from planegate.freeze import ledger
from planegate.freeze import sweep as core
from planegate.repo.git import GitRepo

EVIDENCE_DIR = ".planegate/evidence"

PROPOSALS_FILE = ".planegate/proposals.jsonl"


def now_stamp() -> str:
    """Local time with its offset (RFC 3339): its date is today's date where it runs."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def write_bundle(root: Path, obj: Mapping[str, Any]) -> tuple[Path, str]:
    data = core.bundle_bytes(obj)
    digest = ledger.evidence_hash(data)
    target = root / EVIDENCE_DIR / f"{digest}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target, digest


def test_source_hash(repo: GitRepo, commit: str, nodeid: str) -> str:
    """The sha256 of the test's file at the commit (of its path if the file is gone)."""
    path = file_of(nodeid)
    return repo.sha256(commit, path) or ledger.evidence_hash(path.encode())


test_source_hash.__test__ = False  # type: ignore[attr-defined]


def read_bundle(path: Path) -> tuple[dict[str, Any], str]:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputDataError(f"{path}: cannot read the evidence: {error.strerror}") from None
    try:
        obj = loading.json_value(loading.utf8_text(data, loading.DIGEST), loading.DIGEST)
    except loading.Problem as problem:
        where = f":{problem.line}" if problem.line else ""
        message = f"{path}{where}: not an evidence bundle (not JSON: {problem.reason})"
        raise InputDataError(message) from None
    if not isinstance(obj, dict) or obj.get("format") != core.BUNDLE_FORMAT:
        raise InputDataError(f"{path}: not an evidence bundle (format {core.BUNDLE_FORMAT})")
    return obj, ledger.evidence_hash(data)


@dataclass(frozen=True)
class FreezeRequest:
    """Who freezes and why; `flake_class` and `confidence` override the bundle's proposal."""

    owner: str
    note: str
    review_by: date | None = None
    flake_class: str | None = None
    confidence: float | None = None


def freeze_event(
    obj: Mapping[str, Any], digest: str, request: FreezeRequest
) -> ledger.FreezeEvent | ledger.EventErrors:
    """A freeze event from an evidence bundle (its summary), a person's class overriding."""
    summary = obj.get("summary", {})
    proposed = summary.get("flake_class")
    chosen = request.flake_class or proposed
    confidence = request.confidence
    if confidence is None:
        confidence = float(summary.get("class_confidence", 0.5)) if chosen == proposed else 0.5
    try:
        return ledger.new_freeze_event(
            nodeid=str(obj["nodeid"]),
            flake_class=str(chosen),
            class_confidence=confidence,
            owner=request.owner,
            note=request.note,
            frozen_at=now_stamp(),
            base_commit=str(summary["base_commit"]),
            env_fingerprint=obj["env_fingerprint"],
            runs=int(summary["runs"]),
            failures=int(summary["failures"]),
            mode=str(summary["mode"]),
            failure_signature=str(summary["failure_signature"]),
            evidence_hash=digest,
            test_source_hash=str(summary["test_source_hash"]),
            review_by=request.review_by,
        )
    except (KeyError, TypeError, ValueError) as error:
        return ledger.EventErrors((f"the evidence bundle lacks {error}",))


def append_events(path: Path, events: Sequence[ledger.LedgerEvent], name: str) -> None:
    """Append events to a ledger file, each validated against the lines before it."""
    text = path.read_text("utf-8") if path.is_file() else ""
    for event in events:
        appended = ledger.append_event(text, event, name)
        if isinstance(appended, list):
            reasons = "; ".join(problem.message for problem in appended)
            raise InputDataError(
                f"{name}: cannot append the {event.KIND} of {event.nodeid}: {reasons}"
            )
        text = appended
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
