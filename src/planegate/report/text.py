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
        f"base {shown(report.base[:12])} (merge base {shown(report.merge_base[:12])}), "
        f"head {shown(report.head[:12])}, {'agent' if report.agent else 'human'} patch",
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
        lines += ["", "base broken (failing on the base too; the patch is not blamed):"]
        lines += [f"  {shown(nodeid)}" for nodeid in report.base_broken]
    if report.notes:
        lines += ["", *map(shown, report.notes)]
    if report.shadow:
        lines += ["", "shadow lane (frozen tests, diagnostics only, never vote):"]
        lines += [
            f"  {shown(s.outcome):<10} {shown(s.nodeid)} [owner: {shown(s.owner)}]"
            for s in report.shadow
        ]
    if report.timings:
        spent = ", ".join(
            f"{shown(name)} {seconds:.2f}" for name, seconds in report.timings.items()
        )
        lines += ["", f"seconds: {spent}"]
    return untrusted.inert_commands("\n".join(lines) + "\n")


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
