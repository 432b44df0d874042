"""The line-based check for a side that does not parse: weaker, and it says so."""

from __future__ import annotations

import difflib
import re

from planegate.analysis.hunks.placement import Context, plural
from planegate.findings import Finding, Severity

_SKIP = re.compile(
    r"pytest\.mark\.(skip|skipif|xfail)\b|pytest\.(skip|xfail|importorskip)\s*\("
    r"|unittest\.(skip|skipIf|skipUnless|expectedFailure)\b|\.skipTest\s*\(|\bexpectedFailure\b"
    r"|\b(applymarker|add_marker)\s*\("
)
_ASSERT = re.compile(r"^\s*assert\b|\.assert\w*\s*\(|\bpytest\.raises\s*\(")


def line_check(ctx: Context, base: str, head: str, which: str, error: SyntaxError) -> list[Finding]:
    where = f"line {error.lineno}" if error.lineno else "unknown line"
    why = f"{which} does not parse ({error.msg} at {where}); line-based check"
    before, after = base.splitlines(), head.splitlines()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    added: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed.extend((i + 1, before[i]) for i in range(i1, i2))
        if tag in ("replace", "insert"):
            added.extend((j + 1, after[j]) for j in range(j1, j2))
    out = [
        ctx.finding("PG524", line, f"{why}: skip or xfail added: `{text.strip()[:60]}`")
        for line, text in added
        if _SKIP.search(text)
    ]
    lost = [(line, text) for line, text in removed if _ASSERT.search(text)]
    gained = sum(1 for _, text in added if _ASSERT.search(text))
    if len(lost) > gained:
        line, text = lost[0]
        message = (
            f"{why}: {plural(len(lost) - gained, 'assert line')} removed "
            f"(`{text.strip()[:60]}`, base line {line})"
        )
        out.append(ctx.finding("PG524", line, message))
    if not out:
        message = f"{why} found no weakening; the AST rules did not run on this file"
        out.append(ctx.finding("PG524", error.lineno, message, severity=Severity.WARNING))
    return out
