"""The terminal rendering of a Report: a verdict line, then findings grouped by step.

Colour only on a terminal: `NO_COLOR` (any value) turns it off, `FORCE_COLOR` (any value but
empty) turns it on even when the output is a file or a pipe (https://no-color.org).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

from planegate import untrusted
from planegate.exitcodes import describe
from planegate.findings import Finding, Severity
from planegate.report import NO_SANDBOX, Report
from planegate.rules import RULES

shown = untrusted.one_line
_CODES = {"red": "31", "green": "32", "yellow": "33", "dim": "2", "bold": "1"}
_SEVERITY = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.NOTICE: "dim"}


def colour_wanted(stream: TextIO | None, environ: Mapping[str, str]) -> bool:
    """`stream` None: the text goes to a file (`--output`), never a terminal."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class _Paint:
    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, colour: str) -> str:
        return f"\x1b[{_CODES[colour]}m{text}\x1b[0m" if self.on else text


def render(report: Report, *, color: bool | None = None, verbose: bool = False) -> str:
    """`color`: None decides from stdout and the environment (`colour_wanted`); `verbose`
    adds every part's time after the total.

    Every string that can come from the patch goes through `one_line` (no escape sequence,
    no control character, no line break) and the whole through `inert_commands`; the only
    escape sequences are the colours added here."""
    paint = _Paint(colour_wanted(sys.stdout, os.environ) if color is None else color)
    lines = [
        *([shown(report.trust)] if report.trust else []),
        _verdict(report, paint),
        f"base {shown(report.base[:12])} (its tip: evidence, configuration, digest; merge base "
        f"{shown(report.merge_base[:12])}), head {shown(report.head[:12])} {_merged(report)}, "
        f"{'agent' if report.agent else 'human'} patch",
        f"digest: {shown(report.digest_source)}",
        "",
    ]
    for result in report.steps:
        status = (
            paint(f"[failed] {result.step.value} (exit {result.step.exit_code})", "red")
            if result.failed
            else paint("[passed]", "green") + f" {result.step.value}"
        )
        lines.append(status + (f" — {'; '.join(map(shown, result.notes))}" if result.notes else ""))
        for finding in sorted(result.findings, key=Finding.sort_key):
            severity = paint(f"{finding.severity.value:<7}", _SEVERITY[finding.severity])
            lines.append(
                f"  {severity} {finding.rule} {shown(finding.location)}: "
                f"{shown(finding.message)} [owner: {shown(finding.owner)}]"
            )
        lines += _what_to_do(result.findings, paint)
    if report.base_broken:
        lines += ["", "base broken (failing on the base too; the patch is not blamed):"]
        lines += [f"  {shown(nodeid)}" for nodeid in report.base_broken]
        lines.append(f"  {paint('to do  ', 'bold')} {RULES['PG111'].how_to_fix}")
    if report.notes:
        lines += ["", *map(shown, report.notes)]
    if report.shadow:
        lines += ["", "shadow lane (frozen tests, diagnostics only, never vote):"]
        lines += [
            f"  {shown(s.outcome):<10} {shown(s.nodeid)} [owner: {shown(s.owner)}]"
            for s in report.shadow
        ]
    lines += _new_tests(report)
    if "total" in report.timings:
        total = report.timings["total"]
        lines += ["", f"took {total:.1f} s (each part's time is in the JSON report's timings)"]
    if verbose and report.timings:
        parts = ", ".join(
            f"{shown(name)} {seconds:.2f}" for name, seconds in report.timings.items()
        )
        lines.append(f"seconds: {parts}")
    return untrusted.inert_commands("\n".join(lines) + "\n")


def _new_tests(report: Report) -> list[str]:
    """The tests the patch adds (run apart, never voting) and the rows that would classify
    the ones in no plane."""
    lines: list[str] = []
    if report.new_tests:
        lines += ["", "tests the patch adds (its claims: run apart, never vote):"]
        lines += [
            f"  {shown(t.outcome):<10} {shown(t.nodeid)} [{shown(t.plane)}]"
            for t in report.new_tests
        ]
    if report.classify:
        lines += [
            "",
            "to classify them, a person (not an agent) adds these entries to the planes' "
            "nodeids lists in planegate.yml, in a commit of their own:",
            *(f"  {shown(line)}" for line in report.classify),
        ]
    return lines


def _what_to_do(findings: tuple[Finding, ...], paint: _Paint) -> list[str]:
    """One line per rule that fails the step: how to fix it, and whether the patch's author
    may (planegate's own words, from the catalogue)."""
    lines = []
    for rule_id in dict.fromkeys(f.rule for f in sorted(findings, key=Finding.sort_key) if f.fails):
        rule = RULES.get(rule_id)
        if rule is not None:
            who = "the patch may fix this" if rule.agent_may_fix else "an owner must act"
            lines.append(f"  {paint('to do  ', 'bold')} {rule_id} ({who}): {rule.how_to_fix}")
    return lines


def _merged(report: Report) -> str:
    if report.merged:
        return f"merged onto it (tree {shown(report.merged[:12])})"
    return "(does not merge onto the base)"


def _verdict(report: Report, paint: _Paint) -> str:
    first = _bare_verdict(report, paint)
    return f"{first} · {paint(NO_SANDBOX, 'red')}" if report.unsandboxed else first


def _bare_verdict(report: Report, paint: _Paint) -> str:
    if report.exit_code == 0:
        return paint("planegate: PASS (exit 0)", "green")
    entry = describe(report.exit_code)
    meaning = entry.meaning if entry else ""
    errors = sum(1 for f in report.findings if f.fails)
    head = paint(f"planegate: FAIL (exit {report.exit_code}, {entry.name if entry else ''})", "red")
    return f"{head}: {meaning}; {plural(errors, 'failing finding')}"
