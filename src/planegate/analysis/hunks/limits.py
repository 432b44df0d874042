"""How much source the static steps parse: a file too big or too dense is reported, never
parsed (see `planegate.sourcesize` for why and how it is measured)."""

from __future__ import annotations

from planegate import sourcesize
from planegate.findings import Finding, Severity, Step

MAX_FILE_BYTES = sourcesize.MAX_FILE_BYTES
RULE = "PG526"


def oversized(text: str | None, limit: int = MAX_FILE_BYTES) -> bool:
    return sourcesize.refusal(text, limit) is not None


def finding(path: str, text: str, limit: int, owner: str) -> Finding:
    reason = sourcesize.refusal(text, limit) or f"over the analysis limit of {limit:,}"
    return Finding(
        RULE,
        Step.HUNKS,
        Severity.ERROR,
        f"{path}: {reason}: not analysed",
        path=path,
        owner=owner,
    )
