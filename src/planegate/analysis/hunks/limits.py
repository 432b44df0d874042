"""How much source the static steps parse: a file over the limit is reported, never parsed.

`ast.parse` holds about 500 bytes of memory per byte of dense source (a 5 MiB one-line list
took 2.4 GB and a minute), so the production-code scan and the test-hunk analysis refuse a file
over `analysis.max_file_bytes` (planegate.yml) with PG526 instead of reading it whole.
"""

from __future__ import annotations

from planegate.findings import Finding, Severity, Step

MAX_FILE_BYTES = 1024 * 1024
RULE = "PG526"


def size_of(text: str) -> int:
    """UTF-8 bytes of `text`, counted without encoding it when every character is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def oversized(text: str | None, limit: int = MAX_FILE_BYTES) -> bool:
    return text is not None and len(text) > limit // 4 and size_of(text) > limit


def finding(path: str, text: str, limit: int, owner: str) -> Finding:
    return Finding(
        RULE,
        Step.HUNKS,
        Severity.ERROR,
        f"{path}: {size_of(text):,} bytes, over the analysis limit of {limit:,} "
        "(analysis.max_file_bytes): not analysed",
        path=path,
        owner=owner,
    )
