"""PG570 for the hunks step: production code the patch changes that carries the answers of
main's scoring tests (probes/in_code/scan.py), with the test or golden it mirrors.

Only what can be mirrored is read: main's scoring test files and locked goldens that contain
the text of a constant the patch adds."""

from __future__ import annotations

import time
from collections.abc import Iterable

from planegate import sourcesize, untrusted
from planegate.analysis.hunks import is_test_file
from planegate.config.planemap import data_files
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.probes.answers.observed import OBSERVED
from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.in_code import scan as answers
from planegate.probes.in_code.expected import Expectations


def check(ctx: GitFacts) -> tuple[list[Finding], str | None]:
    """The findings, and a note on what was checked and what it cost (None: nothing was)."""
    started = time.monotonic()
    changed = _production_changes(ctx)
    tokens = {path: answers.added_tokens(ctx.base.text(old), head) for path, old, head in changed}
    wanted = set().union(*tokens.values()) if tokens else set()
    if not wanted:
        return [], None
    expected = _expectations(ctx, wanted)
    findings = [
        Finding(
            "PG570",
            Step.HUNKS,
            Severity.ERROR,
            untrusted.one_line(f"production code carries the tests' answers: {hit.message}"),
            path=path,
            line=hit.line,
            owner=ctx.author,
        )
        for path, old, head in changed
        if tokens[path]
        for hit in answers.added_hits(ctx.base.text(old), head, expected)
    ]
    seconds = time.monotonic() - started
    note = (
        f"answers in code: {len(changed)} changed production files against "
        f"{len(expected.pairs)} asserted answers and {len(expected.golden_lines)} golden "
        f"lines ({seconds:.2f} s)"
    )
    return findings, note


def observed_findings(ctx: GitFacts, answers: AnswerProbes) -> list[Finding]:
    """PG570 for the branches the patch adds that fit what a flipped test gave the code and
    got back, observed in the answer probes' run (probes/answers/observed.py)."""
    found = []
    for failure in answers.failures:
        if failure.probe != OBSERVED:
            continue
        where, _, message = failure.message.partition(": ")
        path, _, number = where.rpartition(":")
        found.append(
            Finding(
                "PG570",
                Step.HUNKS,
                Severity.ERROR,
                untrusted.one_line(
                    f"production code special-cases the input a test it flips gives it: "
                    f"{message}; repro: {failure.repro}"
                ),
                path=path or None,
                line=int(number) if number.isdigit() else None,
                owner=ctx.author,
                nodeid=failure.nodeid,
            )
        )
    return found


def _production_changes(ctx: GitFacts) -> list[tuple[str, str, str]]:
    """(path, base path, head text) of each changed Python file outside tests and planes."""
    found = []
    for change in ctx.changes:
        path = change.path
        if not _production(ctx, path):
            continue
        head = ctx.head.text(path)
        if head is not None and sourcesize.refusal(head, ctx.cfg.max_file_bytes) is None:
            found.append((path, change.old_path or path, head))  # a refused one is PG526
    return found


def _production(ctx: GitFacts, path: str) -> bool:
    if not path.endswith(".py") or is_test_file(path) or ctx.plane_map.is_plane_file(path):
        return False
    return not ctx.protection.covers(path)


def tokens_ahead(ctx: GitFacts, changed: Iterable[tuple[str, str | None, str | None]]) -> None:
    """The constants `check` will look for in the changed files (path, base text, head
    text), worked out ahead (beside the head's test child: steps/hunks.py); reads no git."""
    for path, base, head in changed:
        if head is None or not _production(ctx, path):
            continue
        if sourcesize.refusal(head, ctx.cfg.max_file_bytes) is None:
            answers.added_tokens(base, head)


def _expectations(ctx: GitFacts, wanted: set[str]) -> Expectations:
    expected = Expectations()
    for path in ctx.base.files:
        if not path.endswith(".py") or not is_test_file(path):
            continue
        if ctx.plane_map.plane_of_file(path) is None:
            continue
        source = ctx.base.text(path)
        if source is not None and any(token in source for token in wanted):
            expected.add_test_file(path, source)
    for path in data_files(ctx.cfg, ctx.base.files):
        text = ctx.base.text(path)
        if text is not None and any(token in text for token in wanted):
            expected.add_golden(path, text)
    return expected
