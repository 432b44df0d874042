"""The result stream as the parent reads it: folded as it arrives, closed at its first `end`.

One stream per run: a second `start`, a second `collected` or `selected`, a second report of
one test's phase, or any record after `end` is tampering (a forged stream written beside, or
after, the real one); a subtest's reports, tagged with its label, are kept apart from its
test's phases (runner/subtests.py folds them in). Tamper records the child's audit hook and
integrity checks sent are kept as they came, whatever follows them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from planegate.runner.child.extras import EXTRA_KINDS
from planegate.runner.traced import Launch

Paths = tuple[str, ...]
Traced = tuple[Paths, Paths, tuple[Launch, ...], dict[str, Paths]]

MAX_TAMPER = 100


@dataclass(frozen=True)
class Outcome:
    nodeid: str
    outcome: str  # passed failed error skipped xfailed xpassed missing deselected
    message: str = ""
    duration: float = 0.0

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


@dataclass(frozen=True)
class Tamper:
    """One sign that the run was tampered with; `path` is relative to the tree when known."""

    event: str
    path: str = ""
    line: int = 0


class Fold:
    """Memory grows with tests, not with records."""

    def __init__(self, nonce: str, extra_kinds: frozenset[str] = EXTRA_KINDS) -> None:
        self.nonce = nonce
        self.extra_kinds = extra_kinds  # records kept whole in `extra`, one of each per run
        self.collected: list[str] = []
        self.selected: list[str] = []
        self.phases: dict[str, dict[str, dict[str, Any]]] = {}
        self.errors: list[tuple[str, str]] = []
        self.examples: dict[str, int] = {}
        self.subtests: dict[str, list[dict[str, Any]]] = {}  # failed or skipped subtests
        # child/reads.py, child/launches.py: key -> test side's reads, production's, what
        # production started, production reads' callers
        self.reads: dict[str, Traced] = {}
        self.ended = self.seen_selected = self.seen_collected = False
        self.exitstatus: int | None = None  # pytest's, as the closing record gives it
        self.cpu = 0.0  # the child's CPU seconds (and its children's), as that record gives them
        self.stray = self.starts = self.after_end = 0
        self.tamper: list[Tamper] = []
        self.extra: dict[str, dict[str, Any]] = {}

    def feed(self, line: str) -> None:
        record = parse(line, self.nonce)
        if record is None:
            self.stray += 1
        elif self.ended:
            self.after_end += 1
        else:
            self._apply(record)

    def _apply(self, record: dict[str, Any]) -> None:
        kind = record.get("kind")
        if kind == "tamper":
            event = str(record.get("event", ""))
            self._tamper(Tamper(event, str(record.get("path", "")), int(record.get("line", 0))))
        elif kind == "start":
            self.starts += 1
            if self.starts > 1:
                self._tamper(Tamper("a second result stream started in the same run"))
        elif kind == "collected":
            self._once("collected")
            self.collected = list(record["nodeids"])
        elif kind == "selected":
            self._once("selected")
            self.selected, self.seen_selected = list(record["nodeids"]), True
        elif kind == "report":
            self._report(record)
        elif kind == "end":
            self.ended = True
            status, cpu = record.get("exitstatus"), record.get("cpu")
            self.exitstatus = status if type(status) is int else None
            self.cpu = float(cpu) if isinstance(cpu, int | float) else 0.0
        else:
            self._data(kind, record)

    def _data(self, kind: object, record: dict[str, Any]) -> None:
        """Records that only add what they carry."""
        if kind == "collect_error":
            self.errors.append((str(record["nodeid"]), str(record["message"])))
        elif kind == "reads":
            self._reads(record)
        elif kind == "hypothesis":
            self.examples[str(record["nodeid"])] = int(record["max_examples"])
        elif kind in self.extra_kinds:
            self._extra(str(kind), record)

    def _once(self, kind: str) -> None:
        seen = self.seen_collected if kind == "collected" else self.seen_selected
        if seen:
            self._tamper(Tamper(f"the stream sent its {kind} tests twice"))
        if kind == "collected":
            self.seen_collected = True

    def _extra(self, kind: str, record: dict[str, Any]) -> None:
        if kind in self.extra:
            self._tamper(Tamper(f"the stream sent its {kind} record twice"))
            return  # the first record stands
        self.extra[kind] = {k: v for k, v in record.items() if k not in ("nonce", "kind")}

    def _report(self, record: dict[str, Any]) -> None:
        nodeid, when = str(record["nodeid"]), str(record["when"])
        if record.get("subtest") is not None:
            if record["outcome"] != "passed":
                self.subtests.setdefault(nodeid, []).append(_slim(record))
            return
        phases = self.phases.setdefault(nodeid, {})
        if when in phases:
            self._tamper(Tamper(f"a second {when} report for {nodeid}"))
            return  # the first report stands
        phases[when] = _slim(record)

    def _reads(self, record: dict[str, Any]) -> None:
        """What one test (or one module outside any test) read, by side, and what its
        production code started; a key sent twice keeps both."""
        test, prod = _paths(record["test"]), _paths(record["prod"])
        launches = _launches(record.get("procs", []))
        via = _via(record.get("via"))
        before = self.reads.get(str(record["nodeid"]))
        if before is not None:
            test, prod = tuple(sorted({*before[0], *test})), tuple(sorted({*before[1], *prod}))
            launches = tuple(dict.fromkeys((*before[2], *launches)))
            via = {
                path: tuple(sorted({*before[3].get(path, ()), *via.get(path, ())}))
                for path in {*before[3], *via}
            }
        self.reads[str(record["nodeid"])] = (test, prod, launches, via)

    def _tamper(self, tamper: Tamper) -> None:
        if len(self.tamper) < MAX_TAMPER and tamper not in self.tamper:
            self.tamper.append(tamper)

    def tampering(self) -> tuple[Tamper, ...]:
        found = list(self.tamper)
        if self.after_end:
            found.append(Tamper(f"{self.after_end} records after the stream's closing record"))
        return tuple(found)


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    """Only what `outcome_of` reads: 50,000 tests stay well inside the memory budget."""
    slim: dict[str, Any] = {
        "when": sys.intern(str(record["when"])),
        "outcome": sys.intern(str(record["outcome"])),
        "duration": record.get("duration", 0.0),
    }
    if record.get("wasxfail"):
        slim["wasxfail"] = True
    if record.get("message"):
        slim["message"] = record["message"]
    if record.get("subtest") is not None:
        slim["subtest"] = str(record["subtest"])
    return slim


def _launches(value: object) -> tuple[Launch, ...]:
    """[event, program or symbol, path, line, shown, callers] lists (child/launches.py)."""
    if not isinstance(value, list):
        raise TypeError("expected a list of process starts")
    found = []
    for item in value:
        if not isinstance(item, list) or len(item) != 6:
            raise TypeError("expected [event, name, path, line, shown, callers]")
        event, name, path, line, shown, callers = item
        launch = Launch(str(event), str(name), str(path), int(line), str(shown), _paths(callers))
        found.append(launch)
    return tuple(found)


def _paths(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list of paths")
    return tuple(str(path) for path in value)


def _via(value: object) -> dict[str, Paths]:
    """A production read's callers by path (none from an older child)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError("expected an object of paths")
    return {str(path): _paths(readers) for path, readers in value.items()}


def parse(line: str, nonce: str | None) -> dict[str, Any] | None:
    """A record of this run, or None; `nonce=None` skips the tag check (progress only)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, a huge number, nested too deeply
        return None
    if not isinstance(record, dict) or (nonce is not None and record.get("nonce") != nonce):
        return None
    return record


def outcome_of(nodeid: str, by_when: Mapping[str, Mapping[str, Any]]) -> Outcome:
    duration = sum(float(r.get("duration", 0.0)) for r in by_when.values())
    failed = [r for r in by_when.values() if r["outcome"] == "failed"]
    if failed:
        first = failed[0]
        kind = "failed" if first["when"] == "call" else "error"
        if first["when"] == "call" and first.get("wasxfail"):
            kind = "xpassed"  # a strict xfail that passed
        return Outcome(nodeid, kind, str(first.get("message", "")), duration)
    skipped = next((r for r in by_when.values() if r["outcome"] == "skipped"), None)
    if skipped is not None:
        kind = "xfailed" if skipped.get("wasxfail") else "skipped"
        return Outcome(nodeid, kind, str(skipped.get("message", "")), duration)
    call = by_when.get("call")
    if call is None or "teardown" not in by_when:
        return Outcome(nodeid, "missing", "", duration)
    return Outcome(nodeid, "xpassed" if call.get("wasxfail") else "passed", "", duration)


PAUSE = 0.02  # seconds the reader rests after a read that found little
_CHUNK, _SHORT = 1 << 20, 1 << 18


def lines_of(fd: int, pause: float = PAUSE) -> Iterator[bytes]:
    """The lines a pipe carries (without their newline), read in chunks until its writers
    close it. After a read that found little the reader rests a moment: a reader blocked on
    an empty pipe is woken by every write (the child writes once a test), and each wake-up
    costs both processes a switch of CPU. The pipe holds what is written meanwhile (1 MiB
    where Linux allows it: `session._widen`); a writer that fills it waits one pause at most."""
    pending = b""
    while chunk := os.read(fd, _CHUNK):
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines
        if len(chunk) < _SHORT:
            time.sleep(pause)
    if pending:
        yield pending
