"""Processes production code started and foreign functions it loaded while the scoring tests
ran (`runner/child/launches.py`), weighed against main's run.

A program the production code starts, or a C function it calls, can read a golden file or a
test file where no `open` event shows it (PG562 sees only opens of the interpreter). So each
start is judged by the line that made it:
- PG563 (a process: `subprocess`, `os.exec*`, `os.posix_spawn`, `os.system`, `os.fork`) and
  PG564 (a foreign function: `ctypes.dlopen`, `ctypes.dlsym`, a call by address) are **errors**
  when that line is the patch's (added or changed, or in a file the base does not have), or
  when no frame of the tree started it and main's run shows no such start;
- **warnings** for the plane's owner when the line is main's own, unchanged, but main's run
  did not show that start there (the patch changed what reaches it, or main was not looked at);
- quiet when main's run shows the same start (event, program or symbol) from the same line
  (mapped to its number on the base): a note counts them.

Pure: the head's starts come with the traced run's reads, main's with `MainsSigns`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planegate import untrusted
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.runner.traced import Launch, Reads
from planegate.signs.compare import MainsSigns
from planegate.signs.lines import MainsLines

PROCESS, FOREIGN = "PG563", "PG564"
PATCH, CHANGED, MAIN = "patch", "changed", "main"
SHOWN_KEYS = 2
WHY = {
    PROCESS: "a process reads files no audit event of the run shows (goldens, test files)",
    FOREIGN: "a C function reads files no audit event of the run shows (goldens, test files)",
}


@dataclass(frozen=True)
class Started:
    """One start or load, and the keys (tests, or modules outside any test) it came under."""

    launch: Launch
    keys: tuple[str, ...]

    @property
    def rule(self) -> str:
        return FOREIGN if self.launch.event.startswith("ctypes.") else PROCESS


def started(reads: Mapping[str, Reads]) -> list[Started]:
    """Each distinct start of the run once, with every key it came under."""
    found: dict[tuple[object, ...], tuple[Launch, list[str]]] = {}
    for key, r in sorted(reads.items()):
        for launch in r.launches:
            found.setdefault((*launch.sign, launch.callers), (launch, []))[1].append(key)
    return [Started(launch, tuple(keys)) for launch, keys in found.values()]


def verdict(launch: Launch, lines: MainsLines, signs: MainsSigns) -> str:
    """PATCH (the starting line, or a production line that called it, is the patch's),
    CHANGED (main's line, a start main's run did not show) or MAIN."""
    if patch_caller(launch, lines) is not None:
        return PATCH
    mains = {m.sign for m in signs.launches} if signs.traced else set()
    if not launch.path:
        return MAIN if launch.sign in mains else PATCH
    line = lines.base_line(launch.path, launch.line)
    if line is None:
        return PATCH
    return MAIN if (launch.event, launch.name, launch.path, line) in mains else CHANGED


def patch_caller(launch: Launch, lines: MainsLines) -> str | None:
    """The first production caller ("path:line") on a line of the patch, if any."""
    for caller in launch.callers:
        path, _, line = caller.rpartition(":")
        if not line.isdigit() or lines.base_line(path, int(line)) is None:
            return caller
    return None


def to_compare(reads: Mapping[str, Reads], lines: MainsLines) -> tuple[str, ...] | None:
    """The tests to run on the base so that it can show the head's starts that could be
    main's (main's line, or no frame of the tree); None when there is none. Starts outside any
    test come with the base session's collection."""
    keys: set[str] = set()
    comparable = False
    for s in started(reads):
        launch = s.launch
        if not launch.path or lines.base_line(launch.path, launch.line) is not None:
            comparable = True
            keys.update(key for key in s.keys if "::" in key)
    return tuple(sorted(keys)) if comparable else None


def findings(ctx: GitFacts, reads: Mapping[str, Reads], signs: MainsSigns) -> list[Finding]:
    """PG563 and PG564, errors or warnings; main's own starts give none (see `notes`)."""
    lines = MainsLines(ctx.base.text, ctx.head.text)
    found = []
    for s in started(reads):
        judged = verdict(s.launch, lines, signs)
        if judged != MAIN:
            found.append(_finding(ctx, s, judged))
    return found


def notes(ctx: GitFacts, reads: Mapping[str, Reads], signs: MainsSigns) -> tuple[str, ...]:
    lines = MainsLines(ctx.base.text, ctx.head.text)
    mains = sum(verdict(s.launch, lines, signs) == MAIN for s in started(reads))
    return (f"{mains} process starts or foreign-function loads as on main",) if mains else ()


def _finding(ctx: GitFacts, s: Started, judged: str) -> Finding:
    launch = s.launch
    nodeid = next((key for key in s.keys if "::" in key), None)
    where = f" at {launch.path}:{launch.line}" if launch.path else " with no frame of the tree"
    under = ", ".join(s.keys[:SHOWN_KEYS]) + (
        f" and {len(s.keys) - SHOWN_KEYS} more" if len(s.keys) > SHOWN_KEYS else ""
    )
    what = "starts a process" if s.rule == PROCESS else "loads a foreign function"
    head = f"production code {what}: {_described(launch)}{where} (under {under})"
    caller = None
    if judged == PATCH:
        severity, owner = Severity.ERROR, ctx.author
        caller = patch_caller(launch, MainsLines(ctx.base.text, ctx.head.text))
        if caller is not None:
            why = f"called from {caller}, a line of the patch: {WHY[s.rule]}"
        elif launch.path:
            why = f"a line of the patch; main's run starts none there: {WHY[s.rule]}"
        else:
            why = f"main's run shows none: {WHY[s.rule]}"
    else:
        plane = ctx.plane_map.plane_of(nodeid) if nodeid else None
        severity, owner = Severity.WARNING, ctx.who.of_plane(plane, launch.path)
        why = "main's own line, but main's run does not show this start there (the patch "
        why += "changed what reaches it, or main's run was not looked at): review it"
    path, line = launch.path, launch.line
    if judged == PATCH and caller is not None:  # the patch's line is where a reviewer looks
        path, _, number = caller.rpartition(":")
        line = int(number) if number.isdigit() else 0
    return Finding(
        s.rule,
        Step.HUNKS,
        severity,
        untrusted.one_line(f"{head}; {why}"),
        path=path or None,
        line=line or None,
        owner=owner,
        nodeid=nodeid,
    )


def _described(launch: Launch) -> str:
    if launch.event == "more":
        return launch.shown
    if launch.event.startswith("ctypes."):
        return f"{launch.event} of {launch.name}"
    return f"{launch.event} ({launch.shown})"
