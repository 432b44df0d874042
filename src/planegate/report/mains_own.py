"""Warnings that only repeat main's own behaviour, summarised once per rule and step.

PG112 (a harness change main's own code makes, as main's run shows it), PG113 (a fixture
survivor main's run shows too), PG146 (a compared value that lies on main too: attrs' version
class compares by its own rules) and PG562 as a warning (production code opening what the test
side reads, as main's production code does) say nothing about the patch: main's run records
them, and every pull request would repeat them. Each rule's warnings in a step become one
notice with their count and the first few places; errors of the same rules (the patch's own)
are never folded."""

from __future__ import annotations

from dataclasses import replace

from planegate.findings import Finding, Severity
from planegate.report import Report, StepResult

MAINS_OWN = ("PG112", "PG113", "PG146", "PG562")
SHOWN = 3  # places in the notice
MAX_LISTED = 50  # places in the step's note


def quiet(report: Report) -> Report:
    """The report with main's own repeated warnings folded (a report without them is
    returned as it is)."""
    return replace(report, steps=tuple(_quiet_step(result) for result in report.steps))


def _quiet_step(result: StepResult) -> StepResult:
    kept: list[Finding] = []
    folded: dict[str, list[Finding]] = {}
    for finding in result.findings:
        if finding.rule in MAINS_OWN and finding.severity is Severity.WARNING:
            folded.setdefault(finding.rule, []).append(finding)
        else:
            kept.append(finding)
    if not folded:
        return result
    summaries = [_summary(rule, found) for rule, found in sorted(folded.items())]
    notes = [_note(rule, found) for rule, found in sorted(folded.items())]
    return replace(result, findings=(*kept, *summaries), notes=(*result.notes, *notes))


def places(found: list[Finding]) -> list[str]:
    """Where each folded sign is: its test, else its file, each once, in order."""
    return list(dict.fromkeys(f.nodeid or f.path or "-" for f in found))


def _note(rule: str, found: list[Finding]) -> str:
    listed = places(found)
    more = f" and {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""
    return f"main's own behaviour ({rule}, {len(found)}): " + ", ".join(listed[:MAX_LISTED]) + more


def _summary(rule: str, found: list[Finding]) -> Finding:
    if len(found) == 1:
        return replace(found[0], severity=Severity.NOTICE)
    places = sorted({f.path or f.nodeid or "-" for f in found})
    shown = ", ".join(places[:SHOWN]) + (
        f" and {len(places) - SHOWN} more" if len(places) > SHOWN else ""
    )
    first = found[0]
    return Finding(
        rule,
        first.step,
        Severity.NOTICE,
        f"{len(found)} signs repeat main's own behaviour, as main's run shows it ({shown}); "
        f"the first: {first.message} (the step's notes list them all)",
        path=first.path,
        line=first.line,
        owner=first.owner,
        plane=first.plane,
    )
