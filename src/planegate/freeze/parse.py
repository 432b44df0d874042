"""Reading a freeze ledger: its lines, each validated in order against the events before it.

Errors are values: `parse` never raises; every problem names `path:line`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from planegate import loading
from planegate.freeze.events import (
    RULE_INVALID,
    STAMP_FIELDS,
    EventErrors,
    LedgerEvent,
    LedgerProblem,
    event_date,
)
from planegate.freeze.fold import Folder, FreezeState, fold
from planegate.freeze.validate import event_from_object


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


def split_lines(text: str) -> list[str]:
    """The ledger's lines exactly as written: split on "\\n" only (a JSON string may hold
    U+2028 or a bare "\\r"), without the empty piece after a final newline."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def decode_line(raw: str) -> object:
    """The JSON value on a line, or a `LineError` saying why it is not one."""
    try:
        return loading.json_value(loading.utf8_text(raw, loading.LEDGER_LINE), loading.LEDGER_LINE)
    except loading.Problem as problem:
        if problem.reason.startswith("duplicate key"):
            return LineError(problem.reason)
        column = f" (column {problem.column})" if problem.column else ""
        return LineError(f"not JSON: {problem.reason}{column}")


@dataclass(frozen=True)
class LineError:
    text: str


def owner_of(obj: object) -> str | None:
    if isinstance(obj, dict):
        owner = obj.get("owner")
        if isinstance(owner, str) and owner.strip():
            return owner
    return None


def nodeid_of(obj: object) -> str | None:
    if isinstance(obj, dict):
        nodeid = obj.get("nodeid")
        if isinstance(nodeid, str) and nodeid:
            return nodeid
    return None


def parse(text: str, path: str) -> LedgerParse:
    """Every event of a ledger, validated in order against the events before it. Never raises."""
    folder = Folder()
    events: list[LedgerEvent] = []
    numbers: list[int] = []
    problems: list[LedgerProblem] = []
    for number, raw in enumerate(split_lines(text), start=1):

        def problem(message: str, obj: object = None, number: int = number) -> None:
            nodeid = nodeid_of(obj)
            known = folder.states.get(nodeid) if nodeid else None
            owner = owner_of(obj) or (known.owner if known else None)
            problems.append(LedgerProblem(path, number, message, RULE_INVALID, owner, nodeid))

        if not raw.strip():
            problem("blank line (the ledger holds one JSON event per line)")
            continue
        decoded = decode_line(raw)
        if isinstance(decoded, LineError):
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
        when = event_date(event)
        if when > today:
            stamp = STAMP_FIELDS[event.KIND]
            message = f"{stamp} {when.isoformat()} is after today ({today.isoformat()})"
            problems.append(
                LedgerProblem(path, line, message, RULE_INVALID, event.owner, event.nodeid)
            )
    return problems
