"""The freeze ledger is append-only: every base line stays, unchanged and in order."""

from __future__ import annotations

import difflib

from planegate.freeze.events import RULE_REWRITTEN, LedgerProblem
from planegate.freeze.parse import LineError, decode_line, nodeid_of, owner_of, split_lines


def _owner_and_nodeid(raw: str | None) -> tuple[str | None, str | None]:
    decoded = decode_line(raw) if raw is not None else None
    if decoded is None or isinstance(decoded, LineError):
        return None, None
    return owner_of(decoded), nodeid_of(decoded)


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
