"""PG565: a locked file opened where the audit hook cannot see, weighed against main's run.

In a traced run the kernel counts the opens of the tree's locked files (main's test files
and evidence; runner/inotify.py) and the child's audit hook counts those it saw, from any
frame (runner/child/reads.py). An open the kernel counted and the hook did not was made by a
process the test session started (`cat`, `sh -c`, a Python child, a start no audit event
shows) or by C code: what it read no `open` event of the run shows (PG562 cannot see it).
- an **error** when main's run in the digest shows fewer such opens of that file (none,
  usually);
- a **warning** for the file's plane owner when main's side is not known (no digest with the
  counts), and when the counts themselves are unknown (the kernel's event queue overflowed,
  or a folder could not be watched);
- quiet when main's run shows as many (main's own tests run a program on that file).

Pure: the head's counts come with its `RunResult`, main's with `MainsSigns`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.runner.session import RunResult
from planegate.signs.compare import MainsSigns

RULE = "PG565"
WHERE = "a process the test session started, or C code"


class UnseenRun(Protocol):
    @property
    def head_run(self) -> RunResult: ...
    @property
    def mains_signs(self) -> MainsSigns: ...


def excess(run: RunResult) -> dict[str, int] | None:
    """Locked path -> opens the kernel counted beyond those the audit hook saw; None when the
    run was not watched, did not close, or the kernel's counts are incomplete."""
    opened = run.opened
    if opened is None or not opened.known or not run.closed:
        return None
    seen = hook_counts(run.extra.get("opens"))
    if seen is None:
        return None
    found = {path: n - seen.get(path, 0) for path, n in opened.counts.items()}
    return {path: n for path, n in sorted(found.items()) if n > 0}


def hook_counts(record: object) -> dict[str, int] | None:
    """The child's `opens` record (untrusted: any other shape is None)."""
    counts = record.get("counts") if isinstance(record, Mapping) else None
    if not isinstance(counts, Mapping):
        return None
    if not all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in counts.items()):
        return None
    return dict(counts)


def findings(ctx: GitFacts, run: UnseenRun) -> list[Finding]:
    head = run.head_run
    if head.opened is None or not head.closed:
        return []
    if not head.opened.known:
        why = "the kernel's event queue overflowed" if head.opened.overflow else ""
        return [_unknown(ctx, why or head.opened.unavailable)]
    found = excess(head)
    if found is None:
        return [_unknown(ctx, "the test session sent no count of its own")]
    mains = run.mains_signs.unseen
    result = []
    for path, extra in found.items():
        times = "once" if extra == 1 else f"{extra} times"
        text = f"{path} was opened {times} where the audit hook cannot see: {WHERE}"
        if mains is None:
            severity, owner = Severity.WARNING, ctx.who.of_plane("fixture", path)
            text += "; main's run holds no count to compare with"
        elif mains.get(path, 0) >= extra:
            continue
        else:
            severity, owner = Severity.ERROR, ctx.author
            text += f"; main's run shows {mains.get(path, 0)}"
        result.append(Finding(RULE, Step.HUNKS, severity, text, path=path, owner=owner))
    return result


def _unknown(ctx: GitFacts, why: str) -> Finding:
    return Finding(
        RULE,
        Step.HUNKS,
        Severity.WARNING,
        f"the opens of locked files the audit hook cannot see are unknown: {why}",
        owner=ctx.who.of_plane_map(),
    )
