"""The terminal rendering of a Report: a verdict line, then findings grouped by step."""

from __future__ import annotations

from planegate import untrusted
from planegate.exitcodes import describe
from planegate.findings import Finding
from planegate.report import Report

shown = untrusted.one_line


def render(report: Report) -> str:
    """Every string that can come from the patch goes through `one_line` (no escape sequence,
    no control character, no line break) and the whole through `inert_commands`."""
    lines = [
        _verdict(report),
        f"base {shown(report.base[:12])} (its tip: evidence, configuration, digest; merge base "
        f"{shown(report.merge_base[:12])}), head {shown(report.head[:12])} {_merged(report)}, "
        f"{'agent' if report.agent else 'human'} patch",
        f"digest: {shown(report.digest_source)}",
        "",
    ]
    for result in report.steps:
        status = "FAIL" if result.failed else "ok"
        lines.append(
            f"[{status}] {result.step.value} (exit {result.step.exit_code})"
            + (f" — {'; '.join(map(shown, result.notes))}" if result.notes else "")
        )
        for finding in sorted(result.findings, key=Finding.sort_key):
            lines.append(
                f"  {finding.severity.value:<7} {finding.rule} {shown(finding.location)}: "
                f"{shown(finding.message)} [owner: {shown(finding.owner)}]"
            )
    if report.base_broken:
        lines += ["", "base broken (failed every run on the base, and alone):"]
        lines += [f"  {shown(nodeid)}" for nodeid in report.base_broken]
    if report.notes:
        lines += ["", *map(shown, report.notes)]
    if report.shadow:
        lines += ["", "shadow lane (frozen tests, diagnostics only, never vote):"]
        lines += [
            f"  {shown(s.outcome):<10} {shown(s.nodeid)} [owner: {shown(s.owner)}]"
            for s in report.shadow
        ]
    return untrusted.inert_commands("\n".join(lines) + "\n")


def _merged(report: Report) -> str:
    if report.merged:
        return f"merged onto it (tree {shown(report.merged[:12])})"
    return "(does not merge onto the base)"


def _verdict(report: Report) -> str:
    if report.exit_code == 0:
        return "planegate: PASS (exit 0)"
    entry = describe(report.exit_code)
    meaning = entry.meaning if entry else ""
    errors = sum(1 for f in report.findings if f.fails)
    return (
        f"planegate: FAIL (exit {report.exit_code}, {entry.name if entry else ''}): {meaning}; "
        f"{errors} failing finding{'s' if errors != 1 else ''}"
    )
